// What one run costs the backends on `gantry serve`, read from /metrics (gantry_postgres_statements_total,
// gantry_redis_commands_total) around sequential runs of the five-step graph, and around 32 clients'
// runs at once (most waiting in the queue; of the one-node graph too, whose enqueues and finishes
// then share statements): the counters move, and stay under bounds set a little
// above today's figures, so a change that adds round trips to every run shows up here; a stateless
// run's statements are counted exactly. bench:modes prints the same counts for the benchmark's
// one-node graph.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { request, sdkClient } from "../e2e/http.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgresAndRedis } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";

const RUNS = 10;
// Measured: 2 / 11.4 stateless, 23 / 11.4 on a thread (statements / commands per run); before
// #22's changes 81.3 / 53.2 and 81.4 / 55 (PostgreSQL: 3 and 24.6 before the assistant came from
// the process's cache, 16 before a stateless run's checkpoints were held back, 21 and 26.7 before a
// stateless run's finish took its checkpoints along and its first read was skipped; Redis: 12.6 and
// 13 before a replay's attach read its first page, 14 and 14.1 before a run's end took its thread
// log's closing events along, 16.6 before a run's readers on its own process took its batches from
// memory, 53.2 and 52.6 before the event log's batched appends, its follower check inside the
// append and its one-script reads).
/** A stateless run's statements with its assistant cached: the enqueue, which checks the assistant, and the finish. */
const STATELESS_STATEMENTS = 2;
const STATELESS_BOUNDS = { redis: 13 };
const THREADED_BOUNDS = { postgres: 26, redis: 13 };
// Runs that wait in the queue, their readers attached before they start: 12.7 to 13.1 commands per
// run, none of them a subscription (the count moves with how appends batch); 13.8 when each such
// reader subscribed to its log's channel and then heard its run's batches from Redis.
const CONCURRENT_BOUNDS = { redis: 14.5 };
// One-node runs of 32 clients at once, whose held checkpoints are all dropped with their threads:
// 1.42 to 1.61 statements per run (part of a grouped enqueue, about 0.4 of a grouped finish, 0.2
// of a batched claim and the queue's wake-up reads); 1.69 to 1.80 when every unclaimed enqueue was
// a statement of its own, and 2.27 to 2.34 when every finish was too.
// The five-step runs have no such bound: under load they outlive the checkpoint hold (HOLD_MS),
// and how many checkpoint writes then land varies, 2.5 to 3.8 statements per run in all.
// The bound leaves room for a loaded machine: it still fails when finishes stop sharing statements.
const CONCURRENT_ONE_NODE_STATEMENTS = 1.8;
const CLIENTS = 32;
const RUNS_PER_CLIENT = 2;
/**
 * The loops that poll the database on a timer (queue, webhook outbox, sweeper) wait a minute here,
 * so that their statements do not blur the count; the cron scheduler's tick (every second) still
 * may add a few tenths of a statement per run.
 */
const QUIET_LOOPS = { GANTRY_QUEUE_POLL_MS: "60000", GANTRY_WEBHOOK_POLL_MS: "60000", GANTRY_RUN_SWEEP_MS: "60000" };

interface Counts {
  postgres_statements: number;
  redis_commands: number;
}

async function counts(server: RunningGantry): Promise<Counts> {
  return JSON.parse((await request(server.url, "GET", "/metrics?format=json")).text) as Counts;
}

