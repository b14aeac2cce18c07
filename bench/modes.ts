// `npm run bench:modes`: the same load on each way of running Gantry, side by side in one run —
// `gantry dev` (embedded SQLite, in-process events), `gantry serve` with one replica and with two
// (PostgreSQL + Redis, the two replicas sharing a schema and a key prefix), and the JS reference
// server as the outside anchor. 32 clients loop on stateless runs.wait, in alternating rounds so
// machine noise falls on every mode alike.
//
// Wall-clock figures move with the machine's load; counts do not. For each `serve` mode the script
// also prints what one run costs the backends — PostgreSQL statements (each one round trip) and
// Redis commands, read from /metrics before and after — for sequential stateless waits, sequential
// waits on one thread, and the 32-client load, with the idle background (polls, sweeps) of the same
// span subtracted. Needs PostgreSQL (DATABASE_URL, default the test database) and Redis
// (REDIS_URL); uses fresh schemas and a fresh key prefix, and removes them.
import { Client } from "@langchain/langgraph-sdk";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { onDatabase, removeBackends, schemaUrl } from "./serve-backends.js";
import { alternate, describeError, ErrorTally } from "./bench-target.js";
import { loadFor, percentile, round } from "./stats.js";
import { startGantryForBench, startReferenceForBench, startServeForBench, type BenchServer } from "./start-server.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CONCURRENCY = 32;
const SECONDS = env("BENCH_SECONDS", 24);
const ROUNDS = env("BENCH_ROUNDS", 4);
const WARMUP_SECONDS = env("BENCH_WARMUP_SECONDS", 5);
const COUNTED_RUNS = env("BENCH_COUNTED_RUNS", 100);
/** Which modes run: a comma-separated subset of dev, serve1, serve2, reference. */
const ONLY = new Set((process.env.BENCH_MODES ?? "dev,serve1,serve2,reference").split(","));

interface Mode {
  name: string;
  servers: BenchServer[];
  clients: Client[];
  /** Whether /metrics carries backend counts (gantry serve). */
  counted: boolean;
  completed: number;
  seconds: number;
  /** runs/s of each alternating round, in order. */
  rounds: number[];
}

interface Counts {
  postgres: number;
  redis: number;
}

const client = (server: BenchServer) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, maxConcurrency: CONCURRENCY } });

/** Backend counters summed over a mode's replicas. */
async function counts(mode: Mode): Promise<Counts> {
  const all = await Promise.all(
    mode.servers.map(
      async (server) => (await (await fetch(`${server.url}/metrics?format=json`)).json()) as { postgres_statements?: number; redis_commands?: number },
    ),
  );
  return { postgres: all.reduce((n, m) => n + (m.postgres_statements ?? 0), 0), redis: all.reduce((n, m) => n + (m.redis_commands ?? 0), 0) };
}

/** Counts per run for `work`, less what the same span costs an idle server (measured just before). */
async function perRun(mode: Mode, work: () => Promise<number>): Promise<Counts & { runs: number }> {
  const idleStart = await counts(mode);
  const idleT0 = performance.now();
  await new Promise((wake) => setTimeout(wake, 2_000));
  const idleEnd = await counts(mode);
  const idleSeconds = (performance.now() - idleT0) / 1000;
  const t0 = performance.now();
  const runs = await work();
  const end = await counts(mode);
  const seconds = (performance.now() - t0) / 1000;
  const background = (key: keyof Counts) => ((idleEnd[key] - idleStart[key]) / idleSeconds) * seconds;
  return {
    runs,
    postgres: round((end.postgres - idleEnd.postgres - background("postgres")) / runs, 1),
    redis: round((end.redis - idleEnd.redis - background("redis")) / runs, 1),
  };
}

