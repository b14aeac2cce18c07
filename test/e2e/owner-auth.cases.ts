// A project from the platform's "make conversations private" tutorial (test/fixtures/owner-auth:
// one `.on("*")` handler stamps `metadata.owner` and filters on it), driven through the official
// SDK on each storage backend. The graph's system assistant serves every user, as on the
// platform, while an assistant a user made stays theirs; and the checkpoints a run writes carry
// the run, so a thread's history can be filtered on a run's metadata.
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemAssistantId } from "../../src/ids.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { clientFor } from "./auth-isolation.cases.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { request } from "./http.js";

const OWNER_AUTH_CONFIG = fixture("owner-auth", "langgraph.json");
const AGENT_ID = systemAssistantId("agent");

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });

function lastReply(values: unknown): unknown {
  const messages = (values as { messages?: Array<{ content?: unknown }> }).messages ?? [];
  return messages.at(-1)?.content;
}

export function describeOwnerAuthE2E(label: string, open: OpenStore): void {
  describe(`a project with private conversations (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    let alice: Client;
    let bob: Client;

    beforeAll(async () => {
      store = await open();
      server = await store.start(OWNER_AUTH_CONFIG);
      alice = clientFor(server.url, "user1-token");
      bob = clientFor(server.url, "user2-token");
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    describe("the graph's system assistant", () => {
      it("runs for every user on their own threads, by graph id or by its id", async () => {
        const aliceThread = await alice.threads.create();
        const run = await alice.runs.create(aliceThread.thread_id, "agent", { input: say("hi") });
        expect(run.assistant_id).toBe(AGENT_ID);
        await alice.runs.join(aliceThread.thread_id, run.run_id);
        expect(lastReply((await alice.threads.getState(aliceThread.thread_id)).values)).toBe("You said: hi");

        const bobThread = await bob.threads.create();
        expect(lastReply(await bob.runs.wait(bobThread.thread_id, AGENT_ID, { input: say("hello") }))).toBe("You said: hello");
        const streamed: string[] = [];
        for await (const part of bob.runs.stream(bobThread.thread_id, "agent", { input: say("again") })) streamed.push(part.event);
        expect(streamed).toEqual(["metadata", "values", "values"]);
        expect(lastReply(await bob.runs.wait(null, "agent", { input: say("no thread") }))).toBe("You said: no thread");
      });

      it("takes crons, each kept to the user who made it", async () => {
        const thread = await alice.threads.create();
        const cron = await alice.crons.createForThread(thread.thread_id, "agent", { schedule: "0 0 1 1 *", input: say("yearly") });
        expect(cron.assistant_id).toBe(AGENT_ID);
        expect((await bob.crons.search()).map((c) => c.cron_id)).not.toContain(cron.cron_id);
      });

      it("still keeps each user's threads to themselves", async () => {
        const aliceThread = await alice.threads.create();
        await expect(bob.runs.create(aliceThread.thread_id, "agent", { input: say("mine?") })).rejects.toThrow(/HTTP 404/);
        await expect(bob.runs.wait(aliceThread.thread_id, "agent", { input: say("mine?"), ifNotExists: "create" })).rejects.toThrow(/HTTP 404/);
      });

      it("is filtered like any assistant when read or searched, as on the platform: it is nobody's", async () => {
        await expect(alice.assistants.get("agent")).rejects.toThrow(/HTTP 404/);
        expect((await alice.assistants.search({ limit: 1000 })).map((a) => a.assistant_id)).not.toContain(AGENT_ID);
      });
    });

    describe("an assistant a user made", () => {
      it("runs for its owner and is invisible and unusable to anyone else", async () => {
        const mine = await alice.assistants.create({ graphId: "agent", name: "Alice's bot" });
        expect(mine.metadata).toMatchObject({ owner: "user1" });
        const aliceThread = await alice.threads.create();
        expect(lastReply(await alice.runs.wait(aliceThread.thread_id, mine.assistant_id, { input: say("yo") }))).toBe("You said: yo");

        const bobThread = await bob.threads.create();
        await expect(bob.runs.create(bobThread.thread_id, mine.assistant_id, { input: say("borrow") })).rejects.toThrow(/HTTP 404/);
        await expect(bob.runs.wait(null, mine.assistant_id, { input: say("borrow") })).rejects.toThrow(/HTTP 404/);
        await expect(bob.crons.create(mine.assistant_id, { schedule: "0 0 1 1 *" })).rejects.toThrow(/HTTP 404/);
        await expect(bob.assistants.get(mine.assistant_id)).rejects.toThrow(/HTTP 404/);
        expect((await bob.assistants.search({ limit: 1000 })).map((a) => a.assistant_id)).not.toContain(mine.assistant_id);
        expect((await alice.assistants.search({ limit: 1000 })).map((a) => a.assistant_id)).toContain(mine.assistant_id);
      });
    });

    it("answers /info without credentials, and nothing else but the open routes", async () => {
      const info = await request(server.url, "GET", "/info");
      expect(info.status).toBe(200);
      expect(info.json).toMatchObject({ version: expect.any(String), flags: expect.any(Object) });
      expect((await request(server.url, "GET", "/ok")).status).toBe(200);
      expect((await request(server.url, "POST", "/threads/search", { body: {} })).status).toBe(401);
    });

    describe("checkpoints carry the run that wrote them", () => {
      it("finds a run's checkpoints in the thread's history by the run's metadata", async () => {
        const thread = await alice.threads.create();
        const first = await alice.runs.create(thread.thread_id, "agent", { input: say("one"), metadata: { session: "s-1", turn: 1 } });
        await alice.runs.join(thread.thread_id, first.run_id);
        const second = await alice.runs.create(thread.thread_id, "agent", { input: say("two"), metadata: { session: "s-2", turn: 2 } });
        await alice.runs.join(thread.thread_id, second.run_id);

        const firstRuns = await alice.threads.getHistory(thread.thread_id, { metadata: { session: "s-1" } });
        expect(firstRuns.length).toBeGreaterThan(0);
        for (const state of firstRuns) {
          expect(state.metadata).toMatchObject({
            session: "s-1",
            turn: 1,
            run_id: first.run_id,
            thread_id: thread.thread_id,
            graph_id: "agent",
            assistant_id: AGENT_ID,
            user_id: "user1",
            owner: "user1",
            created_by: "system",
            run_attempt: 1,
          });
        }
        const all = await alice.threads.getHistory(thread.thread_id, { limit: 100 });
        expect(all.filter((s) => s.metadata?.run_id === first.run_id)).toHaveLength(firstRuns.length);

        const secondRuns = await alice.threads.getHistory(thread.thread_id, { metadata: { run_id: second.run_id } });
        expect(secondRuns.length).toBeGreaterThan(0);
        expect(secondRuns.every((s) => s.metadata?.session === "s-2")).toBe(true);
        expect(await alice.threads.getHistory(thread.thread_id, { metadata: { session: "s-3" } })).toEqual([]);
      });

      it("records the user's id, but not the user object or their permissions", async () => {
        const thread = await bob.threads.create();
        const run = await bob.runs.create(thread.thread_id, "agent", { input: say("who"), metadata: { session: "b-1" } });
        await bob.runs.join(thread.thread_id, run.run_id);
        const [latest] = await bob.threads.getHistory(thread.thread_id, { metadata: { session: "b-1" }, limit: 1 });
        expect(latest?.metadata).toMatchObject({ user_id: "user2", langgraph_auth_user_id: "user2" });
        expect(latest?.metadata).not.toHaveProperty("langgraph_auth_user");
        expect(latest?.metadata).not.toHaveProperty("langgraph_auth_permissions");
      });

      it("names the copy in a copied thread's checkpoints", async () => {
        const thread = await alice.threads.create();
        const run = await alice.runs.create(thread.thread_id, "agent", { input: say("copy me"), metadata: { session: "c-1" } });
        await alice.runs.join(thread.thread_id, run.run_id);
        const copy = await alice.threads.copy(thread.thread_id);
        const copied = await alice.threads.getHistory(copy.thread_id, { metadata: { session: "c-1" } });
        expect(copied.length).toBeGreaterThan(0);
        expect(copied.every((s) => s.metadata?.thread_id === copy.thread_id && s.metadata?.run_id === run.run_id)).toBe(true);
      });
    });
  });
}
