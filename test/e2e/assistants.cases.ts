// The /assistants API through the official SDK, written once and run on each storage backend.
// Every case tags what it creates with its own metadata, so cases sharing one server never see
// each other's assistants.
import { randomUUID } from "node:crypto";
import type { Assistant } from "@langchain/langgraph-sdk";
import { v5 as uuidv5 } from "uuid";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { GRAPHS_CONFIG } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { request } from "./http.js";

const GRAPH_IDS = ["echo", "annotated", "uncompiled", "factory", "nested"];
// The namespace the platform derives system assistant ids from (spec §0.1).
const SYSTEM_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

const nodeIds = (graph: { nodes: Array<{ id: string | number }> }) => graph.nodes.map((n) => String(n.id));

export function describeAssistantsE2E(label: string, open: OpenStore): void {
  describe(`assistants through the SDK (${label})`, () => {
    const gantry = useGantry(open, GRAPHS_CONFIG);

    it(`keeps its data in ${label}`, async () => {
      const info = await request(gantry.server.url, "GET", "/info");
      expect((info.json as { metadata?: { storage?: string } }).metadata?.storage).toBe(gantry.store.backend);
    });

    const tag = () => ({ case: randomUUID() });

    describe("system assistants", () => {
      it("has one per graph, with the uuid5 of the graph id, the graph id as name and created_by system", async () => {
        const system = await gantry.client.assistants.search({ metadata: { created_by: "system" }, limit: 100 });
        expect(system.map((a) => a.graph_id).sort()).toEqual([...GRAPH_IDS].sort());
        for (const assistant of system) {
          expect(assistant.assistant_id).toBe(uuidv5(assistant.graph_id, SYSTEM_NAMESPACE));
          expect(assistant.name).toBe(assistant.graph_id);
          expect(assistant.metadata).toEqual({ created_by: "system" });
          expect(assistant.version).toBe(1);
        }
      });

      it("carries the description given in langgraph.json", async () => {
        const echo = await gantry.client.assistants.get(uuidv5("echo", SYSTEM_NAMESPACE));
        expect(echo.description).toBe("Repeats the last message back");
      });

      it("is what a graph id resolves to wherever an assistant id is accepted", async () => {
        const byGraphId = await gantry.client.assistants.get("annotated");
        expect(byGraphId.assistant_id).toBe(uuidv5("annotated", SYSTEM_NAMESPACE));
        const versions = await gantry.client.assistants.getVersions("annotated");
        expect(versions.map((v) => v.assistant_id)).toEqual([byGraphId.assistant_id]);
        const schemas = await gantry.client.assistants.getSchemas("annotated");
        expect(schemas.graph_id).toBe("annotated");
      });
    });

    describe("create", () => {
      it("creates version 1 with the given id, config, context, metadata, name and description", async () => {
        const assistantId = randomUUID();
        const metadata = { ...tag(), owner: "ada" };
        const created = await gantry.client.assistants.create({
          graphId: "echo",
          assistantId,
          config: { configurable: { model: "small" }, tags: ["a"] },
          context: { prefix: ">" },
          metadata,
          name: "Echo bot",
          description: "Says it back",
        });
        expect(created).toMatchObject({
          assistant_id: assistantId,
          graph_id: "echo",
          config: { configurable: { model: "small" }, tags: ["a"] },
          context: { prefix: ">" },
          metadata,
          name: "Echo bot",
          description: "Says it back",
          version: 1,
        });
        expect(Date.parse(created.created_at)).not.toBeNaN();
        expect(await gantry.client.assistants.get(assistantId)).toEqual(created);
      });

      it("fills in an id, empty config, context and metadata, and a null description when they are not given", async () => {
        const created = await gantry.client.assistants.create({ graphId: "annotated" });
        expect(created.assistant_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(created).toMatchObject({ config: {}, context: {}, metadata: {}, description: null, version: 1 });
        expect(typeof created.name).toBe("string");
      });

      it("answers HTTP 409 to a second create with the same id when if_exists is raise", async () => {
        const assistantId = randomUUID();
        await gantry.client.assistants.create({ graphId: "echo", assistantId, name: "first" });
        await expect(gantry.client.assistants.create({ graphId: "echo", assistantId, name: "second" })).rejects.toThrow(/HTTP 409/);
        await expect(gantry.client.assistants.create({ graphId: "echo", assistantId, ifExists: "raise" })).rejects.toThrow(/HTTP 409/);
        expect((await gantry.client.assistants.get(assistantId)).name).toBe("first");
      });

      it("returns the existing assistant unchanged when if_exists is do_nothing", async () => {
        const assistantId = randomUUID();
        const first = await gantry.client.assistants.create({ graphId: "echo", assistantId, name: "first", metadata: { n: 1 } });
        const again = await gantry.client.assistants.create({
          graphId: "nested",
          assistantId,
          name: "second",
          metadata: { n: 2 },
          ifExists: "do_nothing",
        });
        expect(again).toEqual(first);
      });

      it("lets exactly one of many concurrent creates with the same id through, refusing the rest with HTTP 409", async () => {
        const assistantId = randomUUID();
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) => gantry.client.assistants.create({ graphId: "echo", assistantId, name: `racer ${i}` })),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const result of results) {
          if (result.status === "rejected") expect(String(result.reason)).toMatch(/HTTP 409/);
        }
      });

      it("answers HTTP 404 for a graph that is not in langgraph.json", async () => {
        await expect(gantry.client.assistants.create({ graphId: "no-such-graph" })).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("update, versions and set latest", () => {
      it("writes version 2 with the metadata merged and the rest kept", async () => {
        const created = await gantry.client.assistants.create({
          graphId: "echo",
          name: "before",
          metadata: { keep: "yes", change: 1 },
          config: { configurable: { model: "small" } },
        });
        const updated = await gantry.client.assistants.update(created.assistant_id, { name: "after", metadata: { change: 2, added: true } });
        expect(updated).toMatchObject({
          assistant_id: created.assistant_id,
          graph_id: "echo",
          version: 2,
          name: "after",
          metadata: { keep: "yes", change: 2, added: true },
          config: { configurable: { model: "small" } },
        });
        expect(await gantry.client.assistants.get(created.assistant_id)).toEqual(updated);
      });

      it("keeps each of many concurrent updates as its own version, merging all their metadata", async () => {
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo" });
        await Promise.all(Array.from({ length: 8 }, (_, i) => gantry.client.assistants.update(assistant_id, { metadata: { [`k${i}`]: i } })));
        const current = await gantry.client.assistants.get(assistant_id);
        expect(current.version).toBe(9);
        expect(Object.keys(current.metadata ?? {}).sort()).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"]);
        const versions = await gantry.client.assistants.getVersions(assistant_id, { limit: 100 });
        expect(versions.map((v) => v.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
      });

      it("answers HTTP 404 to an update of an assistant that does not exist", async () => {
        await expect(gantry.client.assistants.update(randomUUID(), { name: "x" })).rejects.toThrow(/HTTP 404/);
      });

      it("lists versions newest first, filtered by metadata and paged", async () => {
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo", name: "v1", metadata: { stage: "one" } });
        await gantry.client.assistants.update(assistant_id, { name: "v2", metadata: { stage: "two" } });
        await gantry.client.assistants.update(assistant_id, { name: "v3", metadata: { stage: "three" } });

        const versions = await gantry.client.assistants.getVersions(assistant_id);
        expect(versions.map((v) => [v.version, v.name])).toEqual([
          [3, "v3"],
          [2, "v2"],
          [1, "v1"],
        ]);
        expect(versions.every((v) => v.assistant_id === assistant_id && v.graph_id === "echo")).toBe(true);

        const stageTwo = await gantry.client.assistants.getVersions(assistant_id, { metadata: { stage: "two" } });
        expect(stageTwo.map((v) => v.version)).toEqual([2]);

        const middle = await gantry.client.assistants.getVersions(assistant_id, { limit: 1, offset: 1 });
        expect(middle.map((v) => v.version)).toEqual([2]);
      });

      it("makes version 1 current again with setLatest, its name and metadata included", async () => {
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo", name: "original", metadata: { stage: "one" } });
        await gantry.client.assistants.update(assistant_id, { name: "changed", metadata: { stage: "two" } });

        const restored = await gantry.client.assistants.setLatest(assistant_id, 1);
        expect(restored).toMatchObject({ assistant_id, version: 1, name: "original", metadata: { stage: "one" } });
        expect(await gantry.client.assistants.get(assistant_id)).toMatchObject({ version: 1, name: "original" });
        expect((await gantry.client.assistants.getVersions(assistant_id)).map((v) => v.version)).toEqual([2, 1]);
      });

      it("answers HTTP 404 to setLatest with a version that does not exist", async () => {
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo" });
        await expect(gantry.client.assistants.setLatest(assistant_id, 7)).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("delete", () => {
      it("deletes an assistant, after which getting it answers HTTP 404", async () => {
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo" });
        await gantry.client.assistants.delete(assistant_id);
        await expect(gantry.client.assistants.get(assistant_id)).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.assistants.delete(assistant_id)).rejects.toThrow(/HTTP 404/);
      });

      it("deletes the threads whose metadata.assistant_id matches with delete_threads, and keeps them without", async () => {
        const doomed = await gantry.client.assistants.create({ graphId: "echo" });
        const spared = await gantry.client.assistants.create({ graphId: "echo" });
        const doomedThread = await gantry.client.threads.create({ metadata: { assistant_id: doomed.assistant_id } });
        const sparedThread = await gantry.client.threads.create({ metadata: { assistant_id: spared.assistant_id } });
        const bystander = await gantry.client.threads.create({ metadata: { assistant_id: randomUUID() } });

        await gantry.client.assistants.delete(doomed.assistant_id, { deleteThreads: true });
        await gantry.client.assistants.delete(spared.assistant_id, { deleteThreads: false });

        await expect(gantry.client.threads.get(doomedThread.thread_id)).rejects.toThrow(/HTTP 404/);
        expect((await gantry.client.threads.get(sparedThread.thread_id)).thread_id).toBe(sparedThread.thread_id);
        expect((await gantry.client.threads.get(bystander.thread_id)).thread_id).toBe(bystander.thread_id);
        await expect(gantry.client.assistants.get(spared.assistant_id)).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("search and count", () => {
      /** Three assistants with distinct names and graphs, created in order a, b, c. */
      async function threeAssistants() {
        const metadata = tag();
        const made: Assistant[] = [];
        for (const [name, graphId] of [
          ["bravo", "nested"],
          ["charlie", "annotated"],
          ["alpha", "echo"],
        ] as const) {
          made.push(await gantry.client.assistants.create({ graphId, name, metadata }));
        }
        return { metadata, made };
      }

      it("finds assistants by metadata, graph_id and case-insensitive name substring", async () => {
        const { metadata, made } = await threeAssistants();
        const all = await gantry.client.assistants.search({ metadata });
        expect(all.map((a) => a.assistant_id).sort()).toEqual(made.map((a) => a.assistant_id).sort());

        const byGraph = await gantry.client.assistants.search({ metadata, graphId: "annotated" });
        expect(byGraph.map((a) => a.name)).toEqual(["charlie"]);

        const byName = await gantry.client.assistants.search({ metadata, name: "RAV" });
        expect(byName.map((a) => a.name)).toEqual(["bravo"]);

        expect(await gantry.client.assistants.search({ metadata: { ...metadata, missing: true } })).toEqual([]);
      });

      it("matches nested and numeric metadata by containment", async () => {
        const metadata = { ...tag(), owner: { team: "core", level: 3 } };
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo", metadata });
        const found = await gantry.client.assistants.search({ metadata: { case: metadata.case, owner: { level: 3 } } });
        expect(found.map((a) => a.assistant_id)).toEqual([assistant_id]);
        expect(await gantry.client.assistants.search({ metadata: { case: metadata.case, owner: { level: 4 } } })).toEqual([]);
      });

      it("treats % and _ in a name filter as plain characters", async () => {
        const metadata = tag();
        for (const name of ["50% off", "snake_case", "plain"]) await gantry.client.assistants.create({ graphId: "echo", name, metadata });
        expect((await gantry.client.assistants.search({ metadata, name: "%" })).map((a) => a.name)).toEqual(["50% off"]);
        expect((await gantry.client.assistants.search({ metadata, name: "_" })).map((a) => a.name)).toEqual(["snake_case"]);
      });

      it("matches a name case-insensitively beyond ASCII letters", async () => {
        const metadata = tag();
        await gantry.client.assistants.create({ graphId: "echo", name: "Ärger im Büro", metadata });
        expect((await gantry.client.assistants.search({ metadata, name: "ärger" })).map((a) => a.name)).toEqual(["Ärger im Büro"]);
      });

      it("matches metadata keys containing dots and quotes as written", async () => {
        const metadata = { ...tag(), "a.b": 1, 'say "hi"': "yes" };
        const { assistant_id } = await gantry.client.assistants.create({ graphId: "echo", metadata });
        const search = (filter: Record<string, unknown>) => gantry.client.assistants.search({ metadata: { case: metadata.case, ...filter } });
        expect((await search({ "a.b": 1 })).map((a) => a.assistant_id)).toEqual([assistant_id]);
        expect((await search({ 'say "hi"': "yes" })).map((a) => a.assistant_id)).toEqual([assistant_id]);
        expect(await search({ a: { b: 1 } })).toEqual([]);
      });

      it.each(["name", "graph_id", "assistant_id"] as const)("sorts by %s in both orders", async (field) => {
        const { metadata, made } = await threeAssistants();
        const expected = made.map((a) => a[field]).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
        const asc = await gantry.client.assistants.search({ metadata, sortBy: field, sortOrder: "asc" });
        expect(asc.map((a) => a[field])).toEqual(expected);
        const desc = await gantry.client.assistants.search({ metadata, sortBy: field, sortOrder: "desc" });
        expect(desc.map((a) => a[field])).toEqual([...expected].reverse());
      });

      it.each(["created_at", "updated_at"] as const)("sorts by %s in both orders", async (field) => {
        const { metadata, made } = await threeAssistants();
        await gantry.client.assistants.update(made[0]!.assistant_id, { description: "touched" });
        const times = (list: Assistant[]) => list.map((a) => Date.parse(a[field]));
        const asc = await gantry.client.assistants.search({ metadata, sortBy: field, sortOrder: "asc" });
        expect(times(asc)).toEqual([...times(asc)].sort((x, y) => x - y));
        const desc = await gantry.client.assistants.search({ metadata, sortBy: field, sortOrder: "desc" });
        expect(times(desc)).toEqual([...times(desc)].sort((x, y) => y - x));
        expect(asc).toHaveLength(3);
        expect(desc).toHaveLength(3);
      });

      it("returns only the selected fields", async () => {
        const { metadata } = await threeAssistants();
        const selected = await gantry.client.assistants.search({ metadata, select: ["assistant_id", "name"] });
        expect(selected).toHaveLength(3);
        for (const assistant of selected) expect(Object.keys(assistant).sort()).toEqual(["assistant_id", "name"]);
      });

      it("pages with limit and offset, and gives the next offset to includePagination", async () => {
        const { metadata } = await threeAssistants();
        const first = await gantry.client.assistants.search({ metadata, limit: 2, sortBy: "name", sortOrder: "asc", includePagination: true });
        expect(first.assistants.map((a) => a.name)).toEqual(["alpha", "bravo"]);
        expect(first.next).toBe("2");
        const last = await gantry.client.assistants.search({
          metadata,
          limit: 2,
          offset: Number(first.next),
          sortBy: "name",
          sortOrder: "asc",
          includePagination: true,
        });
        expect(last.assistants.map((a) => a.name)).toEqual(["charlie"]);
        expect(last.next).toBeNull();
      });

      it("sets X-Pagination-Total always and X-Pagination-Next only while rows remain", async () => {
        const { metadata } = await threeAssistants();
        const first = await request(gantry.server.url, "POST", "/assistants/search", { body: { metadata, limit: 2 } });
        expect(first.status).toBe(200);
        expect(first.headers.get("x-pagination-total")).toBe("3");
        expect(first.headers.get("x-pagination-next")).toBe("2");
        const last = await request(gantry.server.url, "POST", "/assistants/search", { body: { metadata, limit: 2, offset: 2 } });
        expect(last.headers.get("x-pagination-total")).toBe("3");
        expect(last.headers.has("x-pagination-next")).toBe(false);
        expect(last.json).toHaveLength(1);
      });

      it("counts assistants by metadata, graph_id and name", async () => {
        const { metadata } = await threeAssistants();
        expect(await gantry.client.assistants.count({ metadata })).toBe(3);
        expect(await gantry.client.assistants.count({ metadata, graphId: "echo" })).toBe(1);
        expect(await gantry.client.assistants.count({ metadata, name: "ALPHA" })).toBe(1);
        expect(await gantry.client.assistants.count({ metadata: { ...metadata, nope: 1 } })).toBe(0);
      });
    });

    describe("graph, schemas and subgraphs", () => {
      it("draws a subgraph as one node without xray", async () => {
        const graph = await gantry.client.assistants.getGraph("nested");
        const ids = nodeIds(graph);
        expect(ids).toEqual(expect.arrayContaining(["__start__", "prepare", "child", "__end__"]));
        expect(ids.some((id) => id.startsWith("child:"))).toBe(false);
        expect(graph.edges.length).toBeGreaterThan(0);
      });

      it("draws the nodes inside subgraphs with xray", async () => {
        const ids = nodeIds(await gantry.client.assistants.getGraph("nested", { xray: true }));
        expect(ids).toEqual(expect.arrayContaining(["prepare", "child:inner", "child:grandchild:deep_one", "child:grandchild:deep_two"]));
        expect(ids).not.toContain("child");
      });

      it("stops at the given depth when xray is a number", async () => {
        const ids = nodeIds(await gantry.client.assistants.getGraph("nested", { xray: 1 }));
        expect(ids).toEqual(expect.arrayContaining(["child:inner", "child:grandchild"]));
        expect(ids.some((id) => id.startsWith("child:grandchild:"))).toBe(false);
      });

      it("draws graphs exported uncompiled and as factories", async () => {
        expect(nodeIds(await gantry.client.assistants.getGraph("uncompiled"))).toContain("upper");
        const made = await gantry.client.assistants.create({ graphId: "factory", config: { configurable: { name: "Ada" } } });
        expect(nodeIds(await gantry.client.assistants.getGraph(made.assistant_id))).toContain("greet");
      });

      it("lists the typed fields of a zod state, and its context schema", async () => {
        const schemas = await gantry.client.assistants.getSchemas("echo");
        expect(schemas.graph_id).toBe("echo");
        const state = schemas.state_schema as { properties: Record<string, { type?: string }> };
        expect(state.properties.messages?.type).toBe("array");
        expect(state.properties.reply?.type).toBe("string");
        expect(state.properties.count?.type).toBe("number");
        const context = schemas.context_schema as { properties: Record<string, { type?: string }> };
        expect(context.properties.prefix?.type).toBe("string");
      });

      it("keeps an Annotation graph's input, output and state apart", async () => {
        const schemas = await gantry.client.assistants.getSchemas("annotated");
        const keys = (schema: unknown) => Object.keys((schema as { properties: object }).properties).sort();
        expect(keys(schemas.input_schema)).toEqual(["question"]);
        expect(keys(schemas.output_schema)).toEqual(["answer"]);
        expect(keys(schemas.state_schema)).toEqual(["answer", "notes", "question"]);
        // The first schemas answer of an Annotation graph waits for its types to be read, minutes on a loaded machine.
      }, 240_000);

      it("describes the schemas of a created assistant by its UUID", async () => {
        const made = await gantry.client.assistants.create({ graphId: "uncompiled" });
        const schemas = await gantry.client.assistants.getSchemas(made.assistant_id);
        expect(schemas.graph_id).toBe("uncompiled");
        expect(Object.keys((schemas.state_schema as { properties: object }).properties)).toEqual(["text"]);
      });

      it("lists direct subgraphs, all of them with recurse, and one with a namespace", async () => {
        expect(Object.keys(await gantry.client.assistants.getSubgraphs("nested"))).toEqual(["child"]);
        expect(Object.keys(await gantry.client.assistants.getSubgraphs("nested", { recurse: true })).sort()).toEqual(["child", "child|grandchild"]);
        const child = await gantry.client.assistants.getSubgraphs("nested", { namespace: "child" });
        expect(Object.keys(child)).toEqual(["child"]);
        expect(Object.keys((child.child!.state_schema as { properties: object }).properties).sort()).toEqual(["steps", "topic"]);
        const deep = await gantry.client.assistants.getSubgraphs("nested", { namespace: "child|grandchild", recurse: true });
        expect(Object.keys(deep)).toEqual(["child|grandchild"]);
      });

      it("reads query booleans as true, false, 1 or 0 in any case", async () => {
        const namespaces = async (recurse: string) =>
          Object.keys((await request(gantry.server.url, "GET", `/assistants/nested/subgraphs?recurse=${recurse}`)).json as object).length;
        expect(await namespaces("1")).toBe(2);
        expect(await namespaces("TRUE")).toBe(2);
        expect(await namespaces("0")).toBe(1);
        expect(await namespaces("False")).toBe(1);
      });

      it("answers an empty map for a graph without subgraphs", async () => {
        expect(await gantry.client.assistants.getSubgraphs("echo")).toEqual({});
      });

      it("answers HTTP 404 for the graph, schemas and subgraphs of an unknown assistant", async () => {
        const missing = randomUUID();
        await expect(gantry.client.assistants.getGraph(missing)).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.assistants.getSchemas(missing)).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.assistants.getSubgraphs(missing)).rejects.toThrow(/HTTP 404/);
      });
    });
  });
}
