// StoreRepo on SQLite. Namespaces are '.'-joined paths (see 0003_store.sql): a prefix is a range on
// the primary key, '*' patterns match labels by position in the JSON `labels` column. Filters and
// similarity scores are computed in the query, scores by sqlite-vec over float32 blobs (see
// 0006_store_vector_blobs.sql), over the IVF index's nearest lists when a large prefix is searched
// without filters (store-vector-index.ts); TTL refreshes are written in the same transaction as the
// read that asked for them.
import type Database from "better-sqlite3";
import type { Json, JsonObject } from "../records.js";
import type {
  NamespaceListing,
  NamespacePattern,
  StoreComparison,
  StoreFilter,
  StoreItem,
  StorePut,
  StoreRepo,
  StoreSearch,
  StoreSearchItem,
} from "../store-ports.js";
import { expiresAt } from "../ttl.js";
import { hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { authFilterSql, jsonContains, type SqlFragment } from "./json-filter.js";
import { parseJson, statementCache } from "./sql-helpers.js";
import { INDEX_MIN_VECTORS, storeVectorIndex } from "./store-vector-index.js";

const COLUMNS = "namespace, key, value, created_at, updated_at, ttl_minutes";
const LIVE = "(expires_at IS NULL OR expires_at > ?)";

/**
 * What a store auth filter is matched against, as the reference server does: the item's value
 * with its namespace (a list of labels) and key set over it, so `{namespace: {$contains: user}}`
 * works. A namespace is listed when one of its items matches.
 */
const authDocument = (table: string) => `json_set(${table}.value, '$.namespace', json(${table}.labels), '$.key', ${table}.key)`;

interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | null;
  score?: number | null;
  /** Index searches only: how many live candidates the probed lists gave. */
  candidates?: number;
}

