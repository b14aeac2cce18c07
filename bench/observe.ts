// `npm run bench:observe`: what tracing costs a run. Four `gantry dev` servers (SQLite, fresh
// data directories): tracing off, LangSmith tracing on, OpenTelemetry on, and both, each tracer
// sending to a local sink (bench/observe-sink.ts) that answers at once. Driven by the SDK in
// alternating rounds (the order rotates) so machine noise falls on every side: sequential
// runs.wait of the one-node echo graph and of the ten-node chain (tracing adds per node), then
// concurrent runs.wait of echo. Prints per-round medians with their spread, each side's echo p50
// against the off side's in the same round, each server's CPU per run over all rounds, what each
// sink received, and the load average; asserts nothing on time, but exits 1 when a side that
// should send sent nothing.
import { Client } from "@langchain/langgraph-sdk";
import { loadavg } from "node:os";
import { startSink, type Sink } from "./observe-sink.js";
import { processCpuMs } from "./process-cpu.js";
import { loadFor, percentile, round } from "./stats.js";
import { startGantryForBench, type BenchServer } from "./start-server.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const CHAIN_SEQUENTIAL = Number(process.env.BENCH_CHAIN_SEQUENTIAL ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 8;

type SideName = "off" | "langsmith" | "otel" | "both";

interface Side {
  name: SideName;
  server: BenchServer;
  sink: Sink;
  client: Client;
  echoP50: number[];
  echoP90: number[];
  chainP50: number[];
  throughputs: number[];
  /** Runs answered in the measured rounds, for the server's CPU time per run. */
  runs: number;
  cpuAtStart: number;
  /** Runs that answered an error (counted, not timed): the machine is shared and overloaded at times. */
  errors: string[];
}

/** What turns each tracer on, pointed at the side's sink. */
function tracingEnv(name: SideName, sink: string): Record<string, string> {
  const langsmith = { LANGSMITH_TRACING: "true", LANGSMITH_API_KEY: "bench-key", LANGSMITH_ENDPOINT: sink, LANGSMITH_PROJECT: "bench" };
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: sink, OTEL_SERVICE_NAME: "gantry-bench" };
  return { off: {}, langsmith, otel, both: { ...langsmith, ...otel } }[name];
}

async function answered(side: Side, wait: Promise<unknown>): Promise<boolean> {
  try {
    await wait;
    side.runs += 1;
    return true;
  } catch (err) {
    side.errors.push(err instanceof Error ? err.message : String(err));
    return false;
  }
}

async function timedWaits(side: Side, graph: "echo" | "chain", count: number): Promise<number[]> {
  const { thread_id } = await side.client.threads.create();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    if (await answered(side, side.client.runs.wait(thread_id, graph, { input: { message: `message ${i}` } }))) times.push(performance.now() - start);
  }
  return times;
}

async function sequential(side: Side): Promise<void> {
  const echo = await timedWaits(side, "echo", SEQUENTIAL);
  side.echoP50.push(percentile(echo, 50));
  side.echoP90.push(percentile(echo, 90));
  side.chainP50.push(percentile(await timedWaits(side, "chain", CHAIN_SEQUENTIAL), 50));
}

async function concurrent(side: Side): Promise<void> {
  const threads = await Promise.all(Array.from({ length: CONCURRENCY }, () => side.client.threads.create()));
  let completed = 0;
  const seconds = await loadFor(SECONDS, CONCURRENCY, async (worker, n) => {
    if (await answered(side, side.client.runs.wait(threads[worker]!.thread_id, "echo", { input: { message: `w${worker}-${n}` } }))) completed += 1;
  });
  side.throughputs.push(completed / seconds);
}

const spread = (values: number[], digits = 1) =>
  `${round(percentile(values, 50), digits)} (${round(Math.min(...values), digits)}–${round(Math.max(...values), digits)})`;

