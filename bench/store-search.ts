// Semantic store search (a query vector, limit 10) at 10,000 and 100,000 items of 256 dimensions,
// on SQLite and (when DATABASE_URL or the local test database answers) PostgreSQL, through the
// storage adapters. Embeddings are a deterministic stand-in for a model: each document is its
// topic's vector plus its own, both from a seeded hash (BENCH_STORE_VECTORS=random drops the topic:
// unstructured vectors, the worst case for an approximate index), and a query is one document's
// vector plus noise. Beside the latency, recall@10 against a brute-force ranking of the same
// vectors in JavaScript; "first" is the first search of the kind. On SQLite the vector index is
// built twice, in the background, while a whole-store search runs every BUILD_PAUSE_MS: first with a
// quarter of the items loaded (no index yet: those searches scan exactly), then after loading the
// rest (fourfold growth: a rebuild, the old index answers meanwhile); a store whose quarter is too
// small for the index gets the first build only. For each build the bench
// reports how long it took, how fast the searches meanwhile were, and the longest turn of the event
// loop between searches (one slice of the build, or a wait of it). Prints figures; asserts nothing
// about time.
import Database from "better-sqlite3";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { load as loadSqliteVec } from "sqlite-vec";
import { parseStoreFilter } from "../src/domain/store-filter.js";
import { openPostgresStorage } from "../src/storage/postgres/open-postgres.js";
import { openSqliteStorage } from "../src/storage/sqlite/open-sqlite.js";
import { INDEX_MIN_VECTORS } from "../src/storage/sqlite/store-vector-index.js";
import type { StoreRepo } from "../src/storage/store-ports.js";
import { percentile, round } from "./stats.js";

const DIMS = 256;
const K = 10;
const SIZES = (process.env.BENCH_STORE_SIZES ?? "10000,100000").split(",").map(Number);
const BACKENDS = (process.env.BENCH_STORE_BACKENDS ?? "sqlite,postgres").split(",");
const SEARCHES = Number(process.env.BENCH_STORE_SEARCHES ?? 20);
const TOPICS = process.env.BENCH_STORE_VECTORS === "random" ? 0 : 97;
/** One namespace per user under "bench": the narrow search reads one user's 1%. */
const USERS = 100;
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const NOW = new Date("2031-05-04T10:00:00.000Z");
/** Searches during an index build come this far apart, so the build has turns of the event loop to run in. */
const BUILD_PAUSE_MS = 250;

/** FNV-1a of the text seeds a xorshift stream of numbers in [-1, 1). */
function hashVector(text: string): number[] {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return Array.from({ length: DIMS }, () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 31 - 1;
  });
}

const mix = (a: number[], b: number[], weight: number) => a.map((x, i) => x + weight * b[i]!);
/** Documents of one topic score about 0.6 with each other and about 0 with the rest. */
const docVector = (i: number) => (TOPICS === 0 ? hashVector(`document ${i}`) : mix(hashVector(`topic ${i % TOPICS}`), hashVector(`document ${i}`), 0.8));
/** Query n asks about document n * 7919 in other words: that document's vector plus noise. */
const queryVector = (n: number) => mix(docVector(((n + 2) * 7919) % 100_000), hashVector(`question ${n}`), 0.5);
const user = (i: number) => `user-${i % USERS}`;

interface Search {
  name: string;
  prefix: string[];
  /** Which of the items lie under the prefix. */
  holds: (i: number) => boolean;
}
const SEARCH_KINDS: Search[] = [
  { name: "whole store", prefix: ["bench"], holds: () => true },
  { name: "one user (1%)", prefix: ["bench", "user-7"], holds: (i) => i % USERS === 7 },
];

interface Row {
  backend: string;
  items: number;
  search: string;
  n: number;
  first_ms: number;
  p50_ms: number;
  p90_ms: number;
  /** SQLite only: PostgreSQL's work happens in the server, not in this process. */
  cpu_p50_ms: number | null;
  recall: number;
}

/** Unit vectors of every item as float32, as the stores hold them, for the brute-force ranking. */
function unitVectors(items: number): Float32Array[] {
  return Array.from({ length: items }, (_, i) => {
    const v = Float32Array.from(docVector(i));
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return v.map((x) => x / norm);
  });
}