function rowToItem(row: ItemRow): StoreItem {
  return {
    namespace: row.namespace.split("."),
    key: row.key,
    value: parseJson(row.value),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Items under `prefix` by whole labels; the empty prefix is everything. */
function prefixRange(prefix: string[], column = "namespace"): SqlFragment {
  if (prefix.length === 0) return { sql: "1 = 1", params: [] };
  const path = prefix.join(".");
  return { sql: `(${column} = ? OR (${column} >= ? AND ${column} < ?))`, params: [path, `${path}.`, `${path}/`] };
}

function patternConditions(pattern: NamespacePattern, fromEnd: boolean): SqlFragment[] {
  const parts: SqlFragment[] = [];
  const firstWildcard = pattern.indexOf("*");
  if (!fromEnd && firstWildcard === -1) return [prefixRange(pattern)];
  if (!fromEnd && firstWildcard > 0) {
    // The literal leading labels still narrow the scan to a key range.
    const lead = pattern.slice(0, firstWildcard).join(".");
    parts.push({ sql: "namespace >= ? AND namespace < ?", params: [`${lead}.`, `${lead}/`] });
  }
  parts.push({ sql: "json_array_length(labels) >= ?", params: [pattern.length] });
  pattern.forEach((label, i) => {
    if (label === "*" || (!fromEnd && i < firstWildcard)) return;
    const position = fromEnd ? `$[#-${pattern.length - i}]` : `$[${i}]`;
    parts.push({ sql: "json_extract(labels, ?) = ?", params: [position, label] });
  });
  return parts;
}

/** A JSON path member list, quoted so dots, spaces and quotes in keys stay one member. */
function jsonPath(path: string[]): string {
  return "$" + path.map((key) => `."${key.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join("");
}

/** `{a: {b: operand}}` for path [a, b]: a containment document holding one value at the path. */
function nest(path: string[], operand: Json): JsonObject {
  return path.reduceRight<Json>((inner, key) => ({ [key]: inner }), operand) as JsonObject;
}

const ORDERING_SQL = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;

function comparison(c: StoreComparison): SqlFragment {
  if (c.op === "$ne") {
    // A missing key is "not equal" too; containment of a missing path is NULL, hence the COALESCE.
    const equal = jsonContains("i.value", nest(c.path, c.operand));
    return { sql: `NOT COALESCE(${equal.sql}, 0)`, params: equal.params };
  }
  const path = jsonPath(c.path);
  const type = typeof c.operand === "number" ? "IN ('integer', 'real')" : "= 'text'";
  return {
    sql: `(json_type(i.value, ?) ${type} AND json_extract(i.value, ?) ${ORDERING_SQL[c.op]} ?)`,
    params: [path, path, c.operand],
  };
}

/** Conditions on the value column of `store_items AS i` (qualified: json_each has a `value` column too). */
function filterConditions(filter: StoreFilter): SqlFragment[] {
  const parts = filter.comparisons.map(comparison);
  if (Object.keys(filter.contains).length > 0) parts.push(jsonContains("i.value", filter.contains));
  return parts;
}

function where(parts: SqlFragment[]): SqlFragment {
  return { sql: parts.map((p) => p.sql).join(" AND "), params: parts.flatMap((p) => p.params) };
}

/**
 * The item's best cosine similarity to the query vector over its stored vectors of the query's
 * length; NULL without any. sqlite-vec answers NULL for a zero vector, which scores 0 as before.
 * Runs only for rows that passed the WHERE clause, so filters narrow the scan before any scoring.
 */
const SCORE = `(SELECT MAX(COALESCE(1.0 - vec_distance_cosine(v.vector, ?), 0.0))
  FROM store_vectors AS v WHERE v.namespace = i.namespace AND v.key = i.key AND length(v.vector) = ?)`;

/** sqlite-vec's vector format: little-endian float32s. */
function float32Blob(vector: number[]): Buffer {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
}

/**
 * A ranked page from the index: the best `want` items of the probed lists under the prefix, then
 * their rows, live ones only. `candidates` tells the caller whether the lists held enough.
 */
const INDEXED = (prefix: string) => `WITH probed AS (
    SELECT cell FROM store_vector_centroids WHERE dims = ? AND state = 1 ORDER BY vec_distance_cosine(centroid, ?) LIMIT ?),
  scored AS (
    SELECT c.namespace, c.key, MAX(COALESCE(1.0 - vec_distance_cosine(c.vector, ?), 0.0)) AS score
    FROM probed AS p JOIN store_vector_cells AS c ON c.id >= p.cell * 4294967296 AND c.id < (p.cell + 1) * 4294967296
    WHERE ${prefix}
    GROUP BY c.namespace, c.key ORDER BY score DESC LIMIT ?)
  SELECT ${COLUMNS}, s.score AS score, count(*) OVER () AS candidates
  FROM scored AS s JOIN store_items AS i USING (namespace, key)
  WHERE ${LIVE}
  ORDER BY s.score DESC, updated_at DESC, namespace, key
  LIMIT ? OFFSET ?`;

/** `onProblem` hears of a vector index build that failed (searches scan meanwhile; the next one retries). */
export function sqliteStore(db: Database.Database, options: { onProblem?: (err: unknown) => void } = {}): StoreRepo {
  const sql = statementCache(db);
  const vectorIndex = storeVectorIndex(db, options);
  const upsert = sql(
    `INSERT INTO store_items (namespace, key, labels, value, created_at, updated_at, ttl_minutes, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (namespace, key) DO UPDATE SET
       value = excluded.value,
       created_at = CASE WHEN store_items.expires_at <= excluded.updated_at THEN excluded.created_at ELSE store_items.created_at END,
       updated_at = excluded.updated_at,
       ttl_minutes = excluded.ttl_minutes,
       expires_at = excluded.expires_at`,
  );
  const dropVectors = sql("DELETE FROM store_vectors WHERE namespace = ? AND key = ?");
  const insertVector = sql("INSERT INTO store_vectors (namespace, key, field, vector) VALUES (?, ?, ?, ?)");
  const getRow = sql(`SELECT ${COLUMNS} FROM store_items WHERE namespace = ? AND key = ? AND ${LIVE}`);
  /** Whether the stored item matches the auth filter (callers know the item exists). */
  const visible = (path: string, key: string, auth: AuthFilter): boolean => {
    const condition = authFilterSql(authDocument("store_items"), auth);
    return sql(`SELECT 1 FROM store_items WHERE namespace = ? AND key = ? AND ${condition.sql}`).get(path, key, ...condition.params) !== undefined;
  };
  const refresh = sql("UPDATE store_items SET expires_at = ? WHERE namespace = ? AND key = ?");

  const refreshRows = (rows: ItemRow[], now: Date) => {
    for (const row of rows) {
      if (row.ttl_minutes !== null) refresh.run(expiresAt(now, row.ttl_minutes), row.namespace, row.key);
    }
  };

  const put = db.transaction((item: StorePut, now: Date, auth: AuthFilter | undefined): "written" | "hidden" => {
    const path = item.namespace.join(".");
    const stamp = now.toISOString();
    if (hasAuthFilter(auth) && getRow.get(path, item.key, stamp) && !visible(path, item.key, auth)) return "hidden";
    const expires = item.ttl_minutes === null ? null : expiresAt(now, item.ttl_minutes);
    upsert.run(path, item.key, JSON.stringify(item.namespace), JSON.stringify(item.value), stamp, stamp, item.ttl_minutes, expires);
    dropVectors.run(path, item.key);
    for (const { field, vector } of item.vectors) insertVector.run(path, item.key, field, float32Blob(vector));
    return "written";
  });

  const get = db.transaction((namespace: string[], key: string, refreshTtl: boolean, now: Date, auth: AuthFilter | undefined): StoreItem | "hidden" | null => {
    const row = getRow.get(namespace.join("."), key, now.toISOString()) as ItemRow | undefined;
    if (!row) return null;
    if (hasAuthFilter(auth) && !visible(row.namespace, row.key, auth)) return "hidden";
    if (refreshTtl) refreshRows([row], now);
    return rowToItem(row);
  });

  /**
   * Whether the prefix holds enough indexed vectors for the index to beat an exact scan. While a
   * generation is being built or retired its copies count too: a prefix of half the threshold may
   * then go through the index, which still answers only when its lists hold offset+limit items.
   */
  const largePrefix = (prefix: SqlFragment): boolean =>
    (sql(`SELECT count(*) FROM (SELECT 1 FROM store_vector_cells WHERE ${prefix.sql} LIMIT ?)`)
      .pluck()
      .get(...prefix.params, INDEX_MIN_VECTORS) as number) >= INDEX_MIN_VECTORS;

  /** The page from the index, or null when it cannot answer it as the exact scan would (too few candidates). */
  const indexed = (query: StoreSearch, queryBlob: Buffer, lists: number, now: Date): ItemRow[] | null => {
    if (!largePrefix(prefixRange(query.namespacePrefix))) return null;
    // Unary + keeps SQLite from answering the prefix through the cells' namespace index, which
    // would walk the whole prefix for every probed list instead of reading the lists' row ranges.
    const inLists = prefixRange(query.namespacePrefix, "+c.namespace");
    const want = query.offset + query.limit;
    const rows = sql(INDEXED(inLists.sql)).all(
      queryBlob.length / 4,
      queryBlob,
      lists,
      queryBlob,
      ...inLists.params,
      want,
      now.toISOString(),
      query.limit,
      query.offset,
    ) as ItemRow[];
    return rows.length > 0 && rows[0]!.candidates! >= want ? rows : null;
  };

  const exact = (query: StoreSearch, queryBlob: Buffer | undefined, now: Date): ItemRow[] => {
    const conditions = where([
      { sql: LIVE, params: [now.toISOString()] },
      prefixRange(query.namespacePrefix),
      ...filterConditions(query.filter),
      ...(hasAuthFilter(query.auth) ? [authFilterSql(authDocument("i"), query.auth)] : []),
    ]);
    const ranked = queryBlob !== undefined;
    const scoreParams = queryBlob ? [queryBlob, queryBlob.length] : [];
    return sql(
      `SELECT ${COLUMNS}${ranked ? `, ${SCORE} AS score` : ""} FROM store_items AS i
       WHERE ${conditions.sql}
       ORDER BY ${ranked ? "score DESC NULLS LAST, " : ""}updated_at DESC, namespace, key
       LIMIT ? OFFSET ?`,
    ).all(...scoreParams, ...conditions.params, query.limit, query.offset) as ItemRow[];
  };

  const search = db.transaction((query: StoreSearch, lists: number, now: Date): StoreSearchItem[] => {
    const ranked = query.queryVector !== undefined;
    const queryBlob = ranked ? float32Blob(query.queryVector!) : undefined;
    const fromIndex = queryBlob && lists > 0 ? indexed(query, queryBlob, lists, now) : null;
    const rows = fromIndex ?? exact(query, queryBlob, now);
    if (query.refreshTtl) refreshRows(rows, now);
    return rows.map((row) => (ranked ? { ...rowToItem(row), score: row.score ?? null } : rowToItem(row)));
  });

  return {
    async put(item, now, auth) {
      return put.immediate(item, now, auth);
    },
    async get(namespace, key, options, now) {
      return options.refreshTtl ? get.immediate(namespace, key, true, now, options.auth) : get(namespace, key, false, now, options.auth);
    },
    async delete(namespace, key, auth) {
      const path = namespace.join(".");
      if (!hasAuthFilter(auth)) {
        sql("DELETE FROM store_items WHERE namespace = ? AND key = ?").run(path, key);
        return "deleted";
      }
      const condition = authFilterSql(authDocument("store_items"), auth);
      const deleted = sql(`DELETE FROM store_items WHERE namespace = ? AND key = ? AND ${condition.sql}`).run(path, key, ...condition.params).changes;
      // Nothing deleted although the item is there: it is someone else's.
      return deleted === 0 && sql("SELECT 1 FROM store_items WHERE namespace = ? AND key = ?").get(path, key) ? "hidden" : "deleted";
    },
    async search(query, now) {
      // Filters and auth filters could leave too few of the index's candidates: those scan exactly.
      const unfiltered = query.filter.comparisons.length === 0 && Object.keys(query.filter.contains).length === 0 && !hasAuthFilter(query.auth);
      // Never waits for the index: a build it starts runs in the background (store-vector-index.ts).
      const lists = query.queryVector !== undefined && unfiltered ? vectorIndex.prepare(query.queryVector.length) : 0;
      return query.refreshTtl ? search.immediate(query, lists, now) : search(query, lists, now);
    },
    async listNamespaces(listing: NamespaceListing, now) {
      const conditions = where([
        { sql: LIVE, params: [now.toISOString()] },
        ...(listing.prefix ? patternConditions(listing.prefix, false) : []),
        ...(listing.suffix ? patternConditions(listing.suffix, true) : []),
        ...(hasAuthFilter(listing.auth) ? [authFilterSql(authDocument("store_items"), listing.auth)] : []),
      ]);
      const truncated = listing.maxDepth !== undefined;
      const ns = truncated ? "(SELECT group_concat(l.value, '.' ORDER BY l.key) FROM json_each(store_items.labels) AS l WHERE l.key < ?)" : "namespace";
      const rows = sql(`SELECT DISTINCT ${ns} AS ns FROM store_items WHERE ${conditions.sql} ORDER BY ns LIMIT ? OFFSET ?`).all(
        ...(truncated ? [listing.maxDepth] : []),
        ...conditions.params,
        listing.limit,
        listing.offset,
      ) as Array<{ ns: string }>;
      return rows.map((row) => row.ns.split("."));
    },
    async sweepExpired(now, limit) {
      return sql(
        `DELETE FROM store_items WHERE rowid IN (
           SELECT rowid FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?)`,
      ).run(now.toISOString(), limit).changes;
    },
  };
}
