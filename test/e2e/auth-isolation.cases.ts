// The isolation matrix of custom auth, written once and run on each storage backend: alice and bob
// (test/fixtures/auth/src/auth.ts: owner-stamped metadata, per-user store namespaces, and owner-
// filtered "shared" store items) each create one of everything; then, route by route, bob tries to
// read, list, count, search, stream, update, cancel and delete alice's things. Every route is its
// own case in the table, so a route that forgets the filter fails by name.
import { randomUUID } from "node:crypto";
import { Client, type Run } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { request, type RawResponse } from "./http.js";

export const AUTH_CONFIG = fixture("auth", "langgraph.json");

/** An SDK client sending the user's bearer token on every request (none: no credentials). */
export function clientFor(url: string, token: string | null): Client {
  return new Client({
    apiUrl: url,
    callerOptions: { maxRetries: 0 },
    ...(token ? { defaultHeaders: { Authorization: `Bearer ${token}` } } : {}),
  });
}

/** One of everything, created by one user. */
interface Holdings {
  assistantId: string;
  threadId: string;
  finishedRun: Run;
  /** A run on its own thread that waits a minute: pending or running while the cases run. */
  activeRun: Run;
  /** A stateless run that waits a minute. */
  statelessRun: Run;
  /** Queued behind activeRun and not due for an hour: pending throughout. */
  pendingRun: Run;
  cronId: string;
  /** Under the user's own namespace (the handler prefixes it with their identity). */
  privateKey: string;
  /** Under ["shared"], stamped with the owner and filtered on it. */
  sharedKey: string;
}

async function createHoldings(client: Client, tag: string): Promise<Holdings> {
  const assistant = await client.assistants.create({ graphId: "agent", name: `${tag}'s agent`, metadata: { tag } });
  const thread = await client.threads.create({ metadata: { tag } });
  const finishedRun = await client.runs.create(thread.thread_id, assistant.assistant_id, { input: {}, metadata: { tag } });
  await client.runs.join(thread.thread_id, finishedRun.run_id);
  const busyThread = await client.threads.create({ metadata: { tag } });
  const activeRun = await client.runs.create(busyThread.thread_id, assistant.assistant_id, { input: { ms: 60_000 } });
  const statelessRun = await client.runs.create(null, assistant.assistant_id, { input: { ms: 60_000 }, metadata: { tag } });
  const pendingRun = await client.runs.create(busyThread.thread_id, assistant.assistant_id, { input: {}, afterSeconds: 3600, multitaskStrategy: "enqueue" });
  const cron = await client.crons.createForThread(thread.thread_id, assistant.assistant_id, { schedule: "0 0 1 1 *", metadata: { tag } });
  const privateKey = `private-${randomUUID()}`;
  const sharedKey = `shared-${randomUUID()}`;
  await client.store.putItem(["docs"], privateKey, { tag });
  await client.store.putItem(["shared"], sharedKey, { tag });
  return {
    assistantId: assistant.assistant_id,
    threadId: thread.thread_id,
    finishedRun: { ...finishedRun, status: "success" },
    activeRun,
    statelessRun,
    pendingRun,
    cronId: cron.cron_id,
    privateKey,
    sharedKey,
  };
}

interface Ctx {
  url: string;
  bob: Client;
  alice: Client;
  a: Holdings;
  b: Holdings;
  /** Raw HTTP as bob, for routes the JS SDK has no method for. */
  bobRaw(method: string, path: string, body?: unknown): Promise<RawResponse>;
}

async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

