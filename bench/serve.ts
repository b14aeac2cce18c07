// `gantry serve` on PostgreSQL + Redis, in two parts (BENCH_PARTS, default "scale,stream"):
// - scale: throughput of 32 concurrent stateless runs.wait clients against one replica, then
//   against two replicas on the same PostgreSQL and Redis (clients split evenly), and the ratio;
// - stream: the 5,000-custom-event SSE stream on `gantry dev` (embedded) and on one `gantry serve`
//   replica, alternating in one run, with events/s (from the request, and from the first event
//   on), time to the first event, the serve/dev ratios and the Redis commands one stream costs. BENCH_BASELINE_ROOT (another checkout, e.g. a git
//   worktree of main) adds its `gantry serve` as a third target, for old-against-new in one run.
// Prints tables and a JSON line. Needs PostgreSQL (DATABASE_URL, default the test database) and
// Redis (REDIS_URL); uses fresh schemas and key prefixes, and removes them.
import { Client } from "@langchain/langgraph-sdk";
import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { Redis } from "ioredis";
import { onDatabase, removeBackends, schemaUrl } from "./serve-backends.js";
import { processCpuMs } from "./process-cpu.js";
import { alternate } from "./bench-target.js";
import { percentile, round } from "./stats.js";
import { type BenchServer, startGantryForBench, startServeForBench } from "./start-server.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const CONCURRENCY = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_RUNS = 64;
const CUSTOM_EVENTS = 5000;
const STREAMS = Number(process.env.BENCH_STREAMS ?? 5);
const PARTS = new Set((process.env.BENCH_PARTS ?? "scale,stream").split(","));
const BASELINE_ROOT = process.env.BENCH_BASELINE_ROOT;

const sdk = (server: BenchServer) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, maxConcurrency: CONCURRENCY } });

/** Runs/s of CONCURRENCY clients looping on stateless runs.wait, spread over the replicas. */
async function throughput(replicas: BenchServer[]): Promise<{ perSecond: number; errors: number }> {
  const clients = replicas.map(sdk);
  await Promise.all(
    clients.flatMap((c) => Array.from({ length: WARMUP_RUNS / clients.length }, () => c.runs.wait(null, "echo", { input: { message: "warm" } }))),
  );
  let completed = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      const client = clients[worker % clients.length]!;
      let n = 0;
      while (performance.now() < deadline) {
        const message = `w${worker}-${n++}`;
        const out = (await client.runs.wait(null, "echo", { input: { message } }).catch(() => null)) as { message?: string } | null;
        if (out?.message === message) completed += 1;
        else errors += 1;
      }
    }),
  );
  return { perSecond: completed / ((performance.now() - started) / 1000), errors };
}

interface StreamTarget {
  name: string;
  server: BenchServer;
  client: Client;
  /** Whether /metrics carries Redis counts (gantry serve). */
  counted: boolean;
  perSecond: number[];
  /** Events/s from the first event on: the stream itself, without the run's start. */
  streamingPerSecond: number[];
  firstEventMs: number[];
  redisCommands: number[];
  /** CPU time the server process spent per stream (user + system, from /proc). */
  serverCpuMs: number[];
  /** CPU time Redis spent per stream (INFO cpu; other clients of the same Redis count too). */
  redisCpuMs: number[];
  errors: number;
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const value = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (value("used_cpu_sys") + value("used_cpu_user")) * 1000;
}

async function redisCommands(server: BenchServer): Promise<number> {
  return ((await (await fetch(`${server.url}/metrics?format=json`)).json()) as { redis_commands?: number }).redis_commands ?? 0;
}

/** One stateless run emitting CUSTOM_EVENTS custom events, streamed and checked in order. */
async function oneStream(target: StreamTarget, record: boolean, redis: Redis): Promise<void> {
  const before = target.counted ? await redisCommands(target.server) : 0;
  const cpuBefore = processCpuMs(target.server.pid);
  const redisCpuBefore = await redisCpuMs(redis);
  const t0 = performance.now();
  let first = NaN;
  let received = 0;
  try {
    for await (const chunk of target.client.runs.stream(null, "custom", { input: { count: CUSTOM_EVENTS }, streamMode: "custom" })) {
      if (chunk.event !== "custom") continue;
      if (received === 0) first = performance.now() - t0;
      if ((chunk.data as { i?: number }).i !== received) break;
      received += 1;
    }
  } catch {
    // Counted below as a short stream.
  }
  const seconds = (performance.now() - t0) / 1000;
  if (received !== CUSTOM_EVENTS) {
    target.errors += 1;
    return;
  }
  if (!record) return;
  target.perSecond.push(received / seconds);
  target.streamingPerSecond.push((received - 1) / (seconds - first / 1000));
  target.firstEventMs.push(first);
  // The run's end is recorded after the stream closes: let the worker finish before counting.
  await new Promise((wake) => setTimeout(wake, 200));
  target.serverCpuMs.push(processCpuMs(target.server.pid) - cpuBefore);
  target.redisCpuMs.push((await redisCpuMs(redis)) - redisCpuBefore);
  if (target.counted) target.redisCommands.push((await redisCommands(target.server)) - before);
}

