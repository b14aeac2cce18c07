// `gantry serve` scale-out: throughput of 32 concurrent stateless runs.wait clients against one
// replica, then against two replicas on the same PostgreSQL and Redis (clients split evenly between
// them), and the ratio. Prints a table and a JSON line. Needs PostgreSQL (DATABASE_URL, default the
// test database) and Redis (REDIS_URL); uses a fresh schema and key prefix, and removes them.
import { Client } from "@langchain/langgraph-sdk";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import pg from "pg";
import { deleteKeysWithPrefix } from "../src/events/redis-keys.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const CONCURRENCY = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_RUNS = 64;

interface Replica {
  url: string;
  stop(): Promise<void>;
}

async function startReplica(databaseUrl: string, prefix: string): Promise<Replica> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, "bin/gantry.js"), "serve", "--config", join(ROOT, "bench/langgraph.json"), "--port", "0", "--host", "127.0.0.1"],
    { env: { ...process.env, LOG_JSON: "1", DATABASE_URL: databaseUrl, REDIS_URL, REDIS_KEY_PREFIX: prefix }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const url = await new Promise<string>((resolveUrl, reject) => {
    const deadline = setTimeout(() => reject(new Error(`gantry serve did not start in 60 s:\n${output}`)), 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) {
        clearTimeout(deadline);
        resolveUrl((JSON.parse(line) as { url: string }).url);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`gantry serve exited with ${code}:\n${output}`)));
  });
  return {
    url,
    async stop() {
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs/s of CONCURRENCY clients looping on stateless runs.wait, spread over the replicas. */
async function throughput(replicas: Replica[]): Promise<{ perSecond: number; errors: number }> {
  const clients = replicas.map((r) => new Client({ apiUrl: r.url, callerOptions: { maxRetries: 0, maxConcurrency: CONCURRENCY } }));
  await Promise.all(
    clients.flatMap((c) => Array.from({ length: WARMUP_RUNS / clients.length }, () => c.runs.wait(null, "echo", { input: { message: "warm" } }))),
  );
  let completed = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      const client = clients[worker % clients.length]!;
      let n = 0;
      while (performance.now() < deadline) {
        const message = `w${worker}-${n++}`;
        const out = (await client.runs.wait(null, "echo", { input: { message } }).catch(() => null)) as { message?: string } | null;
        if (out?.message === message) completed += 1;
        else errors += 1;
      }
    }),
  );
  return { perSecond: completed / ((performance.now() - started) / 1000), errors };
}

async function onDatabase(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const suffix = randomBytes(4).toString("hex");
  const schema = `gantry_bench_${suffix}`;
  const prefix = `gantry-bench-${suffix}:`;
  await onDatabase(`CREATE SCHEMA ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const replicas: Replica[] = [];
  try {
    replicas.push(await startReplica(url.toString(), prefix));
    const one = await throughput(replicas);
    replicas.push(await startReplica(url.toString(), prefix));
    const two = await throughput(replicas);
    const rows = [
      { metric: `stateless runs.wait, ${CONCURRENCY} clients, 1 replica`, value: Math.round(one.perSecond), unit: "runs/s" },
      { metric: `stateless runs.wait, ${CONCURRENCY} clients, 2 replicas`, value: Math.round(two.perSecond), unit: "runs/s" },
      { metric: "ratio 2 replicas / 1 replica", value: Math.round((two.perSecond / one.perSecond) * 100) / 100, unit: "x" },
    ];
    const errors = one.errors + two.errors;
    console.log(`\ngantry serve on PostgreSQL + Redis, ${cpus().length} cores, ${SECONDS} s per measurement (errors: ${errors})`);
    console.table(rows);
    console.log(JSON.stringify({ benchmark: "serve", cores: cpus().length, errors, rows }));
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await onDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await deleteKeys(prefix);
  }
}

await main();