/** Each case is something bob tries on alice's things; it must fail with the status given. */
const REFUSED: Array<[string, number, (ctx: Ctx) => Promise<unknown>]> = [
  ["get alice's assistant", 404, ({ bob, a }) => bob.assistants.get(a.assistantId)],
  ["update alice's assistant", 404, ({ bob, a }) => bob.assistants.update(a.assistantId, { name: "mine now" })],
  ["delete alice's assistant", 404, ({ bob, a }) => bob.assistants.delete(a.assistantId)],
  ["list alice's assistant's versions", 404, ({ bob, a }) => bob.assistants.getVersions(a.assistantId)],
  ["set the latest version of alice's assistant", 404, ({ bob, a }) => bob.assistants.setLatest(a.assistantId, 1)],
  ["draw alice's assistant's graph", 404, ({ bob, a }) => bob.assistants.getGraph(a.assistantId)],
  ["read alice's assistant's schemas", 404, ({ bob, a }) => bob.assistants.getSchemas(a.assistantId)],
  ["read alice's assistant's subgraphs", 404, ({ bob, a }) => bob.assistants.getSubgraphs(a.assistantId)],
  ["create an assistant under alice's assistant id", 409, ({ bob, a }) => bob.assistants.create({ graphId: "agent", assistantId: a.assistantId })],
  [
    "read alice's assistant through if_exists do_nothing",
    409,
    ({ bob, a }) => bob.assistants.create({ graphId: "agent", assistantId: a.assistantId, ifExists: "do_nothing" }),
  ],
  ["get alice's thread", 404, ({ bob, a }) => bob.threads.get(a.threadId)],
  ["update alice's thread", 404, ({ bob, a }) => bob.threads.update(a.threadId, { metadata: { taken: true } })],
  ["delete alice's thread", 404, ({ bob, a }) => bob.threads.delete(a.threadId)],
  ["copy alice's thread", 409, ({ bob, a }) => bob.threads.copy(a.threadId)],
  ["create a thread under alice's thread id", 409, ({ bob, a }) => bob.threads.create({ threadId: a.threadId })],
  ["read alice's thread through if_exists do_nothing", 409, ({ bob, a }) => bob.threads.create({ threadId: a.threadId, ifExists: "do_nothing" })],
  ["read alice's thread state", 404, ({ bob, a }) => bob.threads.getState(a.threadId)],
  [
    "read alice's thread state at a checkpoint",
    404,
    async ({ bob, alice, a }) => bob.threads.getState(a.threadId, (await alice.threads.getState(a.threadId)).checkpoint.checkpoint_id!),
  ],
  ["update alice's thread state", 404, ({ bob, a }) => bob.threads.updateState(a.threadId, { values: { user_id: "bob" } })],
  ["patch alice's thread state metadata", 404, ({ bob, a }) => bob.threads.patchState(a.threadId, { taken: true })],
  ["read alice's thread history", 404, ({ bob, a }) => bob.threads.getHistory(a.threadId)],
  ["follow alice's thread stream", 404, ({ bob, a }) => drain(bob.threads.joinStream(a.threadId))],
  ["start a run on alice's thread", 404, ({ bob, a, b }) => bob.runs.create(a.threadId, b.assistantId, { input: {} })],
  [
    "start a run on alice's thread with if_not_exists create",
    404,
    ({ bob, a, b }) => bob.runs.create(a.threadId, b.assistantId, { input: {}, ifNotExists: "create" }),
  ],
  ["wait for a run on alice's thread", 404, ({ bob, a, b }) => bob.runs.wait(a.threadId, b.assistantId, { input: {} })],
  ["stream a run on alice's thread", 404, ({ bob, a, b }) => drain(bob.runs.stream(a.threadId, b.assistantId, { input: {} }))],
  ["run alice's assistant", 404, ({ bob, a }) => bob.runs.wait(null, a.assistantId, { input: {} })],
  ["get alice's run", 404, ({ bob, a }) => bob.runs.get(a.threadId, a.finishedRun.run_id)],
  ["list alice's runs", 404, ({ bob, a }) => bob.runs.list(a.threadId)],
  ["join alice's run", 404, ({ bob, a }) => bob.runs.join(a.threadId, a.finishedRun.run_id)],
  ["cancel alice's run", 404, ({ bob, a }) => bob.runs.cancel(a.activeRun.thread_id, a.activeRun.run_id)],
  ["delete alice's run", 404, ({ bob, a }) => bob.runs.delete(a.threadId, a.finishedRun.run_id)],
  ["get alice's cron", 404, async ({ bobRaw, a }) => throwUnlessOk(await bobRaw("GET", `/runs/crons/${a.cronId}`))],
  ["update alice's cron", 404, ({ bob, a }) => bob.crons.update(a.cronId, { schedule: "* * * * *" })],
  ["delete alice's cron", 404, ({ bob, a }) => bob.crons.delete(a.cronId)],
  ["create a cron on alice's thread", 404, ({ bob, a, b }) => bob.crons.createForThread(a.threadId, b.assistantId, { schedule: "0 0 1 1 *" })],
  ["create a cron on alice's assistant", 404, ({ bob, a }) => bob.crons.create(a.assistantId, { schedule: "0 0 1 1 *" })],
  ["get alice's shared store item", 404, ({ bob, a }) => bob.store.getItem(["shared"], a.sharedKey)],
  ["overwrite alice's shared store item", 404, ({ bob, a }) => bob.store.putItem(["shared"], a.sharedKey, { tag: "bob" })],
  ["delete alice's shared store item", 404, ({ bob, a }) => bob.store.deleteItem(["shared"], a.sharedKey)],
];

