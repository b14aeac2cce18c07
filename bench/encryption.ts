// `npm run bench:encryption`: the cost of encryption at rest, in two parts (BENCH_PARTS, default
// "runs,stream"), each on two servers, one with LANGGRAPH_AES_KEY and one without, driven by the
// SDK in alternating rounds so machine noise falls on both:
// - runs: `gantry dev` on fresh SQLite files; sequential runs.wait on one thread (each run reads and
//   writes its checkpoints and the thread's state copy), then concurrent runs.wait on threads of
//   their own;
// - stream: `gantry serve` on PostgreSQL and Redis; a resumable stream of STREAM_EVENTS custom
//   events, each event's payload sealed into the Redis stream on the encrypted side.
// Prints per-round medians and their spread, and the load average; asserts nothing on time.
import { Client } from "@langchain/langgraph-sdk";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { keyRing } from "../src/encryption/key-ring.js";
import { sealedEventPayloads } from "../src/encryption/sealed-event-payloads.js";
import { type EventPayloadCodec, plainPayloads } from "../src/events/event-payload-codec.js";
import { processCpuMs } from "./process-cpu.js";
import { onDatabase, removeBackends, schemaUrl } from "./serve-backends.js";
import { loadFor, percentile, round } from "./stats.js";
import { startGantryForBench, startServeForBench, type BenchServer } from "./start-server.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 8;
const PARTS = new Set((process.env.BENCH_PARTS ?? "runs,stream").split(","));
const STREAM_EVENTS = Number(process.env.BENCH_STREAM_EVENTS ?? 2000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 5);
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const KEY = "bench-key-of-32-bytes-long-okay!";

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

async function runsPart(load: number[]): Promise<void> {
  const [off, on] = await Promise.all([startGantryForBench(), startGantryForBench({ LANGGRAPH_AES_KEY: KEY })]);
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
    console.log(`| encryption (gantry dev, SQLite) | runs.wait p50 ms | runs.wait p90 ms | runs/s, ${CONCURRENCY} concurrent |`);
    console.log("|---|---|---|---|");
    for (const side of sides) console.log(`| ${side.name} | ${spread(side.latencyMedians)} | ${spread(side.latencyP90s)} | ${spread(side.throughputs)} |`);
    console.log(`\nmedian of ${ROUNDS} rounds (min–max across rounds); ${SEQUENTIAL} sequential runs and ${SECONDS} s of concurrent runs per round and side`);
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}

/** Milliseconds for one resumable stream of STREAM_EVENTS custom events, checked complete and in order. */
async function oneStream(client: Client): Promise<number> {
  const t0 = performance.now();
  let received = 0;
  for await (const chunk of client.runs.stream(null, "custom", { input: { count: STREAM_EVENTS }, streamMode: "custom", streamResumable: true })) {
    if (chunk.event !== "custom") continue;
    if ((chunk.data as { i?: number }).i !== received) throw new Error(`event ${received} arrived out of order`);
    received += 1;
  }
  if (received !== STREAM_EVENTS) throw new Error(`the stream ended after ${received} of ${STREAM_EVENTS} events`);
  return performance.now() - t0;
}

/** Microseconds to write and read back one event's payload, plain and sealed: the stream's cost without the noise. */
function codecCost(): string {
  const event = { i: 0, text: "x".repeat(200) };
  const timed = (codec: EventPayloadCodec) => {
    const t0 = performance.now();
    for (let i = 0; i < 20_000; i++) codec.decode(JSON.parse(codec.encode({ ...event, i })));
    return round(((performance.now() - t0) / 20_000) * 1000, 1);
  };
  const sealed = sealedEventPayloads(keyRing({ key: KEY, name: "bench" }));
  timed(sealed);
  return `${timed(plainPayloads)} µs plain, ${timed(sealed)} µs sealed per event of ${JSON.stringify(event).length} bytes`;
}

async function streamPart(load: number[]): Promise<void> {
  const suffix = randomBytes(4).toString("hex");
  const schemas = [`gantry_bench_enc_off_${suffix}`, `gantry_bench_enc_on_${suffix}`];
  const prefixes = [`gantry-bench-enc-off-${suffix}:`, `gantry-bench-enc-on-${suffix}:`];
  for (const schema of schemas) await onDatabase(DATABASE_URL, `CREATE SCHEMA ${schema}`);
  const servers: BenchServer[] = [];
  try {
    servers.push(await startServeForBench(schemaUrl(DATABASE_URL, schemas[0]!), REDIS_URL, prefixes[0]!));
    servers.push(await startServeForBench(schemaUrl(DATABASE_URL, schemas[1]!), REDIS_URL, prefixes[1]!, undefined, { LANGGRAPH_AES_KEY: KEY }));
    const sides = servers.map((server, i) => ({
      name: i === 0 ? "off" : "on",
      server,
      client: new Client({ apiUrl: server.url }),
      ms: [] as number[],
      cpuMs: [] as number[],
    }));
    for (const side of sides) await oneStream(side.client); // warm-up, not counted
    for (let n = 0; n < STREAMS; n++) {
      for (const side of n % 2 === 0 ? sides : [...sides].reverse()) {
        const cpuBefore = processCpuMs(side.server.pid);
        side.ms.push(await oneStream(side.client));
        side.cpuMs.push(processCpuMs(side.server.pid) - cpuBefore);
      }
      load.push(loadavg()[0]!);
    }
    console.log(
      `\n| encryption (gantry serve, PostgreSQL + Redis) | stream of ${STREAM_EVENTS} custom events, ms p50 (min–max) | events/s p50 | server CPU ms per stream p50 (min–max) |`,
    );
    console.log("|---|---|---|---|");
    for (const side of sides) {
      console.log(`| ${side.name} | ${spread(side.ms)} | ${Math.round((STREAM_EVENTS / percentile(side.ms, 50)) * 1000)} | ${spread(side.cpuMs)} |`);
    }
    console.log(`\n${STREAMS} resumable streams per side, alternating`);
    console.log(`payload codec alone, in this process: ${codecCost()}`);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await removeBackends(DATABASE_URL, schemas, REDIS_URL, prefixes);
  }
}

async function main(): Promise<void> {
  const load = [loadavg()[0]!];
  if (PARTS.has("runs")) await runsPart(load);
  if (PARTS.has("stream")) await streamPart(load);
  console.log(`\nload average (1 min) ${load.map((l) => round(l, 1)).join(", ")}`);
}

await main();
