// Semantic store search (a query vector, limit 10) at 10,000 and 100,000 items of 256 dimensions,
// on SQLite and (when DATABASE_URL or the local test database answers) PostgreSQL, through the
// storage adapters. Embeddings come from a seeded hash of each text, so every run sees the same
// vectors. "before" is the scan the adapters ran until migration 0006 (JSON arrays through
// json_each on SQLite, float8[] through unnest on PostgreSQL), kept here only to compare; each of
// its answers is checked against the adapter's. Prints figures; asserts nothing about time.
import Database from "better-sqlite3";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { parseStoreFilter } from "../src/domain/store-filter.js";
import { openPostgresStorage } from "../src/storage/postgres/open-postgres.js";
import { openSqliteStorage } from "../src/storage/sqlite/open-sqlite.js";
import type { StoreRepo, StoreSearchItem } from "../src/storage/store-ports.js";
import { percentile, round } from "./stats.js";

const DIMS = 256;
const SIZES = (process.env.BENCH_STORE_SIZES ?? "10000,100000").split(",").map(Number);
const BACKENDS = (process.env.BENCH_STORE_BACKENDS ?? "sqlite,postgres").split(",");
/** One namespace per user under "bench": the narrow search reads one user's 1%. */
const USERS = 100;
const SEARCHES = { after: 20, before: 3 };
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/**
 * The old SQLite scan joins two json_each tables on the element index, 256 x 256 steps per
 * vector: 2,000 items took 26-35 s a search (load ~20), so it only runs where it scans at most this many.
 */
const OLD_SQLITE_ITEMS_MAX = 2_000;
const NOW = new Date("2031-05-04T10:00:00.000Z");

/** FNV-1a of the text seeds a xorshift stream: a deterministic stand-in for an embedding model. */
function embed(text: string): number[] {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return Array.from({ length: DIMS }, () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 31 - 1;
  });
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const docText = (i: number) => `document ${i} about topic ${i % 97}`;
const user = (i: number) => `user-${i % USERS}`;

interface Search {
  name: string;
  prefix: string[];
}
const SEARCH_KINDS: Search[] = [
  { name: "whole store", prefix: ["bench"] },
  { name: "one user (1%)", prefix: ["bench", "user-7"] },
];

interface Row {
  backend: string;
  items: number;
  search: string;
  path: "before" | "after";
  n: number;
  p50_ms: number;
  p90_ms: number;
  min_ms: number;
  max_ms: number;
  /** SQLite only: PostgreSQL's work happens in the server, not in this process. */
  cpu_p50_ms: number | null;
}

interface Times {
  wall: number[];
  /** This process's CPU time per call: on SQLite the search itself, and far steadier than wall time on a busy machine. */
  cpu: number[];
}

/** Times `count` calls; a first, untimed call warms caches (and, for the old scan, checks its answer). */
async function time(count: number, query: (n: number) => Promise<unknown>, warmUp: () => Promise<unknown>): Promise<Times> {
  await warmUp();
  const times: Times = { wall: [], cpu: [] };
  for (let n = 0; n < count; n++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await query(n);
    times.wall.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    times.cpu.push((used.user + used.system) / 1000);
  }
  return times;
}

function row(backend: string, items: number, search: string, path: Row["path"], { wall: times, cpu }: Times): Row {
  return {
    backend,
    items,
    search,
    path,
    n: times.length,
    p50_ms: round(percentile(times, 50), 1),
    p90_ms: round(percentile(times, 90), 1),
    min_ms: round(Math.min(...times), 1),
    max_ms: round(Math.max(...times), 1),
    cpu_p50_ms: backend === "sqlite" ? round(percentile(cpu, 50), 1) : null,
  };
}

/** The same queries for every backend and path: query n is the text of document n*7919. */
const queryVector = (n: number) => embed(`${docText(((n + 2) * 7919) % 1_000_000)} question`);

function checkSame(backend: string, before: Array<{ key: string }>, after: StoreSearchItem[]): void {
  const a = before.map((r) => r.key).join(",");
  const b = after.map((r) => r.key).join(",");
  if (a !== b) throw new Error(`${backend}: the old scan answered ${a}, the adapter ${b}`);
}