function throwUnlessOk(response: RawResponse): RawResponse {
  if (response.status >= 400) throw new Error(`HTTP ${response.status}: ${response.text}`);
  return response;
}

/** Lists, counts and searches as bob: none may show alice's things. Each returns the ids it saw. */
const HIDDEN: Array<[string, (ctx: Ctx) => Promise<string[]>, (a: Holdings) => string[]]> = [
  ["search assistants", async ({ bob }) => (await bob.assistants.search({ limit: 1000 })).map((x) => x.assistant_id), (a) => [a.assistantId]],
  [
    "search assistants by alice's metadata",
    async ({ bob }) => (await bob.assistants.search({ metadata: { tag: "alice" } })).map((x) => x.assistant_id),
    (a) => [a.assistantId],
  ],
  ["search threads", async ({ bob }) => (await bob.threads.search({ limit: 1000 })).map((x) => x.thread_id), (a) => [a.threadId, a.activeRun.thread_id]],
  [
    "search threads by alice's ids",
    async ({ bob, a }) => (await bob.threads.search({ ids: [a.threadId, a.activeRun.thread_id, a.statelessRun.thread_id] })).map((x) => x.thread_id),
    (a) => [a.threadId, a.activeRun.thread_id, a.statelessRun.thread_id],
  ],
  [
    "search threads by alice's owner metadata",
    async ({ bob }) => (await bob.threads.search({ metadata: { owner: "alice" } })).map((x) => x.thread_id),
    (a) => [a.threadId],
  ],
  ["search crons", async ({ bob }) => (await bob.crons.search({ limit: 1000 })).map((x) => x.cron_id), (a) => [a.cronId]],
  ["search crons on alice's thread", async ({ bob, a }) => (await bob.crons.search({ threadId: a.threadId })).map((x) => x.cron_id), (a) => [a.cronId]],
  [
    "search crons by alice's assistant",
    async ({ bob, a }) => (await bob.crons.search({ assistantId: a.assistantId })).map((x) => x.cron_id),
    (a) => [a.cronId],
  ],
  ["search the store", async ({ bob }) => (await bob.store.searchItems([], { limit: 100 })).items.map((x) => x.key), (a) => [a.privateKey, a.sharedKey]],
  [
    "search the shared store namespace",
    async ({ bob }) => (await bob.store.searchItems(["shared"], { limit: 100 })).items.map((x) => x.key),
    (a) => [a.sharedKey],
  ],
  ["read alice's private store item by its key", async ({ bob, a }) => [(await bob.store.getItem(["docs"], a.privateKey))?.key ?? ""], (a) => [a.privateKey]],
  [
    "list store namespaces",
    async ({ bob }) => (await bob.store.listNamespaces({ limit: 100 })).namespaces.map((ns) => ns.join(".")),
    () => ["alice.docs", "shared"],
  ],
];