/** The keys of the true top K under the search's prefix (newer items first among equal scores, as the port orders them). */
function bruteForceTopK(vectors: Float32Array[], kind: Search, query: number[]): string[] {
  const q = Float32Array.from(query);
  const scored: Array<{ i: number; score: number }> = [];
  for (let i = 0; i < vectors.length; i++) {
    if (!kind.holds(i)) continue;
    const v = vectors[i]!;
    let dot = 0;
    for (let d = 0; d < DIMS; d++) dot += v[d]! * q[d]!;
    scored.push({ i, score: dot });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, K)
    .map(({ i }) => `doc-${i}`);
}

async function measure(backend: string, items: number, store: StoreRepo): Promise<Row[]> {
  const vectors = unitVectors(items);
  const rows: Row[] = [];
  const search = (prefix: string[], vector: number[]) =>
    store.search({ namespacePrefix: prefix, filter: parseStoreFilter({}), limit: K, offset: 0, refreshTtl: false, queryVector: vector }, NOW);
  for (const kind of SEARCH_KINDS) {
    const started = performance.now();
    await search(kind.prefix, queryVector(-1));
    const first = performance.now() - started;
    const wall: number[] = [];
    const cpu: number[] = [];
    let found = 0;
    for (let n = 0; n < SEARCHES; n++) {
      const vector = queryVector(n);
      const cpuBefore = process.cpuUsage();
      const t = performance.now();
      const page = await search(kind.prefix, vector);
      wall.push(performance.now() - t);
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000);
      const truth = new Set(bruteForceTopK(vectors, kind, vector));
      found += page.filter((item) => truth.has(item.key)).length;
    }
    rows.push({
      backend,
      items,
      search: kind.name,
      n: SEARCHES,
      first_ms: round(first, 1),
      p50_ms: round(percentile(wall, 50), 1),
      p90_ms: round(percentile(wall, 90), 1),
      cpu_p50_ms: backend === "sqlite" ? round(percentile(cpu, 50), 1) : null,
      recall: round(found / (SEARCHES * K), 3),
    });
    process.stderr.write(`  ${backend} ${items} ${kind.name} done\n`);
  }
  return rows;
}

interface BuildRow {
  items: number;
  build: "first" | "fourfold";
  build_ms: number;
  /** The search that starts the build. */
  first_ms: number;
  searches: number;
  search_p50_ms: number;
  search_max_ms: number;
  /** The longest turn of the event loop between two searches: one slice of the build. */
  longest_turn_ms: number;
}

/** Starts the index's build with a whole-store search, then searches now and then until it is live for all `items`. */
async function buildWhileSearching(file: string, items: number, build: BuildRow["build"], store: StoreRepo): Promise<BuildRow> {
  const db = new Database(file, { readonly: true });
  const live = () =>
    ((db.prepare("SELECT trained_on FROM store_vector_counts WHERE dims = ?").pluck().get(DIMS) as number | undefined) ?? 0) >= items &&
    db.prepare("SELECT count(*) FROM store_vector_centroids WHERE state <> 1").pluck().get() === 0;
  const search = (n: number) =>
    store.search({ namespacePrefix: ["bench"], filter: parseStoreFilter({}), limit: K, offset: 0, refreshTtl: false, queryVector: queryVector(n) }, NOW);
  try {
    const started = performance.now();
    await search(-1);
    const first = performance.now() - started;
    const wall: number[] = [];
    let longestTurn = 0;
    for (let n = 0; !live(); n++) {
      const t = performance.now();
      await search(n);
      wall.push(performance.now() - t);
      const until = performance.now() + BUILD_PAUSE_MS;
      for (let last = performance.now(); last < until; ) {
        await new Promise((resolve) => setImmediate(resolve));
        const now = performance.now();
        longestTurn = Math.max(longestTurn, now - last);
        last = now;
      }
    }
    return {
      items,
      build,
      build_ms: round(performance.now() - started, 0),
      first_ms: round(first, 1),
      searches: wall.length,
      search_p50_ms: round(percentile(wall, 50), 1),
      search_max_ms: round(Math.max(...wall), 1),
      longest_turn_ms: round(longestTurn, 1),
    };
  } finally {
    db.close();
  }
}

