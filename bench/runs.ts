// Run-engine figures for the embedded default, through the official SDK over HTTP: sequential
// runs.wait latency, concurrent stateless throughput, pickup latency, SSE custom-event throughput,
// and the in-process floor (graph.invoke with the same SQLite checkpointer). Prints a table and
// JSON; every answer is checked, and wrong answers are counted as errors.
import { Client } from "@langchain/langgraph-sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { graph as echoGraph } from "./graphs/echo.js";
import { startGantryForBench } from "./start-server.js";
import { percentile, round } from "./stats.js";

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 300);
const CONCURRENCY = 32;
const CONCURRENT_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PICKUPS = 100;
const CUSTOM_EVENTS = 5000;

const rows: Array<{ metric: string; value: number; unit: string }> = [];
let errors = 0;
const record = (metric: string, value: number, unit: string) => rows.push({ metric, value: round(value), unit });

async function inProcessFloor(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gantry-floor-"));
  const db = new Database(join(dir, "floor.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const saver = new SqliteSaver(db);
  echoGraph.checkpointer = saver;
  const times: number[] = [];
  const threadId = crypto.randomUUID();
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    const out = await echoGraph.invoke({ message: `m${i}` }, { configurable: { thread_id: threadId } });
    times.push(performance.now() - t0);
    if (out.message !== `m${i}`) errors += 1;
  }
  record("in-process graph.invoke p50 (SQLite checkpointer)", percentile(times, 50), "ms");
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

async function main() {
  const server = await startGantryForBench();
  try {
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, maxConcurrency: CONCURRENCY } });
    const thread = await client.threads.create();
    const waits: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t0 = performance.now();
      const out = (await client.runs.wait(thread.thread_id, "echo", { input: { message: `m${i}` } })) as { message?: string };
      waits.push(performance.now() - t0);
      if (out.message !== `m${i}`) errors += 1;
    }
    record(`sequential runs.wait p50 (${SEQUENTIAL} on one thread)`, percentile(waits, 50), "ms");
    record("sequential runs.wait p95", percentile(waits, 95), "ms");

    let completed = 0;
    const deadline = performance.now() + CONCURRENT_SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        let n = 0;
        while (performance.now() < deadline) {
          const message = `w${worker}-${n++}`;
          const out = (await client.runs.wait(null, "echo", { input: { message } }).catch(() => null)) as { message?: string } | null;
          if (out?.message === message) completed += 1;
          else errors += 1;
        }
      }),
    );
    record(`stateless runs.wait throughput (${CONCURRENCY} clients)`, completed / ((performance.now() - started) / 1000), "runs/s");

    const pickups: number[] = [];
    const pickupThread = await client.threads.create();
    for (let i = 0; i < PICKUPS; i++) {
      const t0 = performance.now();
      const run = await client.runs.create(pickupThread.thread_id, "echo", { input: { message: "p" } });
      for (;;) {
        const current = await client.runs.get(pickupThread.thread_id, run.run_id);
        if (current.status !== "pending") break;
      }
      pickups.push(performance.now() - t0);
      await client.runs.join(pickupThread.thread_id, run.run_id);
    }
    record("runs.create -> seen running by the client p50 (create + polling round trips)", percentile(pickups, 50), "ms");
    const queueMs = server
      .logs()
      .filter((l) => l.msg === "run finished" && l.thread_id === pickupThread.thread_id)
      .map((l) => Number(l.queue_ms));
    if (queueMs.length !== PICKUPS) errors += 1;
    record("pickup: created -> claimed by the worker p50 (server clock)", percentile(queueMs, 50), "ms");

    const t0 = performance.now();
    let firstEventMs = 0;
    let custom = 0;
    for await (const chunk of client.runs.stream(null, "custom", { input: { count: CUSTOM_EVENTS }, streamMode: "custom" })) {
      if (chunk.event === "custom") {
        if (custom === 0) firstEventMs = performance.now() - t0;
        custom += 1;
      }
    }
    const streamSeconds = (performance.now() - t0) / 1000;
    if (custom !== CUSTOM_EVENTS) errors += 1;
    record("SSE time to first custom event", firstEventMs, "ms");
    record(`SSE custom events/s (${CUSTOM_EVENTS} events)`, custom / streamSeconds, "events/s");
  } finally {
    await server.stop();
  }
  await inProcessFloor();
  console.log(`\nGantry run engine, embedded SQLite, official SDK over HTTP (errors: ${errors})`);
  console.table(rows);
  console.log(JSON.stringify({ benchmark: "runs", errors, rows }));
}

await main();
