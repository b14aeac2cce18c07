// StoreRepo on PostgreSQL. Namespaces are '.'-joined paths in the "C" collation (see
// 0003_store.sql): a prefix is a range on the primary key, '*' patterns match the generated
// `labels` array by position. Filters are jsonb containment plus typed comparisons, similarity is
// an exact scan of the real[] vectors under the prefix whose items the filters leave
// (0006_store_vector_reals.sql), and a read that refreshes TTLs does so in the same statement.
import { createHash } from "node:crypto";
import type { Pool, QueryResult, QueryResultRow } from "pg";
import type { Json, JsonObject } from "../records.js";
import type { NamespaceListing, NamespacePattern, StoreComparison, StoreFilter, StoreItem, StoreRepo, StoreSearch, StoreSearchItem } from "../store-ports.js";
import { expiresAt } from "../ttl.js";
import { hasAuthFilter } from "../auth-filter.js";
import { authFilterSql, jsonParam, param, queryFailure, run, transaction } from "./sql-helpers.js";

const COLUMNS = "namespace, key, value, created_at, updated_at";
/** Milliseconds, like every timestamp Gantry writes from JavaScript. */
const REFRESHED_EXPIRY = "date_trunc('milliseconds', $1::timestamptz + s.ttl_minutes * interval '1 minute')";

interface ItemRow {
  namespace: string;
  key: string;
  value: JsonObject;
  created_at: Date;
  updated_at: Date;
  score?: number | null;
}

