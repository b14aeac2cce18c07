// The /threads API through the official SDK (raw HTTP where the SDK has no method: include=ttl,
// Prefer: return=minimal, prune), written once and run on each storage backend. Every case tags
// its threads with its own metadata so cases sharing one server never see each other's threads.
import { randomUUID } from "node:crypto";
import type { Thread } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { FAST_SWEEP_CONFIG } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { eventually, request } from "./http.js";

interface ThreadTtl {
  strategy: string;
  ttl_minutes: number;
  expires_at: string;
}

const MINUTE_MS = 60_000;

export function describeThreadsE2E(label: string, open: OpenStore): void {
  describe(`threads through the SDK (${label})`, () => {
    const gantry = useGantry(open, FAST_SWEEP_CONFIG);

    it(`keeps its data in ${label}`, async () => {
      const info = await request(gantry.server.url, "GET", "/info");
      expect((info.json as { metadata?: { storage?: string } }).metadata?.storage).toBe(gantry.store.backend);
    });

    const tag = () => ({ case: randomUUID() });

    async function ttlOf(threadId: string, include = "ttl"): Promise<ThreadTtl | null | undefined> {
      const response = await request(gantry.server.url, "GET", `/threads/${threadId}?include=${encodeURIComponent(include)}`);
      expect(response.status).toBe(200);
      return (response.json as { ttl?: ThreadTtl | null }).ttl;
    }

    describe("create", () => {
      it("creates an idle thread with the given id and metadata, and no values yet", async () => {
        const threadId = randomUUID();
        const metadata = { ...tag(), owner: "ada" };
        const thread = await gantry.client.threads.create({ threadId, metadata });
        expect(thread).toMatchObject({ thread_id: threadId, metadata, status: "idle", values: null });
        expect(Date.parse(thread.created_at)).not.toBeNaN();
        expect(await gantry.client.threads.get(threadId)).toEqual(thread);
      });

      it("gives a thread created without an id a fresh UUID", async () => {
        const thread = await gantry.client.threads.create();
        expect(thread.thread_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      });

      it("stores the SDK's graphId as metadata.graph_id", async () => {
        const thread = await gantry.client.threads.create({ graphId: "echo", metadata: { kind: "chat" } });
        expect(thread.metadata).toEqual({ kind: "chat", graph_id: "echo" });
      });

      it("answers HTTP 409 to a second create with the same id when if_exists is raise", async () => {
        const threadId = randomUUID();
        await gantry.client.threads.create({ threadId, metadata: { n: 1 } });
        await expect(gantry.client.threads.create({ threadId })).rejects.toThrow(/HTTP 409/);
        await expect(gantry.client.threads.create({ threadId, ifExists: "raise" })).rejects.toThrow(/HTTP 409/);
      });

      it("lets exactly one of many concurrent creates with the same id through, refusing the rest with HTTP 409", async () => {
        const threadId = randomUUID();
        const results = await Promise.allSettled(Array.from({ length: 8 }, () => gantry.client.threads.create({ threadId })));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const result of results) {
          if (result.status === "rejected") expect(String(result.reason)).toMatch(/HTTP 409/);
        }
      });

      it("returns the existing thread unchanged when if_exists is do_nothing", async () => {
        const threadId = randomUUID();
        const first = await gantry.client.threads.create({ threadId, metadata: { n: 1 } });
        const again = await gantry.client.threads.create({ threadId, metadata: { n: 2 }, ifExists: "do_nothing" });
        expect(again).toEqual(first);
      });
    });

    describe("ttl", () => {
      it("stores a ttl given in minutes, shown by get with include=ttl", async () => {
        const thread = await gantry.client.threads.create({ ttl: 30 });
        const ttl = await ttlOf(thread.thread_id);
        expect(ttl).toMatchObject({ strategy: "delete", ttl_minutes: 30 });
        const lifetime = Date.parse(ttl!.expires_at) - Date.parse(thread.created_at);
        expect(lifetime).toBeGreaterThan(29 * MINUTE_MS);
        expect(lifetime).toBeLessThan(31 * MINUTE_MS);
      });

      it("stores a ttl given as an object, and reads include as a JSON array too", async () => {
        const thread = await gantry.client.threads.create({ ttl: { ttl: 90, strategy: "delete" } });
        expect(await ttlOf(thread.thread_id, '["ttl"]')).toMatchObject({ strategy: "delete", ttl_minutes: 90 });
      });

      it("reads include as repeated keys and as a comma list, as the Python SDK sends it", async () => {
        const thread = await gantry.client.threads.create({ ttl: 45 });
        const repeated = await request(gantry.server.url, "GET", `/threads/${thread.thread_id}?include=ttl&include=ttl`);
        expect((repeated.json as { ttl?: ThreadTtl }).ttl).toMatchObject({ ttl_minutes: 45 });
        expect(await ttlOf(thread.thread_id, "ttl,ttl")).toMatchObject({ ttl_minutes: 45 });
      });

      it("shows no ttl key without include, and a null ttl for a thread that has none", async () => {
        const thread = await gantry.client.threads.create();
        expect(await gantry.client.threads.get(thread.thread_id)).not.toHaveProperty("ttl");
        expect(await ttlOf(thread.thread_id)).toBeNull();
      });

      it("replaces the ttl on update", async () => {
        const thread = await gantry.client.threads.create({ ttl: 30 });
        await gantry.client.threads.update(thread.thread_id, { ttl: 120 });
        expect(await ttlOf(thread.thread_id)).toMatchObject({ strategy: "delete", ttl_minutes: 120 });
      });

      it("sweeps away a thread whose ttl ran out and leaves the others", async () => {
        const expiring = await gantry.client.threads.create({ ttl: 0.001 });
        const lasting = await gantry.client.threads.create({ ttl: 60 });
        await eventually("the expired thread to be swept", async () => {
          const response = await request(gantry.server.url, "GET", `/threads/${expiring.thread_id}`);
          return response.status === 404 ? true : undefined;
        });
        expect((await gantry.client.threads.get(lasting.thread_id)).thread_id).toBe(lasting.thread_id);
      });
    });

    describe("update and delete", () => {
      it("merges metadata on update and returns the updated thread", async () => {
        const thread = await gantry.client.threads.create({ metadata: { keep: "yes", change: 1 } });
        const updated = await gantry.client.threads.update(thread.thread_id, { metadata: { change: 2, added: true } });
        expect(updated.metadata).toEqual({ keep: "yes", change: 2, added: true });
        expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(thread.updated_at));
        expect(await gantry.client.threads.get(thread.thread_id)).toEqual(updated);
      });

      it("answers 204 with no body to Prefer: return=minimal, and still applies the update", async () => {
        const thread = await gantry.client.threads.create({ metadata: { n: 1 } });
        const response = await request(gantry.server.url, "PATCH", `/threads/${thread.thread_id}`, {
          body: { metadata: { n: 2 } },
          headers: { Prefer: "return=minimal" },
        });
        expect(response.status).toBe(204);
        expect(response.text).toBe("");
        expect((await gantry.client.threads.get(thread.thread_id)).metadata).toEqual({ n: 2 });
      });

      it("answers HTTP 404 to an update of a thread that does not exist", async () => {
        await expect(gantry.client.threads.update(randomUUID(), { metadata: { n: 1 } })).rejects.toThrow(/HTTP 404/);
      });

      it("deletes a thread, after which get and delete answer HTTP 404", async () => {
        const thread = await gantry.client.threads.create();
        await gantry.client.threads.delete(thread.thread_id);
        await expect(gantry.client.threads.get(thread.thread_id)).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.threads.delete(thread.thread_id)).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("search and count", () => {
      it("finds threads by id", async () => {
        const metadata = tag();
        const [a, b] = [await gantry.client.threads.create({ metadata }), await gantry.client.threads.create({ metadata })];
        await gantry.client.threads.create({ metadata });
        const found = await gantry.client.threads.search({ ids: [a.thread_id, b.thread_id, randomUUID()] });
        expect(found.map((t) => t.thread_id).sort()).toEqual([a.thread_id, b.thread_id].sort());
      });

      it("matches metadata by containment: strings, numbers, booleans, nested objects, array elements and dotted keys", async () => {
        const { case: id } = tag();
        const target = await gantry.client.threads.create({
          metadata: { case: id, user: "ada", priority: 2, urgent: true, owner: { team: "core", seat: 7 }, tags: ["red", "blue"], "a.b": "dotted" },
        });
        await gantry.client.threads.create({
          metadata: { case: id, user: "bob", priority: 3, urgent: false, owner: { team: "edge", seat: 7 }, tags: ["green"] },
        });
        const only = async (metadata: Record<string, unknown>) =>
          (await gantry.client.threads.search({ metadata: { case: id, ...metadata } })).map((t) => t.thread_id);

        expect(await only({ user: "ada" })).toEqual([target.thread_id]);
        expect(await only({ priority: 2 })).toEqual([target.thread_id]);
        expect(await only({ urgent: true })).toEqual([target.thread_id]);
        expect(await only({ owner: { team: "core" } })).toEqual([target.thread_id]);
        expect(await only({ tags: ["blue"] })).toEqual([target.thread_id]);
        expect(await only({ "a.b": "dotted" })).toEqual([target.thread_id]);
        expect(await only({ a: { b: "dotted" } })).toEqual([]);
        expect(await only({ priority: "2" })).toEqual([]);
        expect(await only({ tags: ["blue", "green"] })).toEqual([]);
        expect((await only({ owner: { seat: 7 } })).length).toBe(2);
      });

      it("filters by status", async () => {
        const metadata = tag();
        const thread = await gantry.client.threads.create({ metadata });
        expect((await gantry.client.threads.search({ metadata, status: "idle" })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
        expect(await gantry.client.threads.search({ metadata, status: "busy" })).toEqual([]);
      });

      it("matches no thread with a values filter while threads have no state", async () => {
        const metadata = tag();
        await gantry.client.threads.create({ metadata });
        expect(await gantry.client.threads.search({ metadata, values: { reply: "hi" } })).toEqual([]);
        expect(await gantry.client.threads.count({ metadata, values: { reply: "hi" } })).toBe(0);
      });

      async function threeThreads() {
        const metadata = tag();
        const made: Thread[] = [];
        for (let i = 0; i < 3; i++) made.push(await gantry.client.threads.create({ metadata: { ...metadata, i } }));
        await gantry.client.threads.update(made[0]!.thread_id, { metadata: { touched: true } });
        return { metadata, made };
      }

      it("sorts by thread_id in both orders", async () => {
        const { metadata, made } = await threeThreads();
        const expected = made.map((t) => t.thread_id).sort();
        const asc = await gantry.client.threads.search({ metadata, sortBy: "thread_id", sortOrder: "asc" });
        expect(asc.map((t) => t.thread_id)).toEqual(expected);
        const desc = await gantry.client.threads.search({ metadata, sortBy: "thread_id", sortOrder: "desc" });
        expect(desc.map((t) => t.thread_id)).toEqual([...expected].reverse());
      });

      it.each(["created_at", "updated_at", "state_updated_at"] as const)("sorts by %s in both orders", async (field) => {
        const { metadata } = await threeThreads();
        const times = (list: Thread[]) => list.map((t) => Date.parse(t[field]));
        const asc = await gantry.client.threads.search({ metadata, sortBy: field, sortOrder: "asc" });
        expect(asc).toHaveLength(3);
        expect(times(asc)).toEqual([...times(asc)].sort((x, y) => x - y));
        const desc = await gantry.client.threads.search({ metadata, sortBy: field, sortOrder: "desc" });
        expect(times(desc)).toEqual([...times(desc)].sort((x, y) => y - x));
      });

      it("accepts status as a sort field", async () => {
        const { metadata } = await threeThreads();
        expect(await gantry.client.threads.search({ metadata, sortBy: "status", sortOrder: "asc" })).toHaveLength(3);
      });

      it("returns only the selected fields", async () => {
        const { metadata } = await threeThreads();
        const selected = await gantry.client.threads.search({ metadata, select: ["thread_id", "status"] });
        expect(selected).toHaveLength(3);
        for (const thread of selected) expect(Object.keys(thread).sort()).toEqual(["status", "thread_id"]);
      });

      it("pages with limit and offset", async () => {
        const { metadata, made } = await threeThreads();
        const ids = made.map((t) => t.thread_id).sort();
        const first = await gantry.client.threads.search({ metadata, limit: 2, sortBy: "thread_id", sortOrder: "asc" });
        const last = await gantry.client.threads.search({ metadata, limit: 2, offset: 2, sortBy: "thread_id", sortOrder: "asc" });
        expect([...first, ...last].map((t) => t.thread_id)).toEqual(ids);
      });

      it("sets X-Pagination-Total always and X-Pagination-Next only while rows remain", async () => {
        const { metadata } = await threeThreads();
        const first = await request(gantry.server.url, "POST", "/threads/search", { body: { metadata, limit: 2 } });
        expect(first.status).toBe(200);
        expect(first.headers.get("x-pagination-total")).toBe("3");
        expect(first.headers.get("x-pagination-next")).toBe("2");
        const last = await request(gantry.server.url, "POST", "/threads/search", { body: { metadata, limit: 2, offset: 2 } });
        expect(last.headers.get("x-pagination-total")).toBe("3");
        expect(last.headers.has("x-pagination-next")).toBe(false);
      });

      it("counts threads by metadata and status", async () => {
        const { metadata } = await threeThreads();
        expect(await gantry.client.threads.count({ metadata })).toBe(3);
        expect(await gantry.client.threads.count({ metadata: { ...metadata, i: 1 } })).toBe(1);
        expect(await gantry.client.threads.count({ metadata, status: "idle" })).toBe(3);
        expect(await gantry.client.threads.count({ metadata, status: "error" })).toBe(0);
      });
    });

    describe("copy and prune", () => {
      it("copies a thread under a new id with the same metadata", async () => {
        const source = await gantry.client.threads.create({ metadata: { ...tag(), topic: "copying" } });
        const copy = await gantry.client.threads.copy(source.thread_id);
        expect(copy.thread_id).not.toBe(source.thread_id);
        expect(copy).toMatchObject({ metadata: source.metadata, status: "idle", values: null });
        expect((await gantry.client.threads.get(copy.thread_id)).metadata).toEqual(source.metadata);
        expect((await gantry.client.threads.get(source.thread_id)).thread_id).toBe(source.thread_id);
      });

      it("answers HTTP 409 to a copy of a thread that does not exist", async () => {
        await expect(gantry.client.threads.copy(randomUUID())).rejects.toThrow(/HTTP 409/);
      });

      it("prunes with the delete strategy by deleting the threads, counting only those that existed", async () => {
        const metadata = tag();
        const [a, b] = [await gantry.client.threads.create({ metadata }), await gantry.client.threads.create({ metadata })];
        const kept = await gantry.client.threads.create({ metadata });
        const response = await request(gantry.server.url, "POST", "/threads/prune", {
          body: { thread_ids: [a.thread_id, b.thread_id, randomUUID()], strategy: "delete" },
        });
        expect(response.status).toBe(200);
        expect(response.json).toEqual({ pruned_count: 2 });
        expect((await gantry.client.threads.search({ metadata })).map((t) => t.thread_id)).toEqual([kept.thread_id]);
      });

      it("prunes with keep_latest without deleting the threads", async () => {
        const metadata = tag();
        const thread = await gantry.client.threads.create({ metadata });
        const response = await request(gantry.server.url, "POST", "/threads/prune", {
          body: { thread_ids: [thread.thread_id], strategy: "keep_latest" },
        });
        expect(response.json).toEqual({ pruned_count: 1 });
        expect((await gantry.client.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
      });
    });
  });
}