async function measure(
  backend: string,
  items: number,
  store: StoreRepo,
  before: (prefix: string[], vector: number[]) => Promise<Array<{ key: string }>>,
  beforeItemsMax = Infinity,
): Promise<Row[]> {
  const rows: Row[] = [];
  const search = (prefix: string[], vector: number[]) =>
    store.search({ namespacePrefix: prefix, filter: parseStoreFilter({}), limit: 10, offset: 0, refreshTtl: false, queryVector: vector }, NOW);
  for (const kind of SEARCH_KINDS) {
    const after = await time(
      SEARCHES.after,
      (n) => search(kind.prefix, queryVector(n)),
      () => search(kind.prefix, queryVector(-1)),
    );
    rows.push(row(backend, items, kind.name, "after", after));
    const scanned = kind.prefix.length === 1 ? items : items / USERS;
    if (scanned > beforeItemsMax) {
      process.stderr.write(`  ${backend} ${items} ${kind.name}: old scan skipped (${scanned} items; it is quadratic in dims)\n`);
      continue;
    }
    const checked = async () => checkSame(backend, await before(kind.prefix, queryVector(-1)), await search(kind.prefix, queryVector(-1)));
    rows.push(row(backend, items, kind.name, "before", await time(SEARCHES.before, (n) => before(kind.prefix, queryVector(n)), checked)));
    process.stderr.write(`  ${backend} ${items} ${kind.name} done\n`);
  }
  return rows;
}