async function statelessWait(mode: Mode, clientIndex: number, message: string, errors: ErrorTally, metric: string): Promise<boolean> {
  try {
    const out = (await mode.clients[clientIndex % mode.clients.length]!.runs.wait(null, "echo", { input: { message } })) as { message?: string };
    if (out.message === message) return true;
    errors.add(mode.name, metric, `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
  } catch (error) {
    errors.add(mode.name, metric, describeError(error));
  }
  return false;
}

async function sequentialStateless(mode: Mode, errors: ErrorTally): Promise<number> {
  let done = 0;
  for (let i = 0; i < COUNTED_RUNS; i++) if (await statelessWait(mode, i, `s${i}`, errors, "counted stateless")) done += 1;
  return done;
}

async function sequentialThreaded(mode: Mode, errors: ErrorTally): Promise<number> {
  const threadId = (await mode.clients[0]!.threads.create()).thread_id;
  let done = 0;
  for (let i = 0; i < COUNTED_RUNS; i++) {
    const message = `t${i}`;
    try {
      const out = (await mode.clients[0]!.runs.wait(threadId, "echo", { input: { message } })) as { message?: string };
      if (out.message === message) done += 1;
      else errors.add(mode.name, "counted threaded", `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
    } catch (error) {
      errors.add(mode.name, "counted threaded", describeError(error));
    }
  }
  return done;
}

async function concurrentRound(mode: Mode, seconds: number, errors: ErrorTally, metric: string): Promise<number> {
  let completed = 0;
  const elapsed = await loadFor(seconds, CONCURRENCY, async (worker, n) => {
    if (await statelessWait(mode, worker, `w${worker}-${n}`, errors, metric)) completed += 1;
  });
  mode.completed += completed;
  mode.seconds += elapsed;
  mode.rounds.push(completed / elapsed);
  return completed;
}

const median = (values: number[]) => (values.length === 0 ? NaN : percentile(values, 50));

