// A replica outlives a PostgreSQL restart: while the database is down readiness and the API answer 503
// naming it, the process stays up, and once PostgreSQL is back the replica reconnects by itself. A
// run in flight when the database went away and one queued just before are not lost, and the
// worker, the cron scheduler and the sweeper carry on. The test runs a PostgreSQL cluster of its
// own (the shared one on 5432 serves other test files meanwhile) and the shared Redis.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { detailOf, eventually, request, sdkClient } from "../e2e/http.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgresBinaries, startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import { deleteKeys, describeWithRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { SERVE_CONFIG } from "./serve-cluster.js";

/** The JSON log lines the replica wrote with this message. */
function logLines(replica: RunningGantry, msg: string): Array<Record<string, unknown>> {
  return replica
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === msg);
}

await describeWithRedis("gantry serve through a PostgreSQL restart", () => {
  describeWithPostgresBinaries("with a private PostgreSQL cluster", () => {
    let postgres: PrivatePostgres | undefined;
    let replica: RunningGantry | undefined;
    let clockDir: string;
    const prefix = freshKeyPrefix();
    const clockFile = () => join(clockDir, "clock");
    const setClock = (at: string) => writeFile(clockFile(), at + "\n");

    beforeAll(async () => {
      clockDir = await mkdtemp(join(tmpdir(), "gantry-pg-outage-clock-"));
      await setClock("2030-01-01T00:00:00.000Z");
      postgres = await startPrivatePostgres();
      replica = await startGantry({
        command: "serve",
        config: SERVE_CONFIG,
        env: {
          DATABASE_URL: postgres.url,
          REDIS_URL: TEST_REDIS_URL,
          REDIS_KEY_PREFIX: prefix,
          GANTRY_CRON_CLOCK_FILE: clockFile(),
          // Short leases and sweeps: a run whose lease lapsed during the outage is requeued soon after.
          GANTRY_RUN_LEASE_MS: "4000",
          GANTRY_RUN_HEARTBEAT_MS: "1000",
          GANTRY_RUN_SWEEP_MS: "1000",
          GANTRY_QUEUE_POLL_MS: "500",
          BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0",
        },
      });
    }, 120_000);

    afterAll(async () => {
      await replica?.stop().catch(() => {});
      await postgres?.dispose();
      await deleteKeys(prefix).catch(() => {});
      if (clockDir) await rm(clockDir, { recursive: true, force: true });
    });

    it("answers 503 naming PostgreSQL while it is down, keeps its runs, and works again once it is back", async () => {
      const server = replica!;
      const client = sdkClient(server.url);
      expect(await client.runs.wait(null, "slow", { input: { ms: 1, label: "before" } })).toMatchObject({ log: ["before"] });
      const cronThread = await client.threads.create();
      await client.crons.createForThread(cronThread.thread_id, "tick", { schedule: "* * * * *", input: { label: "through-outage" } });

      // One run sleeping when the database goes, one queued to start a moment later.
      const inFlightThread = await client.threads.create();
      const inFlight = await client.runs.create(inFlightThread.thread_id, "slow", { input: { ms: 3_000, label: "in flight" } });
      await eventually("the run to start", async () =>
        (await client.runs.get(inFlightThread.thread_id, inFlight.run_id)).status === "running" ? true : undefined,
      );
      // A client waiting on the run through the outage gets its result once the run completes.
      const joinedThroughOutage = client.runs.join(inFlightThread.thread_id, inFlight.run_id);
      const queuedThread = await client.threads.create();
      const queued = await client.runs.create(queuedThread.thread_id, "slow", { input: { ms: 1, label: "queued" }, afterSeconds: 2 });

      await postgres!.stop();
      const down = await eventually("readiness (/ok?check_db=1) to report PostgreSQL down", async () => {
        const response = await request(server.url, "GET", "/ok?check_db=1");
        return response.status === 503 ? response : undefined;
      });
      expect(down.json).toMatchObject({ ok: false, detail: expect.stringContaining("PostgreSQL"), services: { database: "unreachable", redis: "ok" } });

      const created = await request(server.url, "POST", "/threads", { body: {} });
      expect(created.status).toBe(503);
      expect(detailOf(created)).toContain("PostgreSQL");
      const waited = await request(server.url, "POST", "/runs/wait", { body: { assistant_id: "slow", input: { ms: 1, label: "during" } } });
      expect(waited.status).toBe(503);
      expect(detailOf(waited)).toContain("PostgreSQL");
      const state = await request(server.url, "GET", `/threads/${inFlightThread.thread_id}/state`);
      expect(state.status).toBe(503);
      expect(detailOf(state)).toContain("PostgreSQL");
      // The SDK reports a 503 it gave up retrying as a connection error quoting the answer.
      await expect(client.threads.get(inFlightThread.thread_id)).rejects.toThrow(/HTTP 503: .*PostgreSQL cannot be reached/);
      await expect(client.runs.wait(null, "slow", { input: { ms: 1, label: "during" } })).rejects.toThrow(/HTTP 503: .*PostgreSQL cannot be reached/);
      await eventually("the replica to log the lost database", async () => (logLines(server, "PostgreSQL connection lost").length > 0 ? true : undefined));
      // The in-flight run's sleep ends while the database is away: its checkpoint cannot be written.
      await eventually("the in-flight run to stop on the outage", async () =>
        logLines(server, "run stopped: the database is unreachable").some((l) => l.run_id === inFlight.run_id) ? true : undefined,
      );

      await postgres!.start();
      await eventually(
        "readiness to report healthy again",
        async () => ((await request(server.url, "GET", "/ok?check_db=1")).status === 200 ? true : undefined),
        20_000,
      );
      expect(logLines(server, "PostgreSQL connection restored").length).toBeGreaterThan(0);

      expect(await joinedThroughOutage).toMatchObject({ log: ["in flight"] });
      expect(await client.runs.join(inFlightThread.thread_id, inFlight.run_id)).toMatchObject({ log: ["in flight"] });
      expect(await client.runs.get(inFlightThread.thread_id, inFlight.run_id)).toMatchObject({ status: "success" });
      // It stopped while the database was still away, so the sweeper, still running, requeued it.
      expect(logLines(server, "run stopped: the database is unreachable").find((l) => l.run_id === inFlight.run_id)).toMatchObject({
        requeued: "when its lease lapses",
      });
      expect(logLines(server, "recovered runs whose worker stopped")).toContainEqual(expect.objectContaining({ requeued: 1 }));
      expect(await client.runs.join(queuedThread.thread_id, queued.run_id)).toMatchObject({ log: ["queued"] });
      expect(await client.runs.get(queuedThread.thread_id, queued.run_id)).toMatchObject({ status: "success" });

      const thread = await client.threads.create();
      const background = await client.runs.create(thread.thread_id, "slow", { input: { ms: 1, label: "background" } });
      expect(await client.runs.join(thread.thread_id, background.run_id)).toMatchObject({ log: ["background"] });
      expect(await client.runs.wait(thread.thread_id, "slow", { input: { ms: 1, label: "wait" } })).toMatchObject({ log: ["background", "wait"] });
      let streamed: unknown;
      for await (const part of client.runs.stream(thread.thread_id, "slow", { input: { ms: 1, label: "stream" }, streamMode: "values" })) {
        if (part.event === "values") streamed = part.data;
      }
      expect(streamed).toMatchObject({ log: ["background", "wait", "stream"] });

      await setClock("2030-01-01T00:01:00.000Z");
      const cronRuns = await eventually("the cron to fire after the outage", async () => {
        const runs = await client.runs.list(cronThread.thread_id);
        return runs.length > 0 && runs.every((r) => r.status === "success") ? runs : undefined;
      });
      expect(cronRuns).toHaveLength(1);

      expect(await client.threads.search({ status: "busy" })).toEqual([]);
      expect(await client.threads.get(inFlightThread.thread_id)).toMatchObject({ status: "idle" });
    }, 120_000);
  });
});