/** Items and their vectors in one transaction, through the tables (and the index's triggers), not the adapter. */
function loadSqlite(file: string, from: number, to: number): void {
  const db = new Database(file);
  loadSqliteVec(db);
  const item = db.prepare(`INSERT INTO store_items (namespace, key, labels, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const vector = db.prepare(`INSERT INTO store_vectors (namespace, key, field, vector) VALUES (?, ?, '$', ?)`);
  db.transaction(() => {
    for (let i = from; i < to; i++) {
      const ns = `bench.${user(i)}`;
      const stamp = new Date(NOW.getTime() - i * 1000).toISOString();
      item.run(ns, `doc-${i}`, JSON.stringify(["bench", user(i)]), JSON.stringify({ text: `document ${i}`, n: i }), stamp, stamp);
      vector.run(ns, `doc-${i}`, Buffer.from(Float32Array.from(docVector(i)).buffer));
    }
  })();
  db.close();
}

async function benchSqlite(items: number): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), "gantry-bench-store-"));
  try {
    const file = join(dir, "gantry.sqlite");
    await openSqliteStorage(file).close();
    // A store too small for the index at a quarter of its items gets only the first build.
    const quarter = Math.floor(items / 4) >= INDEX_MIN_VECTORS ? Math.floor(items / 4) : 0;
    if (quarter > 0) {
      loadSqlite(file, 0, quarter);
      const small = openSqliteStorage(file);
      try {
        builds.push(await buildWhileSearching(file, quarter, "first", small.store));
      } finally {
        await small.close();
      }
    }
    loadSqlite(file, quarter, items);
    const storage = openSqliteStorage(file);
    try {
      builds.push(await buildWhileSearching(file, items, quarter > 0 ? "fourfold" : "first", storage.store));
      return await measure("sqlite", items, storage.store);
    } finally {
      await storage.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function loadPostgres(pool: pg.Pool, items: number): Promise<void> {
  const BATCH = 1000;
  for (let from = 0; from < items; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, items - from) }, (_, j) => {
      const i = from + j;
      const v = docVector(i);
      return {
        ns: `bench.${user(i)}`,
        key: `doc-${i}`,
        value: { text: `document ${i}`, n: i },
        at: new Date(NOW.getTime() - i * 1000).toISOString(),
        v,
        norm: Math.sqrt(v.reduce((s, x) => s + x * x, 0)),
      };
    });
    await pool.query(
      `WITH b AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS b(ns text, key text, value jsonb, at timestamptz, v jsonb, norm float8)),
       items AS (INSERT INTO store_items (namespace, key, value, created_at, updated_at) SELECT ns, key, value, at, at FROM b)
       INSERT INTO store_vectors (namespace, key, field, vector, norm) SELECT ns, key, '$', ARRAY(SELECT jsonb_array_elements_text(v)::real), norm FROM b`,
      [JSON.stringify(batch)],
    );
  }
  await pool.query("ANALYZE");
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
      return await measure("postgres", items, storage.store);
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
const builds: BuildRow[] = [];
for (const items of SIZES) {
  if (BACKENDS.includes("sqlite")) results.push(...(await benchSqlite(items)));
  if (BACKENDS.includes("postgres")) results.push(...((await benchPostgres(items)) ?? []));
}
console.log(
  `\nSemantic store search, ${DIMS} dimensions, limit ${K}, ${TOPICS === 0 ? "random vectors" : `${TOPICS} topics`}, ${SEARCHES} searches each; load ${loadavg()[0]!.toFixed(1)}`,
);
console.table(results);
if (builds.length > 0) {
  console.log(`SQLite vector index builds, a whole-store search every ${BUILD_PAUSE_MS} ms meanwhile`);
  console.table(builds);
}
console.log(JSON.stringify({ benchmark: "store-search", dims: DIMS, vectors: TOPICS === 0 ? "random" : "topics", results, builds }));