async function main(): Promise<number> {
  const suffix = randomBytes(4).toString("hex");
  const schemas = [`gantry_modes1_${suffix}`, `gantry_modes2_${suffix}`];
  const prefixes = [`gantry-modes1-${suffix}:`, `gantry-modes2-${suffix}:`];
  const errors = new ErrorTally();
  const modes: Mode[] = [];
  const load = [loadavg()[0]!];
  const step = (text: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  const mode = (name: string, servers: BenchServer[], counted: boolean): Mode => ({
    name,
    servers,
    clients: servers.map(client),
    counted,
    completed: 0,
    seconds: 0,
    rounds: [],
  });
  try {
    for (const schema of schemas) await onDatabase(DATABASE_URL, `CREATE SCHEMA ${schema}`);
    step("starting the servers");
    if (ONLY.has("dev")) modes.push(mode("gantry dev", [await startGantryForBench()], false));
    if (ONLY.has("serve1"))
      modes.push(mode("gantry serve x1", [await startServeForBench(schemaUrl(DATABASE_URL, schemas[0]!), REDIS_URL, prefixes[0]!)], true));
    if (ONLY.has("serve2")) {
      const replicas = [await startServeForBench(schemaUrl(DATABASE_URL, schemas[1]!), REDIS_URL, prefixes[1]!)];
      replicas.push(await startServeForBench(schemaUrl(DATABASE_URL, schemas[1]!), REDIS_URL, prefixes[1]!));
      modes.push(mode("gantry serve x2", replicas, true));
    }
    if (ONLY.has("reference")) modes.push(mode("reference", [await startReferenceForBench()], false));

    step(`warm-up: ${WARMUP_SECONDS} s of 32-client load on each mode`);
    for (const m of modes)
      await loadFor(WARMUP_SECONDS, CONCURRENCY, (worker, n) => statelessWait(m, worker, `warm${worker}-${n}`, errors, "warm-up").then(() => {}));

    const countRows: Array<Record<string, string | number>> = [];
    for (const m of modes.filter((x) => x.counted)) {
      step(`${m.name}: counting ${COUNTED_RUNS} sequential stateless and ${COUNTED_RUNS} threaded waits`);
      const stateless = await perRun(m, () => sequentialStateless(m, errors));
      const threaded = await perRun(m, () => sequentialThreaded(m, errors));
      countRows.push(
        { mode: m.name, runs: "stateless runs.wait, sequential", "PostgreSQL statements/run": stateless.postgres, "Redis commands/run": stateless.redis },
        { mode: m.name, runs: "runs.wait on one thread, sequential", "PostgreSQL statements/run": threaded.postgres, "Redis commands/run": threaded.redis },
      );
    }

    step(`${ROUNDS} alternating rounds of ${round(SECONDS / ROUNDS, 1)} s per mode, ${CONCURRENCY} clients`);
    const loadCounts = new Map<string, Counts & { runs: number }>();
    await alternate(modes, ROUNDS, async (m) => {
      const before = m.counted ? await counts(m) : undefined;
      const done = await concurrentRound(m, SECONDS / ROUNDS, errors, "32 clients");
      load.push(loadavg()[0]!);
      if (!before) return;
      const after = await counts(m);
      const sofar = loadCounts.get(m.name) ?? { runs: 0, postgres: 0, redis: 0 };
      loadCounts.set(m.name, {
        runs: sofar.runs + done,
        postgres: sofar.postgres + after.postgres - before.postgres,
        redis: sofar.redis + after.redis - before.redis,
      });
    });
    for (const [name, c] of loadCounts) {
      countRows.push({
        mode: name,
        runs: `stateless runs.wait, ${CONCURRENCY} clients (idle background included)`,
        "PostgreSQL statements/run": round(c.postgres / c.runs, 1),
        "Redis commands/run": round(c.redis / c.runs, 1),
      });
    }

    const dev = modes.find((m) => m.name === "gantry dev");
    const rate = (m: Mode) => m.completed / m.seconds;
    // The machine's speed drifts within minutes; a mode's round and dev's round of the same pass
    // ran seconds apart, so their ratios, one per pass, say more than the pooled totals when it does.
    const roundRatios = (m: Mode) => (dev ? m.rounds.map((r, i) => round(r / dev.rounds[i]!, 2)) : []);
    const rows = modes.map((m) => ({
      mode: m.name,
      "runs/s": round(rate(m), 1),
      "÷ gantry dev": dev ? round(rate(m) / rate(dev), 2) : NaN,
      "÷ dev, median of rounds": dev ? median(roundRatios(m)) : NaN,
      "÷ dev, each round": roundRatios(m).join(" "),
      runs: m.completed,
    }));
    load.push(loadavg()[0]!);
    const meanLoad = round(load.reduce((a, b) => a + b, 0) / load.length, 1);
    console.log(
      `\nstateless runs.wait, ${CONCURRENCY} clients, ${ROUNDS} alternating rounds, ${SECONDS} s per mode; ${cpus().length} cores, 1-min load mean ${meanLoad} max ${Math.max(...load)}`,
    );
    console.table(rows);
    console.log("target (#22): gantry serve x1 at least 0.6 of gantry dev");
    console.log("\nbackend round trips per run (PostgreSQL: every statement, BEGIN/COMMIT included; Redis: every command)");
    console.table(countRows);
    const errorCount = errors.total();
    console.log(
      `errors: ${errorCount}${errorCount ? ` ${JSON.stringify(Object.fromEntries(errors.counts))} ${errors.examples.join(" | ")}` : " (every answer checked)"}`,
    );
    const resultsDir = fileURLToPath(new URL("results/", import.meta.url));
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(
      `${resultsDir}modes.json`,
      JSON.stringify(
        { benchmark: "modes", date: new Date().toISOString(), cores: cpus().length, load_1m_mean: meanLoad, rows, counts: countRows, errors: errorCount },
        null,
        2,
      ),
    );
    console.log("written: bench/results/modes.json");
    return errorCount > 0 ? 1 : 0;
  } finally {
    await Promise.all(modes.flatMap((m) => m.servers.map((s) => s.stop())));
    await removeBackends(DATABASE_URL, schemas, REDIS_URL, prefixes);
  }
}

process.exitCode = await main();
