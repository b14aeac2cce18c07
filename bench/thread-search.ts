// Thread search by metadata at 20,000 threads, through the official SDK, on SQLite and (when
// DATABASE_URL or the local test database answers) PostgreSQL. Prints figures; asserts nothing
// about time, but every answer is checked for correctness and errors are counted.
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { startGantryForBench } from "./start-server.js";
import { percentile } from "./stats.js";

const THREADS = Number(process.env.BENCH_THREADS ?? 20_000);
const SEARCHES = 200;
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

interface Result {
  backend: string;
  createPerSecond: number;
  searchP50Ms: number;
  searchP95Ms: number;
  countP50Ms: number;
  errors: number;
}

async function measure(backend: string, env: Record<string, string>): Promise<Result> {
  const server = await startGantryForBench(env);
  try {
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, maxConcurrency: 16 } });
    let errors = 0;
    const started = performance.now();
    const BATCH = 64;
    for (let i = 0; i < THREADS; i += BATCH) {
      await Promise.all(
        Array.from({ length: Math.min(BATCH, THREADS - i) }, (_, j) =>
          client.threads.create({ metadata: { user: `user-${(i + j) % 1000}`, n: i + j, tier: (i + j) % 2 === 0 ? "free" : "pro" } }).catch(() => {
            errors += 1;
          }),
        ),
      );
      if (i % 5000 === 0) process.stderr.write(`  ${backend}: ${i}/${THREADS} threads\r`);
    }
    const createPerSecond = THREADS / ((performance.now() - started) / 1000);
    const searchTimes: number[] = [];
    const countTimes: number[] = [];
    for (let i = 0; i < SEARCHES; i++) {
      const user = `user-${(i * 37) % 1000}`;
      const t0 = performance.now();
      const found = await client.threads.search({ metadata: { user }, limit: 10 });
      searchTimes.push(performance.now() - t0);
      if (found.length !== Math.min(10, THREADS / 1000) || found.some((t) => t.metadata?.user !== user)) errors += 1;
      const t1 = performance.now();
      const count = await client.threads.count({ metadata: { user } });
      countTimes.push(performance.now() - t1);
      if (count !== THREADS / 1000) errors += 1;
    }
    return {
      backend,
      createPerSecond: Math.round(createPerSecond),
      searchP50Ms: +percentile(searchTimes, 50).toFixed(2),
      searchP95Ms: +percentile(searchTimes, 95).toFixed(2),
      countP50Ms: +percentile(countTimes, 50).toFixed(2),
      errors,
    };
  } finally {
    await server.stop();
  }
}

async function withFreshPostgresSchema<T>(run: (url: string) => Promise<T>): Promise<T | null> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
  } catch {
    console.error(`PostgreSQL at ${POSTGRES_URL} is not reachable; skipping it.`);
    return null;
  }
  const schema = `gantry_bench_${process.pid}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const url = new URL(POSTGRES_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    return await run(url.toString());
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

const results: Result[] = [await measure("sqlite", {})];
const postgres = await withFreshPostgresSchema((url) => measure("postgres", { DATABASE_URL: url }));
if (postgres) results.push(postgres);

console.log(`\nThread search by metadata, ${THREADS} threads, ${SEARCHES} searches (limit 10), official SDK over HTTP`);
console.table(results);
console.log(JSON.stringify({ benchmark: "thread-search", threads: THREADS, results }));