function rowToItem(row: ItemRow): StoreItem {
  return {
    namespace: row.namespace.split("."),
    key: row.key,
    value: row.value,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const live = (values: unknown[], now: Date) => `(expires_at IS NULL OR expires_at > ${param(values, now)})`;

/** Items under `prefix` by whole labels; the empty prefix is everything. */
function prefixRange(values: unknown[], prefix: string[]): string {
  if (prefix.length === 0) return "TRUE";
  const path = prefix.join(".");
  return `(namespace = ${param(values, path)} OR (namespace >= ${param(values, `${path}.`)} AND namespace < ${param(values, `${path}/`)}))`;
}

function patternConditions(values: unknown[], pattern: NamespacePattern, fromEnd: boolean): string[] {
  const firstWildcard = pattern.indexOf("*");
  if (!fromEnd && firstWildcard === -1) return [prefixRange(values, pattern)];
  const parts: string[] = [];
  if (!fromEnd && firstWildcard > 0) {
    // The literal leading labels still narrow the scan to a key range.
    const lead = pattern.slice(0, firstWildcard).join(".");
    parts.push(`namespace >= ${param(values, `${lead}.`)} AND namespace < ${param(values, `${lead}/`)}`);
  }
  parts.push(`cardinality(labels) >= ${param(values, pattern.length)}`);
  pattern.forEach((label, i) => {
    if (label === "*" || (!fromEnd && i < firstWildcard)) return;
    const index = fromEnd ? `cardinality(labels) - ${pattern.length - i - 1}` : String(i + 1);
    parts.push(`labels[${index}] = ${param(values, label)}`);
  });
  return parts;
}

function nest(path: string[], operand: Json): JsonObject {
  return path.reduceRight<Json>((inner, key) => ({ [key]: inner }), operand) as JsonObject;
}

const ORDERING_SQL = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;

function comparison(values: unknown[], c: StoreComparison): string {
  // value is never NULL, so containment is true or false and a missing key counts as "not equal".
  if (c.op === "$ne") return `NOT (value @> ${jsonParam(values, nest(c.path, c.operand))})`;
  const path = `${param(values, c.path)}::text[]`;
  // CASE, not AND: PostgreSQL may evaluate AND's operands in any order, and the cast fails on a non-number.
  if (typeof c.operand === "number") {
    return `CASE WHEN jsonb_typeof(value #> ${path}) = 'number' THEN (value #> ${path})::numeric ${ORDERING_SQL[c.op]} ${param(values, c.operand)}::numeric ELSE FALSE END`;
  }
  return `CASE WHEN jsonb_typeof(value #> ${path}) = 'string' THEN (value #>> ${path}) ${ORDERING_SQL[c.op]} (${param(values, c.operand)}::text COLLATE "C") ELSE FALSE END`;
}

function filterConditions(values: unknown[], filter: StoreFilter): string[] {
  const parts = filter.comparisons.map((c) => comparison(values, c));
  if (Object.keys(filter.contains).length > 0) parts.push(`value @> ${jsonParam(values, filter.contains)}`);
  return parts;
}

/**
 * Each item's best cosine similarity to the query vector over its stored vectors of the query's
 * length, as rows (namespace, key, score); items without such a vector have no row. PostgreSQL has
 * no dot product for arrays: the products are written out, one per dimension with the query's
 * number as a parameter, which runs about seven times faster than SUM over unnest(vector, query)
 * (docs/benchmarks.md). Float8 arithmetic keeps the sum exact enough to rank like a float64 scan.
 * The vectors are read by the prefix range of their own primary key, and `itemConditions` (filters,
 * auth, expiry; null when there are none to apply) are checked before any product is computed.
 * OFFSET 0 keeps the scores computed in the scan, so the grouping sorts small rows, not vectors.
 */
function scores(values: unknown[], query: number[], prefix: string[], itemConditions: string[] | null): string {
  const dot = query.map((x, i) => `v.vector[${i + 1}] * ${param(values, x)}::float8`).join(" + ");
  const queryNorm = param(values, norm(query) || 1);
  const items = itemConditions
    ? ` AND EXISTS (SELECT 1 FROM store_items AS f WHERE f.namespace = v.namespace AND f.key = v.key AND ${itemConditions.join(" AND ")})`
    : "";
  return `SELECT namespace, key, MAX(score) AS score FROM (
      SELECT v.namespace, v.key,
        CASE WHEN cardinality(v.vector) <> ${param(values, query.length)} THEN NULL WHEN v.norm = 0 THEN 0 ELSE (${dot}) / (v.norm * ${queryNorm}::float8) END AS score
      FROM store_vectors AS v
      WHERE ${prefixRange(values, prefix)}${items}
      OFFSET 0) AS scored
    GROUP BY namespace, key`;
}

/**
 * Runs a ranked search as a statement prepared once per connection, in one round trip. Its text
 * holds one product per dimension: parsing and planning it cost more than scoring a small
 * namespace. Its name is the text's hash, so each distinct shape (dimensions, filters) is prepared
 * once. JIT compilation, which over a large namespace spent more time compiling the products (on
 * every execution) than it saved (docs/benchmarks.md), is off on every pooled connection
 * (open-postgres.ts).
 */
async function runRanked<R extends QueryResultRow>(pool: Pool, text: string, values: unknown[]): Promise<QueryResult<R>> {
  const name = `gantry_store_search_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
  try {
    return await pool.query<R>({ name, text, values });
  } catch (err) {
    throw queryFailure(pool, err);
  }
}

function norm(vector: number[]): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

/**
 * What a store auth filter is matched against, as the reference server does: the item's value
 * with its namespace (a list of labels) and key set over it, so `{namespace: {$contains: user}}`
 * works. A namespace is listed when one of its items matches. Search and listings name no table:
 * search's conditions are also checked inside the scores' subquery, on the item there.
 */
const authDocument = (table?: string) => {
  const t = table ? `${table}.` : "";
  return `(${t}value || jsonb_build_object('namespace', to_jsonb(${t}labels), 'key', ${t}key))`;
};

export function postgresStore(pool: Pool): StoreRepo {
  return {
    async put(item, now, auth) {
      const path = item.namespace.join(".");
      const expires = item.ttl_minutes === null ? null : expiresAt(now, item.ttl_minutes);
      const values: unknown[] = [path, item.key, JSON.stringify(item.value), now, item.ttl_minutes, expires];
      // An existing live item is replaced only when it matches the auth filter; an expired one counts as absent.
      const onlyVisible = hasAuthFilter(auth)
        ? `WHERE (store_items.expires_at IS NOT NULL AND store_items.expires_at <= $4) OR ${authFilterSql(authDocument("store_items"), auth, values)}`
        : "";
      return transaction(pool, async (client) => {
        const written = await run(
          client,
          `INSERT INTO store_items (namespace, key, value, created_at, updated_at, ttl_minutes, expires_at)
           VALUES ($1, $2, $3::jsonb, $4, $4, $5, $6)
           ON CONFLICT (namespace, key) DO UPDATE SET
             value = excluded.value,
             created_at = CASE WHEN store_items.expires_at <= excluded.updated_at THEN excluded.created_at ELSE store_items.created_at END,
             updated_at = excluded.updated_at,
             ttl_minutes = excluded.ttl_minutes,
             expires_at = excluded.expires_at
           ${onlyVisible}`,
          values,
        );
        if (written.rowCount === 0) return "hidden";
        await run(client, "DELETE FROM store_vectors WHERE namespace = $1 AND key = $2", [path, item.key]);
        if (item.vectors.length > 0) {
          await run(
            client,
            `INSERT INTO store_vectors (namespace, key, field, vector, norm)
             SELECT $1, $2, v.field, ARRAY(SELECT jsonb_array_elements_text(v.vector)::real), v.norm
             FROM jsonb_to_recordset($3::jsonb) AS v(field text, vector jsonb, norm float8)`,
            [path, item.key, JSON.stringify(item.vectors.map(({ field, vector }) => ({ field, vector, norm: norm(vector) })))],
          );
        }
        return "written";
      });
    },

    async get(namespace, key, options, now) {
      const values: unknown[] = [now, namespace.join("."), key];
      const visible = hasAuthFilter(options.auth) ? authFilterSql(authDocument("store_items"), options.auth, values) : "TRUE";
      const found = `SELECT ${COLUMNS}, ${visible} AS visible FROM store_items
        WHERE namespace = $2 AND key = $3 AND (expires_at IS NULL OR expires_at > $1)`;
      const { rows } = await run<ItemRow & { visible: boolean }>(
        pool,
        options.refreshTtl
          ? `WITH found AS (${found}),
             refreshed AS (
               UPDATE store_items AS s SET expires_at = ${REFRESHED_EXPIRY}
               FROM found WHERE s.namespace = found.namespace AND s.key = found.key AND s.ttl_minutes IS NOT NULL AND found.visible
             )
             SELECT * FROM found`
          : found,
        values,
      );
      const row = rows[0];
      if (!row) return null;
      return row.visible ? rowToItem(row) : "hidden";
    },

    async delete(namespace, key, auth) {
      const values: unknown[] = [namespace.join("."), key];
      if (!hasAuthFilter(auth)) {
        await run(pool, "DELETE FROM store_items WHERE namespace = $1 AND key = $2", values);
        return "deleted";
      }
      const visible = authFilterSql(authDocument("store_items"), auth, values);
      const { rows } = await run<{ visible: boolean }>(
        pool,
        `WITH target AS (SELECT namespace, key, ${visible} AS visible FROM store_items WHERE namespace = $1 AND key = $2),
         deleted AS (DELETE FROM store_items AS s USING target WHERE s.namespace = target.namespace AND s.key = target.key AND target.visible)
         SELECT visible FROM target`,
        values,
      );
      return rows[0] && !rows[0].visible ? "hidden" : "deleted";
    },

    async search(query: StoreSearch, now) {
      // $1 is now, for the live check and the refreshed expiry alike.
      const values: unknown[] = [now];
      const ranked = query.queryVector !== undefined;
      const itemConditions = [
        ...filterConditions(values, query.filter),
        ...(hasAuthFilter(query.auth) ? [authFilterSql(authDocument(), query.auth, values)] : []),
      ];
      const live = "(expires_at IS NULL OR expires_at > $1)";
      const conditions = [live, prefixRange(values, query.namespacePrefix), ...itemConditions];
      // USING merges the join columns, so the conditions' bare `namespace` and the page's columns stay the item's.
      const scored = ranked
        ? `, s.score FROM store_items AS i LEFT JOIN (${scores(values, query.queryVector!, query.namespacePrefix, itemConditions.length > 0 ? [live, ...itemConditions] : null)}) AS s USING (namespace, key)`
        : " FROM store_items AS i";
      const page = `SELECT ${COLUMNS}${scored}
        WHERE ${conditions.join(" AND ")}
        ORDER BY ${ranked ? "score DESC NULLS LAST, " : ""}updated_at DESC, namespace, key
        LIMIT ${param(values, query.limit)} OFFSET ${param(values, query.offset)}`;
      const text = query.refreshTtl
        ? `WITH page AS (${page}),
           refreshed AS (
             UPDATE store_items AS s SET expires_at = ${REFRESHED_EXPIRY}
             FROM page WHERE s.namespace = page.namespace AND s.key = page.key AND s.ttl_minutes IS NOT NULL
           )
           SELECT * FROM page ORDER BY ${ranked ? "score DESC NULLS LAST, " : ""}updated_at DESC, namespace, key`
        : page;
      const { rows } = ranked ? await runRanked<ItemRow>(pool, text, values) : await run<ItemRow>(pool, text, values);
      return rows.map((row): StoreSearchItem => (ranked ? { ...rowToItem(row), score: row.score ?? null } : rowToItem(row)));
    },

    async listNamespaces(listing: NamespaceListing, now) {
      const values: unknown[] = [];
      const truncated = listing.maxDepth !== undefined;
      const ns = truncated ? `array_to_string(labels[1:${param(values, listing.maxDepth)}::int], '.')` : "namespace";
      const conditions = [
        live(values, now),
        ...(listing.prefix ? patternConditions(values, listing.prefix, false) : []),
        ...(listing.suffix ? patternConditions(values, listing.suffix, true) : []),
        ...(hasAuthFilter(listing.auth) ? [authFilterSql(authDocument(), listing.auth, values)] : []),
      ];
      const { rows } = await run<{ ns: string }>(
        pool,
        `SELECT DISTINCT ${ns} COLLATE "C" AS ns FROM store_items WHERE ${conditions.join(" AND ")}
         ORDER BY ns LIMIT ${param(values, listing.limit)} OFFSET ${param(values, listing.offset)}`,
        values,
      );
      return rows.map((row) => row.ns.split("."));
    },

    async sweepExpired(now, limit) {
      // SKIP LOCKED lets sweepers on several replicas share the work instead of queueing on each other.
      const result = await run(
        pool,
        `DELETE FROM store_items WHERE (namespace, key) IN (
           SELECT namespace, key FROM store_items
           WHERE expires_at IS NOT NULL AND expires_at <= $1
           ORDER BY expires_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)`,
        [now, limit],
      );
      return result.rowCount ?? 0;
    },
  };
}