/** Items and their vectors in one transaction; both the adapter's table and the old layout's. */
function loadSqlite(file: string, items: number): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE bench_old_vectors (namespace TEXT, key TEXT, field TEXT, vector TEXT, norm REAL, PRIMARY KEY (namespace, key, field))`);
  const item = db.prepare(`INSERT INTO store_items (namespace, key, labels, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const vector = db.prepare(`INSERT INTO store_vectors (namespace, key, field, vector) VALUES (?, ?, '$', ?)`);
  const old = db.prepare(`INSERT INTO bench_old_vectors (namespace, key, field, vector, norm) VALUES (?, ?, '$', ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < items; i++) {
      const ns = `bench.${user(i)}`;
      const v = embed(docText(i));
      const stamp = new Date(NOW.getTime() - i * 1000).toISOString();
      item.run(ns, `doc-${i}`, JSON.stringify(["bench", user(i)]), JSON.stringify({ text: docText(i), n: i }), stamp, stamp);
      vector.run(ns, `doc-${i}`, Buffer.from(Float32Array.from(v).buffer));
      old.run(ns, `doc-${i}`, JSON.stringify(v), norm(v));
    }
  })();
  db.close();
}

/** The SQLite search before 0006 (namespace prefix and liveness only: the bench uses no filter). */
function oldSqliteSearch(file: string) {
  const db = new Database(file, { readonly: true });
  const statement = db.prepare(`SELECT key, (SELECT MAX(CASE WHEN v.norm = 0 THEN 0.0 ELSE
      (SELECT SUM(a.value * q.value) FROM json_each(v.vector) AS a JOIN json_each(?) AS q ON q.key = a.key) / (v.norm * ?) END)
    FROM bench_old_vectors AS v WHERE v.namespace = i.namespace AND v.key = i.key) AS score
    FROM store_items AS i
    WHERE (expires_at IS NULL OR expires_at > ?) AND (namespace = ? OR (namespace >= ? AND namespace < ?))
    ORDER BY score DESC NULLS LAST, updated_at DESC, namespace, key LIMIT 10`);
  return {
    search: async (prefix: string[], vector: number[]) => {
      const path = prefix.join(".");
      return statement.all(JSON.stringify(vector), norm(vector), NOW.toISOString(), path, `${path}.`, `${path}/`) as Array<{ key: string }>;
    },
    close: () => db.close(),
  };
}

async function benchSqlite(items: number): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), "gantry-bench-store-"));
  try {
    const file = join(dir, "gantry.sqlite");
    await openSqliteStorage(file).close();
    loadSqlite(file, items);
    const storage = openSqliteStorage(file);
    const old = oldSqliteSearch(file);
    try {
      return await measure("sqlite", items, storage.store, old.search, OLD_SQLITE_ITEMS_MAX);
    } finally {
      old.close();
      await storage.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function loadPostgres(pool: pg.Pool, items: number): Promise<void> {
  await pool.query(
    `CREATE TABLE bench_old_vectors (namespace TEXT COLLATE "C", key TEXT COLLATE "C", field TEXT, vector DOUBLE PRECISION[], norm DOUBLE PRECISION, PRIMARY KEY (namespace, key, field))`,
  );
  const BATCH = 1000;
  for (let from = 0; from < items; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, items - from) }, (_, j) => {
      const i = from + j;
      const v = embed(docText(i));
      return {
        ns: `bench.${user(i)}`,
        key: `doc-${i}`,
        value: { text: docText(i), n: i },
        at: new Date(NOW.getTime() - i * 1000).toISOString(),
        v,
        norm: norm(v),
      };
    });
    await pool.query(
      `WITH b AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS b(ns text, key text, value jsonb, at timestamptz, v jsonb, norm float8)),
       items AS (INSERT INTO store_items (namespace, key, value, created_at, updated_at) SELECT ns, key, value, at, at FROM b),
       vectors AS (INSERT INTO store_vectors (namespace, key, field, vector, norm) SELECT ns, key, '$', ARRAY(SELECT jsonb_array_elements_text(v)::real), norm FROM b)
       INSERT INTO bench_old_vectors SELECT ns, key, '$', ARRAY(SELECT jsonb_array_elements_text(v)::float8), norm FROM b`,
      [JSON.stringify(batch)],
    );
  }
  await pool.query("ANALYZE");
}

/** The PostgreSQL search before 0006. */
function oldPostgresSearch(pool: pg.Pool) {
  return async (prefix: string[], vector: number[]) => {
    const path = prefix.join(".");
    const { rows } = await pool.query<{ key: string }>(
      `SELECT key, (SELECT MAX(CASE WHEN v.norm = 0 THEN 0 ELSE
          (SELECT SUM(a * b) FROM unnest(v.vector, $1::float8[]) AS t(a, b)) / (v.norm * $2::float8) END)
        FROM bench_old_vectors AS v WHERE v.namespace = i.namespace AND v.key = i.key) AS score
       FROM store_items AS i
       WHERE (expires_at IS NULL OR expires_at > $3) AND (namespace = $4 OR (namespace >= $5 AND namespace < $6))
       ORDER BY score DESC NULLS LAST, updated_at DESC, namespace, key LIMIT 10`,
      [vector, norm(vector), NOW, path, `${path}.`, `${path}/`],
    );
    return rows;
  };
}

async function benchPostgres(items: number): Promise<Row[] | null> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
  } catch {
    console.error(`PostgreSQL at ${POSTGRES_URL} is not reachable; skipping it.`);
    return null;
  }
  const schema = `gantry_bench_store_${process.pid}`;
  try {
    const storage = await openPostgresStorage({ url: POSTGRES_URL, schema });
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}`, max: 2 });
    try {
      await loadPostgres(pool, items);
      return await measure("postgres", items, storage.store, oldPostgresSearch(pool));
    } finally {
      await pool.end();
      await storage.close();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

const results: Row[] = [];
for (const items of SIZES) {
  if (BACKENDS.includes("sqlite")) results.push(...(await benchSqlite(items)));
  if (BACKENDS.includes("postgres")) results.push(...((await benchPostgres(items)) ?? []));
}
console.log(
  `\nSemantic store search, ${DIMS} dimensions, limit 10; after: ${SEARCHES.after} searches, before: ${SEARCHES.before}; load ${loadavg()[0]!.toFixed(1)}`,
);
console.table(results);
console.log(JSON.stringify({ benchmark: "store-search", dims: DIMS, results }));