async function streamPart(servers: BenchServer[], suffix: string): Promise<Record<string, unknown>> {
  const schemas = [`gantry_bench_stream_${suffix}`, ...(BASELINE_ROOT ? [`gantry_bench_base_${suffix}`] : [])];
  const prefixes = [`gantry-bench-stream-${suffix}:`, `gantry-bench-base-${suffix}:`];
  for (const schema of schemas) await onDatabase(DATABASE_URL, `CREATE SCHEMA ${schema}`);
  const target = (name: string, server: BenchServer, counted: boolean): StreamTarget => {
    servers.push(server);
    return {
      name,
      server,
      client: sdk(server),
      counted,
      perSecond: [],
      streamingPerSecond: [],
      firstEventMs: [],
      redisCommands: [],
      serverCpuMs: [],
      redisCpuMs: [],
      errors: 0,
    };
  };
  const load = [loadavg()[0]!];
  const redis = new Redis(REDIS_URL);
  try {
    const targets = [
      target("gantry dev", await startGantryForBench(), false),
      target("gantry serve x1", await startServeForBench(schemaUrl(DATABASE_URL, schemas[0]!), REDIS_URL, prefixes[0]!), true),
    ];
    if (BASELINE_ROOT)
      targets.push(
        target(`serve x1 (${BASELINE_ROOT})`, await startServeForBench(schemaUrl(DATABASE_URL, schemas[1]!), REDIS_URL, prefixes[1]!, BASELINE_ROOT), true),
      );
    for (const t of targets) for (let i = 0; i < 2; i++) await oneStream(t, false, redis);
    await alternate(targets, STREAMS, async (t) => {
      await oneStream(t, true, redis);
      load.push(loadavg()[0]!);
    });
    const dev = percentile(targets[0]!.perSecond, 50);
    const devStreaming = percentile(targets[0]!.streamingPerSecond, 50);
    const rows = targets.map((t) => ({
      target: t.name,
      "events/s p50": Math.round(percentile(t.perSecond, 50)),
      "of dev": round(percentile(t.perSecond, 50) / dev, 2),
      "first event ms p50": round(percentile(t.firstEventMs, 50), 1),
      "events/s from the first p50": Math.round(percentile(t.streamingPerSecond, 50)),
      "of dev, from the first": round(percentile(t.streamingPerSecond, 50) / devStreaming, 2),
      "Redis commands/stream p50": t.counted ? percentile(t.redisCommands, 50) : "-",
      "server CPU ms/stream p50": percentile(t.serverCpuMs, 50),
      "Redis CPU ms/stream p50": Math.round(percentile(t.redisCpuMs, 50)),
      errors: t.errors,
    }));
    console.log(`\nSSE stream of ${CUSTOM_EVENTS} custom events, ${STREAMS} streams per target, alternating`);
    console.table(rows);
    return { rows, load: { min: round(Math.min(...load), 2), max: round(Math.max(...load), 2) } };
  } finally {
    redis.disconnect();
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await removeBackends(DATABASE_URL, schemas, REDIS_URL, prefixes);
  }
}

async function scalePart(servers: BenchServer[], suffix: string): Promise<Record<string, unknown>> {
  const schema = `gantry_bench_${suffix}`;
  const prefix = `gantry-bench-${suffix}:`;
  await onDatabase(DATABASE_URL, `CREATE SCHEMA ${schema}`);
  try {
    const replicas: BenchServer[] = [await startServeForBench(schemaUrl(DATABASE_URL, schema), REDIS_URL, prefix)];
    servers.push(replicas[0]!);
    const one = await throughput(replicas);
    replicas.push(await startServeForBench(schemaUrl(DATABASE_URL, schema), REDIS_URL, prefix));
    servers.push(replicas[1]!);
    const two = await throughput(replicas);
    const rows = [
      { metric: `stateless runs.wait, ${CONCURRENCY} clients, 1 replica`, value: Math.round(one.perSecond), unit: "runs/s" },
      { metric: `stateless runs.wait, ${CONCURRENCY} clients, 2 replicas`, value: Math.round(two.perSecond), unit: "runs/s" },
      { metric: "ratio 2 replicas / 1 replica", value: Math.round((two.perSecond / one.perSecond) * 100) / 100, unit: "x" },
    ];
    console.log(`\ngantry serve on PostgreSQL + Redis, ${SECONDS} s per measurement (errors: ${one.errors + two.errors})`);
    console.table(rows);
    return { rows, errors: one.errors + two.errors };
  } finally {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await removeBackends(DATABASE_URL, [schema], REDIS_URL, [prefix]);
  }
}

async function main(): Promise<void> {
  const suffix = randomBytes(4).toString("hex");
  const servers: BenchServer[] = [];
  const result: Record<string, unknown> = { benchmark: "serve", cores: cpus().length };
  try {
    if (PARTS.has("scale")) result.scale = await scalePart(servers, suffix);
    if (PARTS.has("stream")) result.stream = await streamPart(servers, suffix);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  console.log(JSON.stringify(result));
}

await main();
