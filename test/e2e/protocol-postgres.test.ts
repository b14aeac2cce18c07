// The protocol (v2) e2e cases under `gantry serve` on PostgreSQL and Redis, where a thread's
// protocol events live in Redis: the shared cases on one replica, then replicas that split the
// work, the client on an API replica, the run on a worker replica, and a dropped stream that
// reconnects to another API replica without losing or repeating an event.
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import type { OpenStore } from "./backends.js";
import { eventually, sdkClient } from "./http.js";
import { describeProtocolE2E, PROTOCOL_CONFIG } from "./protocol.cases.js";
import { collectRun, dropAfter, expectOrdered, lifecycleOf } from "./protocol-support.js";

/** A fresh schema and Redis key prefix; every replica started on them is a `gantry serve` process. */
async function serveStore(env: Record<string, string> = {}): Promise<{
  url: string;
  prefix: string;
  start(role: "all" | "api" | "worker"): Promise<RunningGantry>;
  dispose(): Promise<void>;
}> {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  await onTestDatabase(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    prefix,
    start: (role) =>
      startGantry({
        command: "serve",
        config: PROTOCOL_CONFIG,
        args: ["--role", role],
        env: { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, LANGGRAPH_POSTGRES_POOL_MAX_SIZE: "8", ...env },
      }),
    async dispose() {
      await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await deleteKeys(prefix);
    },
  };
}

const openServeStore: OpenStore = async () => {
  const store = await serveStore();
  return {
    backend: "postgres",
    start: () => store.start("all"),
    openStorage: () => {
      throw new Error("not used by the protocol cases");
    },
    dispose: () => store.dispose(),
  };
};

await describeWithPostgresAndRedis("protocol v2 under gantry serve (PostgreSQL + Redis)", () => {
  describeProtocolE2E("serve, PostgreSQL + Redis", openServeStore);

  describe("across replicas", () => {
    let store: Awaited<ReturnType<typeof serveStore>>;
    const replicas: RunningGantry[] = [];
    let onA: Client;
    let a2: RunningGantry;

    beforeAll(async () => {
      // Short leases, so a killed worker's run is taken over within seconds.
      store = await serveStore({ GANTRY_RUN_LEASE_MS: "1500", GANTRY_RUN_HEARTBEAT_MS: "300", GANTRY_RUN_SWEEP_MS: "500", GANTRY_QUEUE_POLL_MS: "200" });
      // Two API replicas and one worker: every run executes away from the replica the client talks to.
      // One at a time: three processes booting at once can pass the start deadline on a busy machine.
      for (const role of ["api", "api", "worker"] as const) replicas.push(await store.start(role));
      onA = sdkClient(replicas[0]!.url);
      a2 = replicas[1]!;
    });

    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.stop()));
      await store?.dispose();
    });

    it("streams a run executed on the worker replica, and a dropped stream reconnects to another replica", async () => {
      const dropping = dropAfter(5);
      // The first event stream goes to A and breaks; every later one goes to A2.
      const toA2: typeof fetch = (input, init) => {
        const target = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        const moved = dropping.dropped() && target.endsWith("/stream/events") ? target.replace(replicas[0]!.url, a2.url) : target;
        return dropping.fetch(moved, init);
      };
      const thread = onA.threads.stream({ assistantId: "ticker", fetch: toA2, reconnectDelayMs: () => 50 } as never);
      let runId = "";
      const events = await collectRun(thread, async () => {
        runId = (await thread.run.start({ input: { count: 30, ms: 30 } })).run_id!;
      });
      await thread.close();
      expect(dropping.dropped()).toBe(true);
      expectOrdered(events);
      const seqs = events.map((e) => e.seq!);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
      expect(events.filter((e) => e.method === "custom").map((e) => (e.params.data as { payload: { tick: number } }).payload.tick)).toEqual([
        ...Array(30).keys(),
      ]);
      expect(lifecycleOf(events)).toEqual(["running", "completed"]);
      // The classic API on the other replica sees the same run.
      const onA2 = sdkClient(a2.url);
      expect(await onA2.runs.join(thread.threadId, runId)).toMatchObject({ ticks: 30 });
      expect(replicas[2]!.output()).toContain(runId);
    });

    it("continues the thread's stream when the run's worker is killed and another worker takes the run over", async () => {
      const thread = onA.threads.stream({ assistantId: "ticker" });
      let runId = "";
      const events = await collectRun(
        thread,
        async () => {
          runId = (await thread.run.start({ input: { count: 40, ms: 100 } })).run_id!;
          await eventually("the run to be running", async () => ((await onA.runs.get(thread.threadId, runId)).status === "running" ? true : undefined));
          await new Promise((wait) => setTimeout(wait, 1_000));
          await replicas[2]!.kill("SIGKILL");
          replicas.push(await store.start("worker"));
        },
        { deadlineMs: 90_000 },
      );
      await thread.close();
      expectOrdered(events);
      // The first attempt never ended; the second starts again and completes, on the same stream.
      expect(lifecycleOf(events)).toEqual(["running", "running", "completed"]);
      const ticks = events.filter((e) => e.method === "custom").map((e) => (e.params.data as { payload: { tick: number } }).payload.tick);
      expect(ticks.slice(-40)).toEqual([...Array(40).keys()]);
      expect(await onA.runs.join(thread.threadId, runId)).toMatchObject({ ticks: 40 });
    }, 120_000);
  });
});
