// The protocol (v2) WebSocket under `gantry serve`: PostgreSQL for storage, Redis for the protocol
// log. The e2e cases on one replica; then two replicas behind a load balancer: the socket on
// replica A (API only) follows a run that replica B executes, and when A dies mid-run the SDK
// reconnects to B and goes on from B's copy of the log, nothing lost or repeated.
import { describe, expect, it, afterEach } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { openPostgresStorage } from "../../src/storage/postgres/open-postgres.js";
import { eventually, sdkClient } from "./http.js";
import { PROTOCOL_CONFIG } from "./protocol.cases.js";
import { collectRun, expectOrdered, lifecycleOf } from "./protocol-support.js";
import { describeProtocolWebSocketE2E, webSocketThread } from "./protocol-ws.cases.js";
import { startSwitchingProxy } from "./protocol-ws-support.js";

/** A fresh schema and Redis prefix; servers on it run `gantry serve` with `--role role`. */
async function openServeStore(): Promise<GantryStore & { startRole(role: "all" | "api"): Promise<RunningGantry> }> {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  await onTestDatabase(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const startRole = (role: "all" | "api", config = PROTOCOL_CONFIG, env: Record<string, string> = {}) =>
    startGantry({
      command: "serve",
      config,
      args: ["--role", role],
      env: { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, LANGGRAPH_POSTGRES_POOL_MAX_SIZE: "4", ...env },
    });
  return {
    backend: "postgres",
    start: (config, env) => startRole("all", config, env),
    startRole: (role) => startRole(role),
    openStorage: () => openPostgresStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 }),
    async dispose() {
      await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await deleteKeys(prefix);
    },
  };
}

await describeWithPostgresAndRedis("protocol v2 over WebSocket on gantry serve (PostgreSQL + Redis)", () => {
  describeProtocolWebSocketE2E("serve", openServeStore as OpenStore);

  describe("two replicas behind a load balancer", () => {
    const cleanUp: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const step of cleanUp.splice(0).reverse()) await step();
    });

    it("follows a run executed on the other replica, and continues on it when the first dies mid-run", { timeout: 120_000 }, async () => {
      const store = await openServeStore();
      cleanUp.push(() => store.dispose());
      // A serves the API only, so every run is B's.
      const a = await store.startRole("api");
      cleanUp.push(() => a.stop());
      const b = await store.startRole("all");
      cleanUp.push(() => b.stop());
      const balancer = await startSwitchingProxy(a.url);
      cleanUp.push(() => balancer.close());

      const thread = webSocketThread(sdkClient(balancer.url), "ticker", { reconnectDelayMs: () => 100 });
      let runId = "";
      let failover: Promise<void> | undefined;
      let seenWhenADied = 0;
      const events = await collectRun(
        thread,
        async () => {
          runId = (await thread.run.start({ input: { count: 60, ms: 50 } })).run_id!;
          failover = (async () => {
            await eventually("ticks on the socket to A", async () => ((thread.ordering.lastSeenSeq ?? 0) >= 12 ? true : undefined), 30_000);
            balancer.switchTo(b.url);
            seenWhenADied = thread.ordering.lastSeenSeq ?? 0;
            await a.kill("SIGKILL");
          })();
        },
        { deadlineMs: 90_000 },
      );
      await failover;
      await thread.close();

      expectOrdered(events);
      const seqs = events.map((e) => e.seq!);
      // A died mid-run: the rest of the run reached the client through B.
      expect(seenWhenADied).toBeLessThan(seqs.at(-1)! - 10);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
      const ticks = events.filter((e) => e.method === "custom").map((e) => (e.params.data as { payload: { tick: number } }).payload.tick);
      expect(ticks).toEqual([...Array(60).keys()]);
      expect(lifecycleOf(events)).toEqual(["running", "completed"]);
      // B ran it: A has no worker, and A was gone before the run ended. The outcome is recorded just
      // after the terminal lifecycle event (which must precede the thread's next run's events).
      const status = async () => (await sdkClient(b.url).runs.get(thread.threadId, runId)).status;
      expect(await eventually("the run's outcome on B", async () => ((await status()) === "running" ? undefined : status()))).toBe("success");
      const finished = (replica: RunningGantry) =>
        replica
          .output()
          .split("\n")
          .some((line) => line.includes('"msg":"run finished"') && line.includes(runId));
      expect(finished(b)).toBe(true);
      expect(finished(a)).toBe(false);
    });
  });
});
