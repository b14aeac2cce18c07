// The platform's TTL settings in langgraph.json, through the official SDK against a real Gantry,
// written once and run on each storage backend: checkpointer.ttl (strategy, default_ttl,
// sweep_interval_minutes, sweep_limit) and store.ttl (default_ttl, refresh_on_read,
// sweep_interval_minutes). Sweeps run every 120 ms and TTLs last 300 ms, so every case waits on
// an outcome it polls for, never on a sleep.
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { eventually, request } from "./http.js";
import { threadIsGone } from "./runs-support.js";

/** keep_latest, default_ttl 0.005 minutes, a sweep every 0.002 minutes of at most 2 threads. */
export const KEEP_LATEST_CONFIG = fixture("graphs", "langgraph.ttl-keep-latest.json");
/** delete, as above; store items live 1 minute, reads do not refresh them unless asked. */
export const DELETE_CONFIG = fixture("graphs", "langgraph.ttl-delete.json");
export const SWEEP_LIMIT = 2;

interface EchoState {
  messages: string[];
  reply: string;
}

/** One run of the echo graph, creating the thread with the run (so the TTL never beats the run). */
const echo = (client: Client, threadId: string, message: string) =>
  client.runs.wait(threadId, "echo", { input: { messages: [message] }, ifNotExists: "create" }) as Promise<unknown> as Promise<EchoState>;

/** How many thread sweeps the server logged, and the most threads any one of them handled. */
export function threadSweeps(output: string): { passes: number; most: number } {
  const counts = output
    .split("\n")
    .filter((line) => line.includes('"swept expired threads"'))
    .map((line) => (JSON.parse(line) as { deleted: number }).deleted);
  return { passes: counts.length, most: Math.max(0, ...counts) };
}

/**
 * Follows the thread stream from its first event (Last-Event-ID "-"); resolves once attached, with
 * what it has read so far on demand and a stop.
 */
