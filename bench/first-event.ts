// `npm run bench:first-event [-- DIR ...]`: time to the first streamed event (issue #22 item 4) on
// `gantry dev` and `gantry serve` (one replica, PostgreSQL + Redis) side by side, with the same
// streams' events/s. Each stream is a stateless `client.runs.stream` of the 5,000-custom-event graph
// through the official SDK, timed from the call to the first custom event. Streams take turns
// across the servers so machine noise falls on all of them. With source trees as arguments (git
// worktrees with `node_modules`), each one's dev and serve are measured in the same rounds: old
// against new in one run. Needs PostgreSQL (DATABASE_URL, default the test database) and Redis
// (REDIS_URL); uses a fresh schema and key prefix per tree and removes them. Writes
// bench/results/first-event.json; exits 1 when any stream was wrong.
import { Client } from "@langchain/langgraph-sdk";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { onDatabase, removeBackends, schemaUrl } from "./serve-backends.js";
import { type BenchServer, startGantryForBench, startServeForBench } from "./start-server.js";
import { percentile } from "./stats.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const STREAMS = Number(process.env.BENCH_STREAMS ?? 12);
const EVENTS = 5000;
const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Cell {
  name: string;
  server: BenchServer;
  client: Client;
  first: number[];
  perSecond: number[];
  errors: string[];
}

async function stream(cell: Cell, timed: boolean): Promise<void> {
  const t0 = performance.now();
  let first = Number.NaN;
  let received = 0;
  try {
    for await (const chunk of cell.client.runs.stream(null, "custom", { input: { count: EVENTS }, streamMode: "custom" })) {
      if (chunk.event !== "custom") continue;
      if (received === 0) first = performance.now() - t0;
      if ((chunk.data as { i?: number }).i !== received) throw new Error(`event ${received} carried ${JSON.stringify(chunk.data)}`);
      received += 1;
    }
    if (received !== EVENTS) throw new Error(`received ${received} events`);
  } catch (error) {
    cell.errors.push((error as Error).message);
    return;
  }
  if (!timed) return;
  cell.first.push(first);
  cell.perSecond.push(received / ((performance.now() - t0) / 1000));
}

const ms = (n: number) => (Number.isNaN(n) ? "" : n.toFixed(n >= 100 ? 0 : 1));

async function main(): Promise<number> {
  const roots = process.argv.length > 2 ? process.argv.slice(2).map((dir) => resolve(dir)) : [ROOT];
  const suffix = randomBytes(4).toString("hex");
  const schemas = roots.map((_, i) => `gantry_first${i}_${suffix}`);
  const prefixes = roots.map((_, i) => `gantry-first${i}-${suffix}:`);
  const cells: Cell[] = [];
  const load = [loadavg()[0]!];
  const started = performance.now();
  try {
    for (const schema of schemas) await onDatabase(DATABASE_URL, `CREATE SCHEMA ${schema}`);
    for (const [i, root] of roots.entries()) {
      const label = roots.length > 1 ? ` (${root})` : "";
      const dev = await startGantryForBench({}, root);
      const serve = await startServeForBench(schemaUrl(DATABASE_URL, schemas[i]!), REDIS_URL, prefixes[i]!, root);
      for (const [name, server] of [
        [`gantry dev${label}`, dev],
        [`gantry serve x1${label}`, serve],
      ] as const) {
        cells.push({ name, server, client: new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } }), first: [], perSecond: [], errors: [] });
      }
    }
    // One untimed stream each first: the first run of a graph pays for loading it.
    for (const cell of cells) await stream(cell, false);
    for (let round = 0; round < STREAMS; round++) for (const cell of cells) await stream(cell, true);
  } finally {
    await Promise.all(cells.map((cell) => cell.server.stop()));
    await removeBackends(DATABASE_URL, schemas, REDIS_URL, prefixes);
  }
  load.push(loadavg()[0]!);
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(`\nTime to the first streamed event: SDK runs.stream of ${EVENTS} custom events (stateless), ${STREAMS} streams per server, taking turns`);
  console.log(`machine: ${cpus().length} cores, ${process.version}; 1-min load at start ${load[0]}, at end ${load[1]}; ${seconds} s\n`);
  console.log("| server | first event p50, ms | min | p90 | events/s p50 | errors |");
  console.log("|---|--:|--:|--:|--:|--:|");
  const rows = cells.map((cell) => ({
    server: cell.name,
    first_p50_ms: percentile(cell.first, 50),
    first_min_ms: Math.min(...cell.first),
    first_p90_ms: percentile(cell.first, 90),
    events_per_s_p50: percentile(cell.perSecond, 50),
    samples: cell.first.length,
    errors: cell.errors,
  }));
  for (const row of rows) {
    console.log(
      `| ${row.server} | ${ms(row.first_p50_ms)} | ${ms(row.first_min_ms)} | ${ms(row.first_p90_ms)} | ${Math.round(row.events_per_s_p50).toLocaleString("en-US")} | ${row.errors.length} |`,
    );
  }
  const errors = rows.reduce((sum, row) => sum + row.errors.length, 0);
  for (const row of rows) for (const error of row.errors.slice(0, 3)) console.log(`error: ${row.server}: ${error}`);
  const resultsDir = fileURLToPath(new URL("results/", import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    `${resultsDir}first-event.json`,
    JSON.stringify({ benchmark: "first-event", date: new Date().toISOString(), command: "npm run bench:first-event", seconds, load_1m: load, rows }, null, 2),
  );
  return errors > 0 ? 1 : 0;
}

process.exitCode = await main();
