// CronRepo on PostgreSQL, for several schedulers sharing one database. Every write is one
// statement whose WHERE clause checks the revision read before, so of two processes advancing the
// same due cron exactly one updates a row, and no lock is held between statements.
import type { Pool } from "pg";
import type { Cron, CronFields, CronFilter, CronRepo, CronSortField, NewCron, StoredCron } from "../cron-ports.js";
import type { JsonObject } from "../records.js";
import { hasAuthFilter } from "../auth-filter.js";
import { andAuth, authFilterSql, jsonParam, param, run } from "./sql-helpers.js";

const COLUMNS =
  "cron_id, assistant_id, thread_id, on_run_completed, end_time, schedule, timezone, payload, user_id, next_run_date, metadata, enabled, revision, created_at, updated_at";

const SORT_COLUMNS: Record<CronSortField, string> = {
  cron_id: "cron_id",
  assistant_id: "assistant_id",
  thread_id: "thread_id",
  next_run_date: "next_run_date",
  end_time: "end_time",
  created_at: "created_at",
  updated_at: "updated_at",
};

interface CronRow {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  on_run_completed: "delete" | "keep" | null;
  end_time: Date | null;
  schedule: string;
  timezone: string | null;
  payload: JsonObject;
  user_id: string | null;
  next_run_date: Date | null;
  metadata: JsonObject;
  enabled: boolean;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

function rowToStored(row: CronRow): StoredCron {
  return {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    on_run_completed: row.on_run_completed,
    end_time: iso(row.end_time),
    schedule: row.schedule,
    timezone: row.timezone,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    payload: row.payload,
    user_id: row.user_id,
    next_run_date: iso(row.next_run_date),
    metadata: row.metadata,
    enabled: row.enabled,
    revision: row.revision,
  };
}

function rowToCron(row: CronRow): Cron {
  const { revision: _revision, ...cron } = rowToStored(row);
  return cron;
}

/** Appends the filter's values to `values` and returns the WHERE clause ("" for no filter). */
function whereClause(filter: CronFilter, values: unknown[]): string {
  const parts: string[] = [];
  if (filter.assistant_id !== undefined) parts.push(`assistant_id = ${param(values, filter.assistant_id)}`);
  if (filter.thread_id !== undefined) parts.push(`thread_id = ${param(values, filter.thread_id)}`);
  if (filter.enabled !== undefined) parts.push(`enabled = ${param(values, filter.enabled)}`);
  if (filter.metadata && Object.keys(filter.metadata).length > 0) parts.push(`metadata @> ${jsonParam(values, filter.metadata)}`);
  if (hasAuthFilter(filter.auth)) parts.push(authFilterSql("metadata", filter.auth, values));
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

export function postgresCrons(pool: Pool): CronRepo {
  async function count(filter: CronFilter): Promise<number> {
    const values: unknown[] = [];
    const { rows } = await run<{ n: string }>(pool, `SELECT COUNT(*) AS n FROM crons ${whereClause(filter, values)}`, values);
    return Number(rows[0]?.n ?? 0);
  }

  return {
    async create(input: NewCron) {
      const now = new Date();
      const { rows } = await run<CronRow>(
        pool,
        `INSERT INTO crons (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11::jsonb, $12, 1, $13, $13) RETURNING ${COLUMNS}`,
        [
          input.cron_id,
          input.assistant_id,
          input.thread_id,
          input.on_run_completed,
          input.end_time,
          input.schedule,
          input.timezone,
          JSON.stringify(input.payload),
          input.user_id,
          input.next_run_date,
          JSON.stringify(input.metadata),
          input.enabled,
          now,
        ],
      );
      return rowToCron(rows[0]!);
    },
    async get(cronId, auth) {
      const values: unknown[] = [cronId];
      const { rows } = await run<CronRow>(pool, `SELECT ${COLUMNS} FROM crons WHERE cron_id = $1${andAuth(auth, values)}`, values);
      return rows[0] ? rowToStored(rows[0]) : null;
    },
    async replace(cronId, revision, fields: Omit<CronFields, "assistant_id" | "thread_id">) {
      // One statement answers all three cases: replaced, changed since it was read, or gone.
      const { rows } = await run<CronRow & { replaced: boolean }>(
        pool,
        `WITH replaced AS (
           UPDATE crons SET on_run_completed = $3, end_time = $4, schedule = $5, timezone = $6, payload = $7::jsonb, user_id = $8,
             next_run_date = $9, metadata = $10::jsonb, enabled = $11, revision = revision + 1, updated_at = $12
           WHERE cron_id = $1 AND revision = $2
           RETURNING ${COLUMNS}
         )
         SELECT ${COLUMNS}, true AS replaced FROM replaced
         UNION ALL
         SELECT ${COLUMNS}, false AS replaced FROM crons WHERE cron_id = $1 AND NOT EXISTS (SELECT 1 FROM replaced)`,
        [
          cronId,
          revision,
          fields.on_run_completed,
          fields.end_time,
          fields.schedule,
          fields.timezone,
          JSON.stringify(fields.payload),
          fields.user_id,
          fields.next_run_date,
          JSON.stringify(fields.metadata),
          fields.enabled,
          new Date(),
        ],
      );
      const row = rows[0];
      if (!row) return null;
      return row.replaced ? rowToCron(row) : "changed";
    },
    async delete(cronId, auth) {
      const values: unknown[] = [cronId];
      const { rowCount } = await run(pool, `DELETE FROM crons WHERE cron_id = $1${andAuth(auth, values)}`, values);
      return (rowCount ?? 0) > 0;
    },
    async search(filter, sort, page) {
      const values: unknown[] = [];
      const where = whereClause(filter, values);
      const direction = sort.order === "asc" ? "ASC" : "DESC";
      const { rows } = await run<CronRow>(
        pool,
        `SELECT ${COLUMNS} FROM crons ${where}
         ORDER BY ${SORT_COLUMNS[sort.by]} ${direction} NULLS LAST, cron_id ${direction}
         LIMIT ${param(values, page.limit)} OFFSET ${param(values, page.offset)}`,
        values,
      );
      const items = rows.map(rowToCron);
      const total = items.length > 0 && items.length < page.limit ? page.offset + items.length : await count(filter);
      return { items, total };
    },
    count,
    async due(now, limit) {
      const { rows } = await run<CronRow>(
        pool,
        `SELECT ${COLUMNS} FROM crons WHERE enabled AND next_run_date IS NOT NULL AND next_run_date <= $1
         ORDER BY next_run_date, cron_id LIMIT $2`,
        [now, limit],
      );
      return rows.map(rowToStored);
    },
    async advance(claims) {
      if (claims.length === 0) return new Set();
      // One statement for the lot. Rows are locked in cron_id order, so schedulers claiming
      // overlapping lists never deadlock; a row another writer changed first is re-read once its
      // lock is free (READ COMMITTED) and its revision no longer matches: that claim is lost.
      const { rows } = await run<{ cron_id: string }>(
        pool,
        `WITH wanted AS (
           SELECT * FROM unnest($1::text[], $2::integer[], $3::timestamptz[]) AS w(cron_id, revision, next)
         ), won AS (
           SELECT c.cron_id, wanted.next FROM crons c JOIN wanted ON wanted.cron_id = c.cron_id AND wanted.revision = c.revision
           ORDER BY c.cron_id
           FOR UPDATE OF c
         )
         UPDATE crons c SET next_run_date = won.next, revision = c.revision + 1 FROM won WHERE c.cron_id = won.cron_id
         RETURNING c.cron_id`,
        [claims.map((c) => c.cron_id), claims.map((c) => c.revision), claims.map((c) => c.next)],
      );
      return new Set(rows.map((r) => r.cron_id));
    },
  };
}
