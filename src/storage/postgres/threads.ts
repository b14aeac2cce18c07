// ThreadRepo on PostgreSQL. Every method is one statement; metadata and values filters are jsonb
// containment (@>), which the GIN index on metadata serves.
import type { Pool } from "pg";
import { GantryError } from "../../errors.js";
import type { Json, JsonObject, Thread, ThreadStatus, TtlStrategy } from "../records.js";
import type { NewThread, ThreadFilter, ThreadRepo, ThreadSortField } from "../ports.js";
import { newThreadTtl } from "../ttl.js";
import { isUniqueViolation } from "./pg-errors.js";
import { hasAuthFilter } from "../auth-filter.js";
import { andAuth, authFilterSql, jsonParam, param, run } from "./sql-helpers.js";

const COLUMNS =
  'thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at';

const SORT_COLUMNS: Record<ThreadSortField, string> = {
  thread_id: "thread_id",
  status: "status",
  created_at: "created_at",
  updated_at: "updated_at",
  state_updated_at: "state_updated_at",
};

interface ThreadRow {
  thread_id: string;
  created_at: Date;
  updated_at: Date;
  state_updated_at: Date;
  metadata: JsonObject;
  status: ThreadStatus;
  config: JsonObject;
  values: Json | null;
  interrupts: JsonObject;
  error: Json | null;
  ttl_strategy: TtlStrategy | null;
  ttl_minutes: number | null;
  expires_at: Date | null;
}

function rowToThread(row: ThreadRow, includeTtl = false): Thread {
  const thread: Thread = {
    thread_id: row.thread_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    state_updated_at: row.state_updated_at.toISOString(),
    metadata: row.metadata,
    status: row.status,
    config: row.config,
    values: row.values,
    interrupts: row.interrupts,
    error: row.error,
  };
  if (includeTtl) {
    thread.ttl =
      row.ttl_strategy && row.ttl_minutes !== null && row.expires_at
        ? { strategy: row.ttl_strategy, ttl_minutes: row.ttl_minutes, expires_at: row.expires_at.toISOString() }
        : null;
  }
  return thread;
}

