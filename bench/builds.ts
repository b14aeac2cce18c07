// `npm run bench:builds -- DIR_A DIR_B`: the sequential runs.wait latency of two builds of Gantry,
// measured side by side. Each directory is a source tree with its dependencies installed (a git
// worktree of the baseline and one of the change, say; a symlinked node_modules will do). Both
// `gantry dev` servers run at once, warm up alike, and take turns in rounds, so the machine's drift
// falls on both: on a small VM the same build's p50 moves by a millisecond within an hour, more than
// most changes are worth, and two figures taken minutes apart compare nothing. Every answer is
// checked; a wrong one fails the command.
import { Client } from "@langchain/langgraph-sdk";
import { resolve } from "node:path";
import { ErrorTally, timedRounds, warmUpEach } from "./bench-target.js";
import { startGantryForBench, type BenchServer } from "./start-server.js";
import { percentile } from "./stats.js";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ROUNDS = env("BENCH_ROUNDS", 30);
const PER_ROUND = env("BENCH_PER_ROUND", 150);
const WARMUP_SECONDS = env("BENCH_WARMUP_SECONDS", 8);

async function main(): Promise<number> {
  const dirs = process.argv.slice(2).map((dir) => resolve(dir));
  if (dirs.length < 2) {
    console.error("usage: npm run bench:builds -- DIR_A DIR_B [DIR_C …]  (source trees with node_modules, e.g. git worktrees)");
    return 2;
  }
  const errors = new ErrorTally();
  const servers: BenchServer[] = [];
  try {
    process.stderr.write(`starting ${dirs.length} builds\n`);
    servers.push(...(await Promise.all(dirs.map((dir) => startGantryForBench({}, dir)))));
    const builds = await Promise.all(
      servers.map(async (server, i) => {
        const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
        return { name: dirs[i]!, client, threadId: (await client.threads.create()).thread_id, times: [] as number[] };
      }),
    );
    const wait = async (build: (typeof builds)[number], message: string) => {
      const out = (await build.client.runs.wait(build.threadId, "echo", { input: { message } })) as { message?: string };
      if (out.message !== message) errors.add(build.name, "runs.wait", `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
    };
    process.stderr.write(`warm-up: ${WARMUP_SECONDS} s of runs.wait on each build\n`);
    await warmUpEach(builds, WARMUP_SECONDS, wait);
    process.stderr.write(`${ROUNDS} rounds of ${PER_ROUND} sequential waits per build\n`);
    await timedRounds(builds, ROUNDS, PER_ROUND, errors, wait);
    console.log("\nsequential runs.wait, one-node echo, ms (side by side, alternating rounds)\n");
    console.log("| build | p50 | p90 | p99 | samples |\n|---|--:|--:|--:|--:|");
    for (const build of builds) {
      const [p50, p90, p99] = [50, 90, 99].map((p) => percentile(build.times, p).toFixed(2));
      console.log(`| ${build.name} | ${p50} | ${p90} | ${p99} | ${build.times.length} |`);
    }
    const base = percentile(builds[0]!.times, 50);
    for (const build of builds.slice(1)) console.log(`\n${build.name}: p50 ${(percentile(build.times, 50) - base).toFixed(2)} ms against ${builds[0]!.name}`);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  console.log(`\nerrors: ${errors.total()}${errors.examples.length ? `\n${errors.examples.join("\n")}` : ""}`);
  return errors.total() > 0 ? 1 : 0;
}

process.exitCode = await main();