await describeWithPostgresAndRedis("gantry serve: backend round trips per run", () => {
  let cluster: ServeCluster;
  let server: RunningGantry;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-round-trips-"));
    cluster = await openServeCluster(QUIET_LOOPS);
    server = await cluster.start("all");
  });

  afterAll(async () => {
    await cluster?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  async function perRun(threadId: string | null, durability?: "sync"): Promise<Counts> {
    const client = sdkClient(server.url);
    const input = { record_file: join(dir, "steps"), pause_ms: 0 };
    const options = { input, ...(durability ? { durability } : {}) };
    const wait = () => (threadId === null ? client.runs.wait(null, "steps", options) : client.runs.wait(threadId, "steps", options));
    await wait();
    const before = await counts(server);
    for (let i = 0; i < RUNS; i++) {
      const out = (await wait()) as { done?: string[] };
      expect(out.done?.slice(-5)).toEqual(["step1", "step2", "step3", "step4", "step5"]);
    }
    const after = await counts(server);
    return {
      postgres_statements: (after.postgres_statements - before.postgres_statements) / RUNS,
      redis_commands: (after.redis_commands - before.redis_commands) / RUNS,
    };
  }

  it("a stateless run", async () => {
    const cost = await perRun(null);
    expect(cost.postgres_statements).toBeGreaterThanOrEqual(STATELESS_STATEMENTS);
    expect(cost.postgres_statements).toBeLessThan(STATELESS_STATEMENTS + 1);
    expect(cost.redis_commands).toBeGreaterThan(0);
    expect(cost.redis_commands).toBeLessThanOrEqual(STATELESS_BOUNDS.redis);
  });

  it("stateless runs waited for by 32 clients at once, most of them queued behind the worker's slots", async () => {
    const input = { record_file: join(dir, "concurrent"), pause_ms: 20 };
    const before = await counts(server);
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const client = sdkClient(server.url);
        for (let i = 0; i < RUNS_PER_CLIENT; i++) {
          const out = (await client.runs.wait(null, "steps", { input })) as { done?: string[] };
          expect(out.done?.slice(-5)).toEqual(["step1", "step2", "step3", "step4", "step5"]);
        }
      }),
    );
    const after = await counts(server);
    const redisPerRun = (after.redis_commands - before.redis_commands) / (CLIENTS * RUNS_PER_CLIENT);
    expect(redisPerRun).toBeGreaterThan(0);
    expect(redisPerRun).toBeLessThanOrEqual(CONCURRENT_BOUNDS.redis);
  });

  it("stateless one-node runs waited for by 32 clients at once, their enqueues and finishes sharing statements", async () => {
    const wait = (client: ReturnType<typeof sdkClient>) => client.runs.wait(null, "whoami", { input: {} });
    // The first run caches the graph's assistant, which the runs below would otherwise each read.
    await wait(sdkClient(server.url));
    const before = await counts(server);
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const client = sdkClient(server.url);
        for (let i = 0; i < RUNS_PER_CLIENT; i++) expect(await wait(client)).toMatchObject({ seen: { configurable: { graph_id: "whoami" } } });
      }),
    );
    const after = await counts(server);
    const postgresPerRun = (after.postgres_statements - before.postgres_statements) / (CLIENTS * RUNS_PER_CLIENT);
    expect(postgresPerRun).toBeGreaterThanOrEqual(1);
    expect(postgresPerRun).toBeLessThan(CONCURRENT_ONE_NODE_STATEMENTS);
  });

  it("a stateless run asking for synchronous durability, whose checkpoints are written as it goes", async () => {
    const held = await perRun(null);
    const sync = await perRun(null, "sync");
    // Five steps, each a checkpoint and its writes: written here, held (and dropped with the thread) by default.
    expect(sync.postgres_statements).toBeGreaterThanOrEqual(held.postgres_statements + 10);
  });

  it("a run on a thread", async () => {
    const threadId = (await sdkClient(server.url).threads.create()).thread_id;
    const cost = await perRun(threadId);
    expect(cost.postgres_statements).toBeGreaterThan(0);
    expect(cost.postgres_statements).toBeLessThanOrEqual(THREADED_BOUNDS.postgres);
    expect(cost.redis_commands).toBeGreaterThan(0);
    expect(cost.redis_commands).toBeLessThanOrEqual(THREADED_BOUNDS.redis);
  });
});
