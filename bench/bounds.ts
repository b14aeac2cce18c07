// `npm run bench:bounds`: where a sequential runs.wait's time goes, against what bounds it. Four
// callers answer the one-node echo graph in turns, in the same rounds: Gantry (`gantry dev`), a
// bare graph server (node:http around graph.invoke, bare-graph-server.ts), the bare-HTTP floor, and
// graph.invoke in this process; all with Gantry's SQLite checkpointer, all warmed up alike. Gantry
// minus the bare server is what durable runs cost (run records, queue, event log, validation); the
// bare server minus invoke is what HTTP and the machine add to any server. Every answer is checked.
import { Client } from "@langchain/langgraph-sdk";
import { ErrorTally, timedRounds, warmUpEach } from "./bench-target.js";
import { openInProcessEcho } from "./in-process-floor.js";
import { startBareGraphServerForBench, startGantryForBench, startHttpFloorForBench, type BenchServer } from "./start-server.js";
import { percentile } from "./stats.js";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ROUNDS = env("BENCH_ROUNDS", 20);
const PER_ROUND = env("BENCH_PER_ROUND", 150);
const WARMUP_SECONDS = env("BENCH_WARMUP_SECONDS", 8);

interface Caller {
  name: string;
  call(message: string): Promise<{ message?: string }>;
  times: number[];
}

async function main(): Promise<number> {
  const errors = new ErrorTally();
  const servers: BenchServer[] = [];
  const invoke = openInProcessEcho();
  try {
    process.stderr.write("starting gantry, the bare graph server and the HTTP floor\n");
    const [gantry, bare, floor] = await Promise.all([startGantryForBench(), startBareGraphServerForBench(), startHttpFloorForBench()]);
    servers.push(gantry, bare, floor);
    const over = async (name: string, server: BenchServer): Promise<Caller> => {
      const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
      const threadId = (await client.threads.create()).thread_id;
      return { name, times: [], call: (message) => client.runs.wait(threadId, "echo", { input: { message } }) as Promise<{ message?: string }> };
    };
    const callers: Caller[] = [
      await over("gantry runs.wait", gantry),
      await over("bare graph server", bare),
      await over("bare-HTTP floor", floor),
      { name: "in-process graph.invoke", times: [], call: (message) => invoke.invoke(message) },
    ];
    // The floor answers one constant message.
    const expected = (caller: Caller, message: string) => (caller.name === "bare-HTTP floor" ? "floor" : message);
    const once = async (caller: Caller, message: string) => {
      const out = await caller.call(message);
      if (out.message !== expected(caller, message)) errors.add(caller.name, "runs.wait", `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
    };
    process.stderr.write(`warm-up: ${WARMUP_SECONDS} s of sequential calls on each\n`);
    await warmUpEach(callers, WARMUP_SECONDS, once);
    process.stderr.write(`${ROUNDS} rounds of ${PER_ROUND} sequential calls each\n`);
    await timedRounds(callers, ROUNDS, PER_ROUND, errors, once);
    const p50 = (name: string) => percentile(callers.find((c) => c.name === name)!.times, 50);
    console.log("\nsequential one-node echo, ms (alternating rounds)\n");
    console.log("| caller | p50 | p90 | p99 | samples |\n|---|--:|--:|--:|--:|");
    for (const caller of callers) {
      const [a, b, c] = [50, 90, 99].map((p) => percentile(caller.times, p).toFixed(2));
      console.log(`| ${caller.name} | ${a} | ${b} | ${c} | ${caller.times.length} |`);
    }
    const gap = (a: string, b: string) => (p50(a) - p50(b)).toFixed(2);
    console.log(`\ngantry runs.wait - in-process invoke: ${gap("gantry runs.wait", "in-process graph.invoke")} ms (the #4 target: at most 2)`);
    console.log(`bare graph server - in-process invoke: ${gap("bare graph server", "in-process graph.invoke")} ms (HTTP and the machine, for any server)`);
    console.log(`gantry runs.wait - bare graph server: ${gap("gantry runs.wait", "bare graph server")} ms (durable runs)`);
  } finally {
    await Promise.all([...servers.map((server) => server.stop()), invoke.close()]);
  }
  console.log(`\nerrors: ${errors.total()}${errors.examples.length ? `\n${errors.examples.join("\n")}` : ""}`);
  return errors.total() > 0 ? 1 : 0;
}

process.exitCode = await main();
