// `npm run bench`: Gantry (`gantry dev`, embedded SQLite, fresh data directory) side by side with
// the JS reference server (in memory), both on the graphs of bench/langgraph.json, driven by the
// official SDK over HTTP in one run. Each metric alternates between the servers in rounds so
// machine noise falls on both; two floors (bare node:http under the same load, in-process
// graph.invoke with Gantry's checkpointer) take their turns in the same rounds, after a warm-up
// that gives every server (and the in-process floor) the same time to reach its steady state.
// Prints a Markdown table and writes the same as JSON to bench/results/latest.json. Exits 1 when
// any answer was wrong.
import { Client } from "@langchain/langgraph-sdk";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { ErrorTally, type Row, type Target } from "./bench-target.js";
import { openInProcessEcho, type InProcessEcho } from "./in-process-floor.js";
import { protocolStreams } from "./measure-protocol.js";
import { storeItems, threadsWithMetadata, type DataCounts } from "./measure-data.js";
import { concurrentWaits, customStream, pickups, sequentialChain, sequentialEcho, warmUp, warmUpInProcess, type RunCounts } from "./measure-runs.js";
import { errorSummary, markdownTable, resultJson } from "./report.js";
import { startGantryForBench, startHttpFloorForBench, startReferenceForBench, type BenchServer } from "./start-server.js";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CONCURRENCY = 32;
const SEQUENTIAL = env("BENCH_SEQUENTIAL", 300);
const WARMUP_SECONDS = env("BENCH_WARMUP_SECONDS", 8);

const runCounts: RunCounts = {
  // Each reference wait takes about half a second (its join re-checks the run every 500 ms), so it
  // gets fewer samples to keep the whole run under five minutes.
  sequential: { gantry: SEQUENTIAL, reference: env("BENCH_REFERENCE_SEQUENTIAL", 40) },
  concurrentSeconds: env("BENCH_SECONDS", 10),
  concurrency: CONCURRENCY,
  pickups: { gantry: env("BENCH_PICKUPS", 100), reference: env("BENCH_REFERENCE_PICKUPS", 30) },
  customEvents: 5000,
  streams: 3,
};
const dataCounts: DataCounts = {
  threads: env("BENCH_THREADS", 20_000),
  threadSearches: 200,
  storeItems: env("BENCH_STORE_ITEMS", 5000),
  storeSearches: 200,
  concurrency: CONCURRENCY,
};

const client = (server: BenchServer) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, maxConcurrency: CONCURRENCY * 2 } });

async function main(): Promise<number> {
  const started = performance.now();
  const load: number[] = [loadavg()[0]!];
  const loadTimer = setInterval(() => load.push(loadavg()[0]!), 10_000);
  const errors = new ErrorTally();
  const rows: Row[] = [];
  const servers: BenchServer[] = [];
  let inProcess: InProcessEcho | undefined;
  const step = (name: string) => process.stderr.write(`[${Math.round((performance.now() - started) / 1000)} s] ${name}\n`);
  try {
    step("starting gantry, the reference server and the HTTP floor");
    const [gantry, reference, floor] = await Promise.all([startGantryForBench(), startReferenceForBench(), startHttpFloorForBench()]);
    servers.push(gantry, reference, floor);
    const targets: Target[] = [
      { name: "gantry", client: client(gantry), server: gantry },
      { name: "reference", client: client(reference), server: reference },
    ];
    const floorClient = client(floor);
    inProcess = openInProcessEcho();
    step(`warm-up: ${WARMUP_SECONDS} s of runs.wait on each server, and of in-process graph.invoke`);
    await warmUp(targets, WARMUP_SECONDS, errors);
    await warmUpInProcess(inProcess, WARMUP_SECONDS, errors);
    step("sequential runs.wait, echo (and the HTTP floor and in-process graph.invoke, in the same rounds)");
    const echo = await sequentialEcho(targets, runCounts, errors, floorClient, inProcess);
    const waitP50 = echo.rows[0]!;
    rows.push(
      ...echo.rows,
      {
        metric: "in-process graph.invoke p50, echo, Gantry's SQLite checkpointer",
        unit: "ms",
        better: "lower",
        floor: echo.invokeP50,
        samples: { floor: echo.invokeSamples },
      },
      {
        metric: "Gantry sequential runs.wait p50 minus in-process invoke p50",
        unit: "ms",
        better: "lower",
        gantry: waitP50.gantry! - echo.invokeP50,
        goal: { atMost: 2 },
      },
      { metric: "  of which the bare-HTTP round trip (floor p50)", unit: "ms", better: "lower", floor: waitP50.floor },
    );
    step("sequential runs.wait, ten-node chain");
    rows.push(...(await sequentialChain(targets, runCounts, errors)));
    step("concurrent stateless runs.wait (and the HTTP floor)");
    rows.push(...(await concurrentWaits([...targets, { name: "floor", client: floorClient }], runCounts, errors)));
    step("background pickup and join");
    rows.push(...(await pickups(targets, runCounts, errors)));
    step("custom-event stream");
    rows.push(...(await customStream(targets, runCounts, errors)));
    step("protocol v2 custom-event streams, SSE and WebSocket");
    rows.push(...(await protocolStreams(targets, "sse", runCounts, errors)));
    rows.push(...(await protocolStreams(targets, "websocket", runCounts, errors)));
    step(`${dataCounts.threads} threads`);
    rows.push(...(await threadsWithMetadata(targets, dataCounts, errors)));
    step("store");
    rows.push(...(await storeItems(targets, dataCounts, errors)));
  } finally {
    clearInterval(loadTimer);
    await Promise.all([...servers.map((server) => server.stop()), inProcess?.close()]);
  }
  load.push(loadavg()[0]!);
  const seconds = Math.round((performance.now() - started) / 1000);
  const machine = {
    cores: cpus().length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    load_1m: { start: load[0], mean: Number((load.reduce((a, b) => a + b, 0) / load.length).toFixed(2)), max: Math.max(...load), end: load.at(-1) },
  };
  const table = markdownTable(rows);
  console.log(`\nGantry (gantry dev, embedded SQLite) vs the JS reference server (@langchain/langgraph-api, in memory), official SDK over HTTP`);
  console.log(
    `machine: ${machine.cores} cores, ${machine.memory_gib} GiB, ${machine.node}; 1-min load during the run: mean ${machine.load_1m.mean}, max ${machine.load_1m.max}; ${seconds} s\n`,
  );
  console.log(table);
  console.log(`\n${errorSummary(errors)}`);
  const resultsDir = fileURLToPath(new URL("results/", import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    `${resultsDir}latest.json`,
    resultJson(rows, errors, {
      benchmark: "compare",
      date: new Date().toISOString(),
      command: "npm run bench",
      seconds,
      machine,
      counts: { runs: runCounts, data: dataCounts },
    }),
  );
  console.log("written: bench/results/latest.json");
  return errors.total() > 0 ? 1 : 0;
}

process.exitCode = await main();
