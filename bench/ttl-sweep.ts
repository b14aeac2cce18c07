// Database size of 10,000 threads with several checkpoints each, before and after a keep_latest
// TTL sweep, on SQLite and (when DATABASE_URL or the local test database answers) PostgreSQL.
// Threads and checkpoints are written through the storage adapters and the official saver, as a
// run writes them; the sweep is the server's own pass (sweepExpiredThreads), at the default
// sweep_limit, repeated until nothing is left to claim. Prints figures; asserts nothing about time,
// but checks every thread is left with exactly one checkpoint and its latest state.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import Database from "better-sqlite3";
import pg from "pg";
import { sweepExpiredThreads } from "../src/domain/thread-removal.js";
import { createMemoryEventLog } from "../src/events/memory-event-log.js";
import type { Storage } from "../src/storage/ports.js";
import { openPostgresStorage } from "../src/storage/postgres/open-postgres.js";
import { openSqliteStorage } from "../src/storage/sqlite/open-sqlite.js";
import { percentile } from "./stats.js";

const THREADS = Number(process.env.BENCH_THREADS ?? 10_000);
const CHECKPOINTS = Number(process.env.BENCH_CHECKPOINTS ?? 6);
/** checkpointer.ttl.sweep_limit's default. */
const SWEEP_LIMIT = 1000;
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** Threads written at once. */
const CONCURRENCY = 32;
const MB = 1024 * 1024;

interface Result {
  backend: string;
  threads: number;
  checkpointsPerThread: number;
  beforeMB: number;
  afterSweepMB: number;
  afterCompactMB: number;
  sweepPasses: number;
  sweepPassP50Ms: number;
  sweepPassMaxMs: number;
  errors: number;
}

/** A checkpoint whose `messages` grows by one ~200-character message a step, as a chat's does. */
function step(threadId: string, n: number): Checkpoint {
  const messages = Array.from({ length: n + 1 }, (_, i) => ({ role: i % 2 ? "ai" : "human", content: `${threadId} message ${i} `.padEnd(200, "x") }));
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: n + 1 } };
}

async function seed(storage: Storage): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < THREADS; i += CONCURRENCY) {
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, THREADS - i) }, async () => {
        const thread = await storage.threads.create({ thread_id: crypto.randomUUID(), metadata: {}, ttl: { strategy: "keep_latest", ttl_minutes: 1 } });
        const threadId = thread!.thread_id;
        ids.push(threadId);
        let parent: string | undefined;
        for (let n = 0; n < CHECKPOINTS; n++) {
          const checkpoint = step(threadId, n);
          const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
          await storage.checkpoints.saver.put(config, checkpoint, { source: "loop", step: n, parents: {} }, { messages: n + 1 });
          parent = checkpoint.id;
        }
      }),
    );
    if (i % 2000 === 0) process.stderr.write(`  ${i}/${THREADS} threads\r`);
  }
  return ids;
}

/** Runs sweep passes until one claims nothing; returns each pass's time. */
async function sweep(storage: Storage): Promise<number[]> {
  const events = createMemoryEventLog({ retentionMs: 60_000 });
  const deps = { threads: storage.threads, checkpoints: storage.checkpoints, runs: storage.runs, events };
  const passes: number[] = [];
  // One clock for every pass, past every seeded expiry: a pruned thread's next expiry (a minute
  // after it) is beyond it, so the passes end once each thread is handled once.
  const at = new Date(Date.now() + 2 * 60_000);
  try {
    for (;;) {
      const started = performance.now();
      const handled = await sweepExpiredThreads(deps, at, SWEEP_LIMIT);
      if (handled === 0) return passes;
      passes.push(performance.now() - started);
    }
  } finally {
    events.close();
  }
}

/** Every thread has one checkpoint left, holding its last step. */
async function check(storage: Storage, ids: string[]): Promise<number> {
  let errors = 0;
  for (const threadId of ids.filter((_, i) => i % 50 === 0)) {
    const left = [];
    for await (const tuple of storage.checkpoints.saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } })) left.push(tuple);
    const messages = left[0]?.checkpoint.channel_values.messages as unknown[] | undefined;
    if (left.length !== 1 || messages?.length !== CHECKPOINTS) errors += 1;
  }
  return errors;
}

function summary(backend: string, sizes: [number, number, number], passes: number[], errors: number): Result {
  return {
    backend,
    threads: THREADS,
    checkpointsPerThread: CHECKPOINTS,
    beforeMB: +(sizes[0] / MB).toFixed(1),
    afterSweepMB: +(sizes[1] / MB).toFixed(1),
    afterCompactMB: +(sizes[2] / MB).toFixed(1),
    sweepPasses: passes.length,
    sweepPassP50Ms: Math.round(percentile(passes, 50)),
    sweepPassMaxMs: Math.round(Math.max(...passes)),
    errors,
  };
}

/** SQLite: the file after a WAL checkpoint; a sweep frees pages for reuse, VACUUM gives them back. */
async function measureSqlite(): Promise<Result> {
  const dir = await mkdtemp(join(tmpdir(), "gantry-bench-ttl-"));
  const file = join(dir, "gantry.sqlite");
  const size = async () => {
    const db = new Database(file);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    return (await stat(file)).size;
  };
  try {
    let storage = openSqliteStorage(file);
    const ids = await seed(storage);
    await storage.close();
    const before = await size();
    storage = openSqliteStorage(file);
    const passes = await sweep(storage);
    const errors = await check(storage, ids);
    await storage.close();
    const afterSweep = await size();
    const db = new Database(file);
    db.exec("VACUUM");
    db.close();
    return summary("sqlite", [before, afterSweep, await size()], passes, errors);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** PostgreSQL: every table, index and TOAST relation of the schema; after the sweep a plain VACUUM, then VACUUM FULL. */
async function measurePostgres(): Promise<Result | null> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
  } catch {
    console.error(`PostgreSQL at ${POSTGRES_URL} is not reachable; skipping it.`);
    return null;
  }
  const schema = `gantry_bench_ttl_${process.pid}`;
  const size = async () => {
    const { rows } = await admin.query<{ bytes: string }>(
      `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    return Number(rows[0]!.bytes);
  };
  const vacuum = async (full: boolean) => {
    const { rows } = await admin.query<{ relname: string }>(
      "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
      [schema],
    );
    for (const { relname } of rows) await admin.query(`VACUUM ${full ? "FULL " : ""}ANALYZE ${schema}."${relname}"`);
  };
  try {
    const storage = await openPostgresStorage({ url: POSTGRES_URL, schema, poolMax: 8 });
    try {
      const ids = await seed(storage);
      await vacuum(false);
      const before = await size();
      const passes = await sweep(storage);
      const errors = await check(storage, ids);
      await vacuum(false);
      const afterSweep = await size();
      await vacuum(true);
      return summary("postgres", [before, afterSweep, await size()], passes, errors);
    } finally {
      await storage.close();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

const results: Result[] = [await measureSqlite()];
const postgres = await measurePostgres();
if (postgres) results.push(postgres);

console.log(`\nDatabase size before and after a keep_latest sweep: ${THREADS} threads, ${CHECKPOINTS} checkpoints each, sweep_limit ${SWEEP_LIMIT}`);
console.log(
  "afterSweep: SQLite file / PostgreSQL relations after the sweep (and a plain VACUUM); afterCompact: after VACUUM (SQLite) / VACUUM FULL (PostgreSQL)",
);
console.table(results);
console.log(JSON.stringify({ benchmark: "ttl-sweep", results }));