/** Bulk cancels as bob (answered 204 whatever they matched): alice's pending run must stay pending. */
const BULK_CANCELS: Array<[string, (a: Holdings) => unknown]> = [
  ["by id", (a) => ({ thread_id: a.pendingRun.thread_id, run_ids: [a.pendingRun.run_id] })],
  ["of every pending run", () => ({ status: "pending" })],
  ["of every run", () => ({ status: "all" })],
];

/** Counts as bob: each must equal what bob's own search sees. */
const COUNTED: Array<[string, (ctx: Ctx) => Promise<number>, (ctx: Ctx) => Promise<number>]> = [
  ["count assistants", ({ bob }) => bob.assistants.count(), async ({ bob }) => (await bob.assistants.search({ limit: 1000 })).length],
  ["count assistants with alice's metadata", ({ bob }) => bob.assistants.count({ metadata: { tag: "alice" } }), async () => 0],
  ["count threads", ({ bob }) => bob.threads.count(), async ({ bob }) => (await bob.threads.search({ limit: 1000 })).length],
  ["count threads with alice's owner metadata", ({ bob }) => bob.threads.count({ metadata: { owner: "alice" } }), async () => 0],
  ["count crons", ({ bob }) => bob.crons.count(), async ({ bob }) => (await bob.crons.search({ limit: 1000 })).length],
  ["count crons on alice's thread", ({ bob, a }) => bob.crons.count({ threadId: a.threadId }), async () => 0],
];

