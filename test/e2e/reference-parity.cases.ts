// Behaviour the official LangGraph.js server's own end-to-end suite (libs/langgraph-api/tests of
// langchain-ai/langgraphjs) checks, each case named after the reference test it mirrors, run on
// each storage backend through the official SDK.
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";

const CONFIG = fixture("reference-parity", "langgraph.json");

const clientFor = (url: string, token: string) =>
  new Client({ apiUrl: url, callerOptions: { maxRetries: 0 }, defaultHeaders: { Authorization: `Bearer ${token}` } });

export function describeReferenceParity(name: string, open: OpenStore): void {
  describe(`reference parity on ${name}`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    let johndoe: Client;
    let alice: Client;

    beforeAll(async () => {
      store = await open();
      server = await store.start(CONFIG);
      johndoe = clientFor(server.url, "token-johndoe");
      alice = clientFor(server.url, "token-alice");
    }, 180_000);

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    // The reference's "auth › store auth": its handler filters on `namespace`, which is matched
    // against the item's value with its namespace and key set over it.
    it("store auth", async () => {
      await johndoe.store.deleteItem(["johndoe"], "key_one");
      await johndoe.store.putItem(["johndoe"], "key_one", { text: "test user A" });
      await alice.store.putItem(["alice"], "key_one", { text: "test user B" });

      await expect(johndoe.store.getItem(["ALL"], "key_one")).rejects.toThrow("HTTP 403");
      await expect(johndoe.store.putItem(["ALL"], "key_one", { foo: "bar" })).rejects.toThrow("HTTP 403");
      await expect(johndoe.store.deleteItem(["ALL"], "key_one")).rejects.toThrow("HTTP 403");
      await expect(johndoe.store.searchItems(["ALL"])).rejects.toThrow("HTTP 403");
      await expect(johndoe.store.listNamespaces({ prefix: ["ALL"] })).rejects.toThrow("HTTP 403");

      expect(await johndoe.store.getItem(["johndoe"], "key_one")).toMatchObject({ value: { text: "test user A" } });
      expect(await johndoe.store.searchItems(["johndoe"])).toMatchObject({ items: [{ key: "key_one", value: { text: "test user A" } }] });
      expect(await johndoe.store.listNamespaces({ prefix: ["johndoe"] })).toEqual({ namespaces: [["johndoe"]] });
      // No namespace named: the filter alone keeps alice's item out.
      expect((await johndoe.store.searchItems([])).items.map((i) => [i.namespace, i.key, i.value])).toEqual([
        [["johndoe"], "key_one", { text: "test user A" }],
      ]);
      expect(await johndoe.store.listNamespaces({})).toEqual({ namespaces: [["johndoe"]] });

      expect(await alice.store.getItem(["alice"], "key_one")).toMatchObject({ value: { text: "test user B" } });
      expect(await alice.store.searchItems(["alice"])).toMatchObject({ items: [{ key: "key_one", value: { text: "test user B" } }] });
      expect(await alice.store.listNamespaces({ prefix: ["alice"] })).toEqual({ namespaces: [["alice"]] });

      await johndoe.store.deleteItem(["johndoe"], "key_one");
      expect(await johndoe.store.getItem(["johndoe"], "key_one")).toBeNull();
      expect(await alice.store.getItem(["alice"], "key_one")).toMatchObject({ value: { text: "test user B" } });
    });

    // The reference's "subgraphs › human in the loop - no modification": the metadata event holds
    // run_id and attempt only, and a static breakpoint ends the stream with `{__interrupt__: []}`.
    it("human in the loop - no modification", async () => {
      const thread = await johndoe.threads.create();
      const chunks = [];
      for await (const chunk of johndoe.runs.stream(thread.thread_id, "steps", { input: { steps: ["SF"] }, interruptBefore: ["second"] })) chunks.push(chunk);
      expect(chunks.map(({ event, data }) => ({ event, data }))).toEqual([
        { event: "metadata", data: { run_id: expect.any(String), attempt: 1 } },
        { event: "values", data: { steps: ["SF"] } },
        { event: "values", data: { steps: ["SF", "first"] } },
        { event: "values", data: { __interrupt__: [] } },
      ]);
      expect((await johndoe.threads.get(thread.thread_id)).status).toBe("interrupted");
      expect((await johndoe.threads.getState(thread.thread_id)).next).toEqual(["second"]);

      // /wait keeps the state the breakpoint stopped beside its empty interrupt list.
      const waited = await johndoe.threads.create();
      expect(await johndoe.runs.wait(waited.thread_id, "steps", { input: {}, interruptBefore: ["second"] })).toEqual({ steps: ["first"], __interrupt__: [] });

      const resumed = [];
      for await (const chunk of johndoe.runs.stream(thread.thread_id, "steps", { input: null })) resumed.push(chunk);
      expect(resumed.filter((c) => c.event === "error")).toEqual([]);
      expect(resumed.at(-1)).toMatchObject({ event: "values", data: { steps: ["SF", "first", "second"] } });
      expect((await johndoe.threads.get(thread.thread_id)).status).toBe("idle");
    });

    // The same case's SSE ids: a run's events are numbered by their place in the run's log, from 0,
    // and a join with one of those numbers as Last-Event-ID goes on right after that event.
    it("subgraphs › human in the loop – no modification: stream event ids count from 0", async () => {
      const thread = await johndoe.threads.create();
      let runId = "";
      const chunks = [];
      const stream = johndoe.runs.stream(thread.thread_id, "steps", {
        input: { steps: ["SF"] },
        interruptBefore: ["second"],
        streamMode: "values",
        onRunCreated: ({ run_id }) => void (runId = run_id),
      });
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map(({ event, id }) => [event, id])).toEqual([
        ["metadata", "0"],
        ["values", "1"],
        ["values", "2"],
        ["values", "3"],
      ]);
      const rest = [];
      for await (const chunk of johndoe.runs.joinStream(thread.thread_id, runId, { lastEventId: "1" })) rest.push(chunk);
      expect(rest).toEqual(chunks.slice(2));
    });
  });
}