async function main(): Promise<number> {
  const load = [loadavg()[0]!];
  const names: SideName[] = ["off", "langsmith", "otel", "both"];
  const sinks = await Promise.all(names.map(() => startSink()));
  const servers = await Promise.all(names.map((name, i) => startGantryForBench(tracingEnv(name, sinks[i]!.url))));
  const sides: Side[] = names.map((name, i) => ({
    name,
    server: servers[i]!,
    sink: sinks[i]!,
    client: new Client({ apiUrl: servers[i]!.url, callerOptions: { maxRetries: 0 } }),
    echoP50: [],
    echoP90: [],
    chainP50: [],
    throughputs: [],
    errors: [],
    runs: 0,
    cpuAtStart: 0,
  }));
  try {
    // Warm-up, not counted: every side loads its graphs and fills its caches alike.
    for (const side of sides) await sequential(side);
    for (const side of sides) side.echoP50.length = side.echoP90.length = side.chainP50.length = side.errors.length = side.runs = 0;
    for (const side of sides) side.cpuAtStart = processCpuMs(side.server.pid);
    for (let r = 0; r < ROUNDS; r++) {
      const order = [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)];
      for (const side of order) await sequential(side);
      for (const side of order) await concurrent(side);
      load.push(loadavg()[0]!);
      process.stderr.write(`round ${r + 1}/${ROUNDS} done, load ${round(loadavg()[0]!, 1)}\n`);
    }
    // All of a server's CPU over the rounds, over the runs it answered: the tracers' background
    // exports count wherever they fell, which wall-clock figures on a shared machine cannot say.
    const cpuPerRun = (side: Side) => round((processCpuMs(side.server.pid) - side.cpuAtStart) / side.runs, 2);
    const cpu = new Map(sides.map((side) => [side.name, cpuPerRun(side)]));
    const off = sides[0]!;
    console.log(
      `| tracing | echo runs.wait p50 ms | p50 vs off, same round | echo p90 ms | chain (10 nodes) p50 ms | runs/s, ${CONCURRENCY} concurrent | server CPU ms per run (runs) | sink received |`,
    );
    console.log("|---|---|---|---|---|---|---|---|");
    for (const side of sides) {
      const ratios = side.echoP50.map((p50, i) => p50 / off.echoP50[i]!);
      const received =
        side.name === "off"
          ? "—"
          : `${side.sink.counts.langsmith} LangSmith + ${side.sink.counts.otlp} OTLP posts, ${round(side.sink.counts.bytes / 1024 / 1024, 1)} MiB`;
      console.log(
        `| ${side.name} | ${spread(side.echoP50)} | ${side === off ? "1" : `×${spread(ratios, 2)}`} | ${spread(side.echoP90)} | ${spread(side.chainP50)} | ${spread(side.throughputs)} | ${cpu.get(side.name)} (${side.runs} runs) | ${received} |`,
      );
    }
    for (const side of sides.filter((s) => s.errors.length > 0)) {
      console.log(`\n${side.name}: ${side.errors.length} runs answered an error, e.g. ${[...new Set(side.errors)].slice(0, 3).join("; ")}`);
    }
    console.log(
      `\nmedian of ${ROUNDS} rounds (min–max across rounds); per round and side ${SEQUENTIAL} sequential echo runs, ${CHAIN_SEQUENTIAL} sequential chain runs, ${SECONDS} s of concurrent echo runs; load average (1 min) ${load.map((l) => round(l, 1)).join(", ")}`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  // Stopping flushes what the tracers still held; only then are the counts final.
  const silent = sides.filter(
    (s) => (s.name !== "off" && s.name !== "otel" && s.sink.counts.langsmith === 0) || ((s.name === "otel" || s.name === "both") && s.sink.counts.otlp === 0),
  );
  await Promise.all(sinks.map((s) => s.close()));
  if (silent.length > 0) {
    console.error(`tracing was meant to be on but its sink received nothing: ${silent.map((s) => s.name).join(", ")}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