export function describeAuthIsolationE2E(label: string, open: OpenStore): void {
  describe(`custom auth isolates users (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    const ctx = {} as Ctx;

    beforeAll(async () => {
      store = await open();
      server = await store.start(AUTH_CONFIG, { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" });
      ctx.url = server.url;
      ctx.alice = clientFor(server.url, "token-alice");
      ctx.bob = clientFor(server.url, "token-bob");
      ctx.bobRaw = (method, path, body) =>
        request(server.url, method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: "Bearer token-bob" } });
      ctx.a = await createHoldings(ctx.alice, "alice");
      ctx.b = await createHoldings(ctx.bob, "bob");
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    describe("bob is refused on every route that names alice's things", () => {
      it.each(REFUSED)("bob cannot %s", async (_name, status, attempt) => {
        await expect(attempt(ctx)).rejects.toThrow(new RegExp(`HTTP ${status}`));
      });
    });

    // The reference's "stream run other user thread" and "run streaming auth": joining opens the
    // stream, and another user's run is one `error` event saying 404, with none of the run's events.
    describe("stream run other user thread", () => {
      it.each([
        ["alice's run", (a: Holdings) => [a.activeRun.thread_id, a.activeRun.run_id] as const],
        ["alice's stateless run", (a: Holdings) => [null, a.statelessRun.run_id] as const],
      ])("bob joining the stream of %s gets one error event saying 404", async (_name, target) => {
        const [threadId, runId] = target(ctx.a);
        const chunks = await drain(ctx.bob.runs.joinStream(threadId, runId));
        expect(chunks).toEqual([{ event: "error", data: { error: "NotFound", message: expect.stringMatching(/^404: Run .* not found/) } }]);
      });
    });

    describe("bob's lists, searches and bulk actions never reach alice's things", () => {
      it.each(HIDDEN)("bob's %s leaves alice's things out", async (_name, look, alices) => {
        const seen = await look(ctx);
        for (const id of alices(ctx.a)) expect(seen).not.toContain(id);
      });
      it.each(COUNTED)("bob's %s counts only bob's", async (_name, count, expected) => {
        expect(await count(ctx)).toBe(await expected(ctx));
      });
      it.each(BULK_CANCELS)("bob's bulk cancel %s leaves alice's runs alone", async (_name, body) => {
        expect((await ctx.bobRaw("POST", "/runs/cancel", body(ctx.a))).status).toBe(204);
        expect((await ctx.alice.runs.get(ctx.a.pendingRun.thread_id, ctx.a.pendingRun.run_id)).status).toBe("pending");
      });
    });

    describe("alice's things are untouched, and alice's own lists hold none of bob's", () => {
      it("still has every one of alice's things as she made them", async () => {
        const { alice, a } = ctx;
        expect((await alice.assistants.get(a.assistantId)).name).toBe("alice's agent");
        expect((await alice.threads.get(a.threadId)).metadata).toMatchObject({ owner: "alice", tag: "alice" });
        expect(await alice.runs.get(a.threadId, a.finishedRun.run_id)).toMatchObject({ status: "success" });
        expect(["pending", "running"]).toContain((await alice.runs.get(a.activeRun.thread_id, a.activeRun.run_id)).status);
        expect((await alice.runs.get(a.pendingRun.thread_id, a.pendingRun.run_id)).status).toBe("pending");
        const cron = throwUnlessOk(await request(ctx.url, "GET", `/runs/crons/${a.cronId}`, { headers: { authorization: "Bearer token-alice" } }));
        expect(cron.json).toMatchObject({ cron_id: a.cronId, schedule: "0 0 1 1 *", user_id: "alice" });
        expect((await alice.store.getItem(["docs"], a.privateKey))?.value).toEqual({ tag: "alice" });
        expect((await alice.store.getItem(["shared"], a.sharedKey))?.value).toEqual({ tag: "alice", owner: "alice" });
        expect((await alice.threads.getState(a.threadId)).values).toMatchObject({ user_id: "alice" });
      });

      it("lists none of bob's things in alice's searches", async () => {
        const { alice, b } = ctx;
        const assistants = (await alice.assistants.search({ limit: 1000 })).map((x) => x.assistant_id);
        const threads = (await alice.threads.search({ limit: 1000 })).map((x) => x.thread_id);
        const crons = (await alice.crons.search({ limit: 1000 })).map((x) => x.cron_id);
        const items = (await alice.store.searchItems([], { limit: 100 })).items.map((x) => x.key);
        const shared = (await alice.store.searchItems(["shared"], { limit: 100 })).items.map((x) => x.key);
        expect(assistants).toContain(ctx.a.assistantId);
        expect(assistants).not.toContain(b.assistantId);
        expect(threads).toContain(ctx.a.threadId);
        expect(threads).not.toContain(b.threadId);
        expect(crons).toEqual([ctx.a.cronId]);
        expect(items).toEqual([ctx.a.privateKey]);
        expect(shared).toEqual([ctx.a.sharedKey]);
        expect(await alice.threads.count()).toBe(threads.length);
      });

      it("lets alice cancel and delete her own things, and only hers", async () => {
        const { alice, bob, a } = ctx;
        const bobsThreadNamingHerAssistant = await bob.threads.create({ metadata: { assistant_id: a.assistantId } });
        await alice.runs.cancel(a.activeRun.thread_id, a.activeRun.run_id, true);
        await alice.runs.delete(a.threadId, a.finishedRun.run_id);
        await alice.crons.delete(a.cronId);
        await alice.store.deleteItem(["shared"], a.sharedKey);
        await alice.threads.delete(a.threadId);
        await expect(alice.threads.get(a.threadId)).rejects.toThrow(/HTTP 404/);
        const herThreadOnIt = await alice.threads.create({ metadata: { assistant_id: a.assistantId } });
        await alice.assistants.delete(a.assistantId, { deleteThreads: true });
        await expect(alice.threads.get(herThreadOnIt.thread_id)).rejects.toThrow(/HTTP 404/);
        expect((await bob.threads.get(bobsThreadNamingHerAssistant.thread_id)).thread_id).toBe(bobsThreadNamingHerAssistant.thread_id);
      });
    });
  });
}
