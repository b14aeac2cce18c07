// Start-up time of the example project (examples/langgraph.json): from spawning `gantry dev`, `npm
// start` (the same through npm) and `gantry serve` (when PostgreSQL and Redis answer) to the first
// 200 from /ok, and to the graphs'
// first run answered, and the CPU time the server process had used when /ok first answered (user +
// system, all its threads; from /proc, so Linux only): on a machine others load, wall time grows
// with the queue for the cores while CPU time stays close to what a quiet machine shows. Each
// command starts BENCH_STARTS times (default 5) on a fresh data directory (dev) or database schema
// (serve); medians, min and max are printed with the machine's load.
//
//   npm run bench:startup
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:startup
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin/gantry.js");
const CONFIG = join(ROOT, "examples/langgraph.json");
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const DEADLINE_MS = 120_000;

interface Start {
  /** Spawn to the first 200 from /ok. */
  okMs: number;
  /** Spawn to a stateless run of the example graph answered. */
  runMs: number;
  /** CPU time (user + system) of the server process when /ok first answered; undefined off Linux. */
  cpuMs: number | undefined;
}

const CLOCK_TICKS_PER_S = process.platform === "linux" ? Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) : 0;

/** utime + stime of a live process, from /proc/<pid>/stat (fields 14 and 15, after the parenthesised name). */
function cpuMsOf(pid: number): number | undefined {
  if (!CLOCK_TICKS_PER_S) return undefined;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS_PER_S;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

async function answers(url: string, init?: RequestInit): Promise<boolean> {
  try {
    const response = await fetch(url, init);
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Polls every 5 ms until `check` holds; the deadline only guards against a server that never starts. */
async function until(check: () => Promise<boolean>, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    const failure = exited();
    if (failure) throw new Error(failure);
    if (Date.now() > deadline) throw new Error(`no answer within ${DEADLINE_MS} ms`);
    await new Promise((tick) => setTimeout(tick, 5));
  }
}

/** `npm start` is `gantry dev` on the example project run through npm, as README's set-up has it. */
type Command = "dev" | "serve" | "npm start";

async function startOnce(command: Command, env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "gantry-bench-startup-"));
  const flags = ["--port", String(port), "--host", "127.0.0.1", ...(command === "serve" ? [] : ["--data-dir", dir])];
  const [file, args] =
    command === "npm start" ? ["npm", ["start", "--silent", "--", ...flags]] : [process.execPath, [BIN, command, "--config", CONFIG, ...flags]];
  const started = performance.now();
  const child = spawn(file, args, { cwd: ROOT, env: { ...process.env, LOG_JSON: "true", ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = () => (child.exitCode !== null ? `gantry ${command} exited ${child.exitCode}: ${stderr.trim()}` : undefined);
  try {
    const url = `http://127.0.0.1:${port}`;
    await until(() => answers(`${url}/ok`), exited);
    const okMs = performance.now() - started;
    // npm's own process is not the server: its CPU time would leave the server's out.
    const cpuMs = command === "npm start" ? undefined : cpuMsOf(child.pid!);
    const run = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "agent", input: {} }) };
    await until(() => answers(`${url}/runs/wait`, run), exited);
    return { okMs, cpuMs, runMs: performance.now() - started };
  } finally {
    const stopped = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await stopped;
    rmSync(dir, { recursive: true, force: true });
  }
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `median ${Math.round(median)} ms (min ${Math.round(sorted[0]!)}, max ${Math.round(sorted.at(-1)!)})`;
}

async function serviceUp(): Promise<boolean> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
  } catch {
    return false;
  }
  const { Redis } = await import("ioredis");
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function measure(command: Command, env: Record<string, string>): Promise<void> {
  // One unmeasured start first: tsx's transform cache is filled once per machine, not per start.
  await startOnce(command, env);
  const starts: Start[] = [];
  for (let i = 0; i < STARTS; i++) starts.push(await startOnce(command, env));
  const cpu = starts.flatMap((s) => (s.cpuMs === undefined ? [] : [s.cpuMs]));
  console.log(
    `${command === "npm start" ? command : `gantry ${command}`}: /ok answered ${summary(starts.map((s) => s.okMs))}; first run answered ${summary(starts.map((s) => s.runMs))}` +
      (cpu.length > 0 ? `; CPU time at /ok ${summary(cpu)}` : ""),
  );
}

console.log(`node ${process.version}, ${STARTS} starts each, 1-min load before: ${loadavg()[0]!.toFixed(2)}`);
await measure("dev", {});
await measure("npm start", {});
if (await serviceUp()) await measure("serve", { DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX: `bench-startup-${process.pid}:` });
else console.log(`gantry serve: skipped, PostgreSQL (${DATABASE_URL}) or Redis (${REDIS_URL}) does not answer`);
console.log(`1-min load after: ${loadavg()[0]!.toFixed(2)}`);
