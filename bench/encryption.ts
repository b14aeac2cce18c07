// `npm run bench:encryption`: the cost of encryption at rest. Two `gantry dev` servers on fresh
// SQLite files, one with LANGGRAPH_AES_KEY, one without, driven by the SDK in alternating rounds
// so machine noise falls on both: sequential runs.wait on one thread (each run reads and writes
// its checkpoints), then concurrent runs.wait on threads of their own. Prints per-round medians
// and their spread, and the load average; asserts nothing on time.
import { Client } from "@langchain/langgraph-sdk";
import { loadavg } from "node:os";
import { loadFor, percentile, round } from "./stats.js";
import { startGantryForBench, type BenchServer } from "./start-server.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 8;

interface Side {
  name: "off" | "on";
  server: BenchServer;
  client: Client;
  latencyMedians: number[];
  latencyP90s: number[];
  throughputs: number[];
}

async function sequential(side: Side): Promise<void> {
  const { thread_id } = await side.client.threads.create();
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const start = performance.now();
    await side.client.runs.wait(thread_id, "echo", { input: { message: `secret message ${i}` } });
    times.push(performance.now() - start);
  }
  side.latencyMedians.push(percentile(times, 50));
  side.latencyP90s.push(percentile(times, 90));
}

async function concurrent(side: Side): Promise<void> {
  const threads = await Promise.all(Array.from({ length: CONCURRENCY }, () => side.client.threads.create()));
  let completed = 0;
  const seconds = await loadFor(SECONDS, CONCURRENCY, async (worker, n) => {
    await side.client.runs.wait(threads[worker]!.thread_id, "echo", { input: { message: `w${worker}-${n}` } });
    completed += 1;
  });
  side.throughputs.push(completed / seconds);
}

const spread = (values: number[]) => `${round(percentile(values, 50), 1)} (${round(Math.min(...values), 1)}–${round(Math.max(...values), 1)})`;

async function main(): Promise<void> {
  const load = [loadavg()[0]!];
  const [off, on] = await Promise.all([startGantryForBench(), startGantryForBench({ LANGGRAPH_AES_KEY: "bench-key-of-32-bytes-long-okay!" })]);
  const sides: Side[] = [
    { name: "off", server: off, client: new Client({ apiUrl: off.url }), latencyMedians: [], latencyP90s: [], throughputs: [] },
    { name: "on", server: on, client: new Client({ apiUrl: on.url }), latencyMedians: [], latencyP90s: [], throughputs: [] },
  ];
  try {
    for (const side of sides) await sequential(side); // warm-up, not counted
    for (const side of sides) side.latencyMedians.length = side.latencyP90s.length = 0;
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      const order = round_ % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) await sequential(side);
      for (const side of order) await concurrent(side);
      load.push(loadavg()[0]!);
    }
    console.log(`| encryption | runs.wait p50 ms | runs.wait p90 ms | runs/s, ${CONCURRENCY} concurrent |`);
    console.log("|---|---|---|---|");
    for (const side of sides) console.log(`| ${side.name} | ${spread(side.latencyMedians)} | ${spread(side.latencyP90s)} | ${spread(side.throughputs)} |`);
    console.log(
      `\nmedian of ${ROUNDS} rounds (min–max across rounds); ${SEQUENTIAL} sequential runs and ${SECONDS} s of concurrent runs per round and side; load average (1 min) ${load.map((l) => round(l, 1)).join(", ")}`,
    );
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}

await main();