/** Appends the filter's values to `values` and returns the WHERE clause ("" for no filter). */
function whereClause(filter: ThreadFilter, values: unknown[]): string {
  const parts: string[] = [];
  if (filter.ids !== undefined) parts.push(`thread_id = ANY(${param(values, filter.ids)}::text[])`);
  if (filter.metadata && Object.keys(filter.metadata).length > 0) parts.push(`metadata @> ${jsonParam(values, filter.metadata)}`);
  // A thread without state has NULL values, and NULL @> anything is not true: it never matches.
  if (filter.values && Object.keys(filter.values).length > 0) parts.push(`"values" @> ${jsonParam(values, filter.values)}`);
  if (filter.status !== undefined) parts.push(`status = ${param(values, filter.status)}`);
  if (hasAuthFilter(filter.auth)) parts.push(authFilterSql("metadata", filter.auth, values));
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

export function postgresThreads(pool: Pool): ThreadRepo {
  async function count(filter: ThreadFilter): Promise<number> {
    const values: unknown[] = [];
    const { rows } = await run<{ n: string }>(pool, `SELECT COUNT(*) AS n FROM threads ${whereClause(filter, values)}`, values);
    return Number(rows[0]?.n ?? 0);
  }

  return {
    async create(input: NewThread) {
      const now = new Date();
      const { rows } = await run<ThreadRow>(
        pool,
        `INSERT INTO threads (${COLUMNS})
         VALUES ($1, $2, $2, $2, $3::jsonb, 'idle', '{}', NULL, '{}', NULL, $4, $5, $6)
         ON CONFLICT (thread_id) DO NOTHING
         RETURNING ${COLUMNS}`,
        [input.thread_id, now, JSON.stringify(input.metadata), ...newThreadTtl(input.ttl, now)],
      );
      return rows[0] ? rowToThread(rows[0], input.ttl !== undefined) : null;
    },

    async get(threadId, options) {
      const values: unknown[] = [threadId];
      const { rows } = await run<ThreadRow>(pool, `SELECT ${COLUMNS} FROM threads WHERE thread_id = $1${andAuth(options?.auth, values)}`, values);
      return rows[0] ? rowToThread(rows[0], options?.includeTtl) : null;
    },

    async update(threadId, patch, auth) {
      const now = new Date();
      const values: unknown[] = [];
      // jsonb || merges top-level keys with the right side winning: the port's key-by-key merge.
      const sets = [`metadata = metadata || ${jsonParam(values, patch.metadata ?? {})}`, `updated_at = ${param(values, now)}`];
      if (patch.ttl) {
        const [strategy, minutes, expires] = newThreadTtl(patch.ttl, now);
        sets.push(`ttl_strategy = ${param(values, strategy)}`, `ttl_minutes = ${param(values, minutes)}`, `expires_at = ${param(values, expires)}`);
      }
      const { rows } = await run<ThreadRow>(
        pool,
        `UPDATE threads SET ${sets.join(", ")} WHERE thread_id = ${param(values, threadId)}${andAuth(auth, values)} RETURNING ${COLUMNS}`,
        values,
      );
      return rows[0] ? rowToThread(rows[0]) : null;
    },

    async delete(threadId, auth) {
      const values: unknown[] = [threadId];
      const result = await run(pool, `DELETE FROM threads WHERE thread_id = $1${andAuth(auth, values)}`, values);
      return (result.rowCount ?? 0) > 0;
    },

    async deleteByAssistant(assistantId, auth) {
      const values: unknown[] = [JSON.stringify({ assistant_id: assistantId })];
      const result = await run(pool, `DELETE FROM threads WHERE metadata @> $1::jsonb${andAuth(auth, values)}`, values);
      return result.rowCount ?? 0;
    },

    async search(filter, sort, page) {
      const values: unknown[] = [];
      const where = whereClause(filter, values);
      const direction = sort.order === "asc" ? "ASC" : "DESC";
      const { rows } = await run<ThreadRow>(
        pool,
        `SELECT ${COLUMNS} FROM threads ${where}
         ORDER BY ${SORT_COLUMNS[sort.by]} ${direction}, thread_id ${direction}
         LIMIT ${param(values, page.limit)} OFFSET ${param(values, page.offset)}`,
        values,
      );
      const items = rows.map((row) => rowToThread(row));
      // A short, non-empty page is the last one, so the total needs no second query.
      const total = items.length > 0 && items.length < page.limit ? page.offset + items.length : await count(filter);
      return { items, total };
    },

    count,

    async setState(threadId, state) {
      const now = new Date();
      // One statement: the status check and the write cannot be split by a run being claimed.
      const { rows } = await run<ThreadRow & { was_busy: boolean }>(
        pool,
        `WITH current AS (SELECT thread_id, status = 'busy' AS was_busy FROM threads WHERE thread_id = $1 FOR UPDATE),
         updated AS (
           UPDATE threads t SET "values" = $2::jsonb, interrupts = $3::jsonb, status = $4, error = NULL, updated_at = $5, state_updated_at = $5
           FROM current c WHERE t.thread_id = c.thread_id AND NOT c.was_busy
           RETURNING ${COLUMNS.split(", ")
             .map((col) => `t.${col}`)
             .join(", ")}
         )
         SELECT c.was_busy, u.* FROM current c LEFT JOIN updated u ON TRUE`,
        [threadId, state.values === null ? null : JSON.stringify(state.values), JSON.stringify(state.interrupts), state.status, now],
      );
      const row = rows[0];
      if (!row) return null;
      if (row.was_busy) return "busy";
      return rowToThread(row);
    },

    async copy(sourceId, newId, auth) {
      const now = new Date();
      const values: unknown[] = [sourceId, newId, now];
      try {
        const { rows } = await run<ThreadRow>(
          pool,
          `INSERT INTO threads (${COLUMNS})
           SELECT $2, $3, $3, $3, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at
           FROM threads WHERE thread_id = $1${andAuth(auth, values)}
           RETURNING ${COLUMNS}`,
          values,
        );
        return rows[0] ? rowToThread(rows[0]) : null;
      } catch (err) {
        if (isUniqueViolation(err)) throw new GantryError("conflict", `Thread ${newId} already exists; copy to a new thread id`);
        throw err;
      }
    },

    async claimExpired(now, limit, retryAt) {
      // SKIP LOCKED lets sweepers on several replicas share the work: each claims rows no other
      // holds, and never waits on one, so two sweeps cannot deadlock or claim a thread twice.
      const { rows } = await run<{ thread_id: string; ttl_strategy: TtlStrategy }>(
        pool,
        `UPDATE threads t
         SET expires_at = CASE t.ttl_strategy WHEN 'keep_latest' THEN $1::timestamptz + t.ttl_minutes * interval '1 minute' ELSE $3 END
         FROM (SELECT thread_id FROM threads
               WHERE expires_at IS NOT NULL AND expires_at <= $1 AND status <> 'busy'
               ORDER BY expires_at
               LIMIT $2
               FOR UPDATE SKIP LOCKED) due
         WHERE t.thread_id = due.thread_id
         RETURNING t.thread_id, t.ttl_strategy`,
        [now, limit, retryAt],
      );
      return rows.map((r) => ({ thread_id: r.thread_id, strategy: r.ttl_strategy }));
    },

    async existing(ids, auth) {
      const values: unknown[] = [];
      const { rows } = await run<{ thread_id: string }>(
        pool,
        `SELECT thread_id FROM threads ${whereClause({ ids, ...(auth ? { auth } : {}) }, values)}`,
        values,
      );
      return rows.map((r) => r.thread_id);
    },

    async deleteMany(ids) {
      const result = await run(pool, "DELETE FROM threads WHERE thread_id = ANY($1::text[])", [ids]);
      return result.rowCount ?? 0;
    },
  };
}