async function followThread(url: string, threadId: string): Promise<{ read: () => string; stop: () => Promise<void> }> {
  const controller = new AbortController();
  const response = await fetch(`${url}/threads/${threadId}/stream`, {
    headers: { accept: "text/event-stream", "last-event-id": "-" },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  let seen = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) seen += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  return {
    read: () => seen,
    async stop() {
      controller.abort();
      await reading;
    },
  };
}

export function describeTtlE2E(label: string, open: OpenStore): void {
  describe(`checkpointer.ttl strategy keep_latest (${label})`, () => {
    const gantry = useGantry(open, KEEP_LATEST_CONFIG);

    it("prunes an idle thread to its latest checkpoint and keeps it usable: state, a history of one, new runs", async () => {
      const { client } = gantry;
      const threadId = randomUUID();
      for (const message of ["one", "two", "three"]) await echo(client, threadId, message);

      // Three runs leave several checkpoints each; the sweep leaves the newest alone.
      const history = await eventually("the thread pruned to one checkpoint", async () => {
        const states = await client.threads.getHistory<EchoState>(threadId, { limit: 100 });
        return states.length === 1 ? states : undefined;
      });
      expect(history[0]!.values).toMatchObject({ messages: ["three"], reply: "three" });
      const thread = await request(gantry.server.url, "GET", `/threads/${threadId}?include=ttl`);
      expect(thread.json).toMatchObject({ thread_id: threadId, status: "idle", ttl: { strategy: "keep_latest", ttl_minutes: 0.005 } });
      const state = await client.threads.getState<EchoState>(threadId);
      expect(state.values).toMatchObject({ messages: ["three"], reply: "three" });
      expect(state.checkpoint.checkpoint_id).toBe(history[0]!.checkpoint.checkpoint_id);

      // A run on the pruned thread starts from the kept checkpoint, and is pruned in turn.
      expect(await echo(client, threadId, "four")).toMatchObject({ messages: ["four"], reply: "four" });
      await eventually("the new run's checkpoints pruned", async () => {
        const states = await client.threads.getHistory<EchoState>(threadId, { limit: 100 });
        return states.length === 1 && states[0]!.values.reply === "four" ? true : undefined;
      });
    });

    it("handles at most sweep_limit threads a pass, and gets to all of them", async () => {
      const { client } = gantry;
      const threadIds = Array.from({ length: 5 }, () => randomUUID());
      for (const threadId of threadIds) await echo(client, threadId, "hi");
      for (const threadId of threadIds) {
        await eventually(`thread ${threadId} pruned`, async () => ((await client.threads.getHistory(threadId, { limit: 10 })).length === 1 ? true : undefined));
      }
      const sweeps = threadSweeps(gantry.server.output());
      expect(sweeps.passes).toBeGreaterThan(0);
      expect(sweeps.most).toBeLessThanOrEqual(SWEEP_LIMIT);
      expect(gantry.server.output()).not.toContain("sweeping expired threads failed");
    });
  });

  describe(`checkpointer.ttl strategy delete, and store.ttl (${label})`, () => {
    const gantry = useGantry(open, DELETE_CONFIG);

    it("deletes an expired thread with its runs and event logs, as a thread delete does", async () => {
      const { client } = gantry;
      const url = gantry.server.url;
      // A ttl of its own (overriding default_ttl) gives time to follow the thread before its run.
      const { thread_id: threadId } = await client.threads.create({ ttl: 60 });
      const secret = `secret-${randomUUID()}`;
      const before = await followThread(url, threadId);
      await echo(client, threadId, secret);
      await eventually("the run's events in the thread stream", async () => (before.read().includes(secret) ? true : undefined));
      await before.stop();
      await client.threads.update(threadId, { ttl: 0.001 });
      await threadIsGone(client, threadId);
      await expect(client.threads.getState(threadId)).rejects.toThrow(/404/);

      // The id's next thread replays none of the swept thread's events from the start of its stream.
      await client.threads.create({ threadId, ttl: 60 });
      const after = await followThread(url, threadId);
      const marker = `marker-${randomUUID()}`;
      await echo(client, threadId, marker);
      await eventually("the new run's events in the thread stream", async () => (after.read().includes(marker) ? true : undefined));
      await after.stop();
      expect(after.read()).not.toContain(secret);
    });

    it("gives a thread a run creates default_ttl and the configured strategy, and sweeps it", async () => {
      const { client } = gantry;
      const threadId = randomUUID();
      await echo(client, threadId, "hi");
      await threadIsGone(client, threadId);
    });

    it("gives a store item default_ttl, and with refresh_on_read false restarts it only on reads that ask", async () => {
      const { client } = gantry;
      const ns = [`case-${randomUUID()}`];
      for (const key of ["plain", "got", "searched"]) await client.store.putItem(ns, key, { key });
      await client.store.putItem([...ns, "found"], "found", {});
      const refreshFrom = Date.now();
      // Reads that say nothing follow refresh_on_read (false); reads that ask, refresh.
      expect(await client.store.getItem(ns, "plain")).not.toBeNull();
      expect(await client.store.getItem(ns, "got", { refreshTtl: true })).not.toBeNull();
      expect((await client.store.searchItems(ns, { limit: 10 })).items).toHaveLength(4);
      expect((await client.store.searchItems([...ns, "found"], { refreshTtl: true })).items).toHaveLength(1);

      // Every put was stamped before refreshFrom, every asked-for refresh at or after it: one
      // default_ttl (1 minute) past it, only the refreshed items are live. The storage is read at
      // that instant instead of waiting for it.
      const storage = await gantry.store.openStorage();
      try {
        const at = new Date(refreshFrom + 60_000 - 1);
        const live = async (namespace: string[], key: string) => (await storage.store.get(namespace, key, { refreshTtl: false }, at)) !== null;
        expect(await live(ns, "plain")).toBe(false);
        expect(await live(ns, "searched")).toBe(false);
        expect(await live(ns, "got")).toBe(true);
        expect(await live([...ns, "found"], "found")).toBe(true);
        expect(await live(ns, "never-put")).toBe(false);
      } finally {
        await storage.close();
      }
    });

    it("sweeps expired store items on store.ttl.sweep_interval_minutes", async () => {
      const { client } = gantry;
      const ns = [`case-${randomUUID()}`];
      await client.store.putItem(ns, "brief", {}, { ttl: 0.001 });
      const storage = await gantry.store.openStorage();
      try {
        // Swept, not only hidden: read at an instant before it expired, it is gone all the same.
        await eventually("the store sweep to delete it", async () =>
          (await storage.store.get(ns, "brief", { refreshTtl: false }, new Date(0))) === null ? true : undefined,
        );
      } finally {
        await storage.close();
      }
      // The pass logs what it deleted once it ends, a moment after the row went.
      await eventually("the store sweep's log line", async () => (gantry.server.output().includes('"swept expired store items"') ? true : undefined));
    });
  });
}
