// CronRepo on SQLite. Each write is one statement; the revision check in its WHERE clause is what
// makes replace and advance conditional.
import type Database from "better-sqlite3";
import type { Cron, CronClaim, CronFields, CronFilter, CronRepo, CronSortField, NewCron, StoredCron } from "../cron-ports.js";
import { hasAuthFilter } from "../auth-filter.js";
import { authFilterSql, jsonContains, type SqlFragment } from "./json-filter.js";
import { parseJson, statementCache } from "./sql-helpers.js";

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
  end_time: string | null;
  schedule: string;
  timezone: string | null;
  payload: string;
  user_id: string | null;
  next_run_date: string | null;
  metadata: string;
  enabled: number;
  revision: number;
  created_at: string;
  updated_at: string;
}

function rowToStored(row: CronRow): StoredCron {
  return {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    on_run_completed: row.on_run_completed,
    end_time: row.end_time,
    schedule: row.schedule,
    timezone: row.timezone,
    created_at: row.created_at,
    updated_at: row.updated_at,
    payload: parseJson(row.payload),
    user_id: row.user_id,
    next_run_date: row.next_run_date,
    metadata: parseJson(row.metadata),
    enabled: row.enabled === 1,
    revision: row.revision,
  };
}

function rowToCron(row: CronRow): Cron {
  const { revision: _revision, ...cron } = rowToStored(row);
  return cron;
}

function whereClause(filter: CronFilter): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter.assistant_id !== undefined) {
    parts.push("assistant_id = ?");
    params.push(filter.assistant_id);
  }
  if (filter.thread_id !== undefined) {
    parts.push("thread_id = ?");
    params.push(filter.thread_id);
  }
  if (filter.enabled !== undefined) {
    parts.push("enabled = ?");
    params.push(filter.enabled ? 1 : 0);
  }
  if (filter.metadata && Object.keys(filter.metadata).length > 0) {
    const contains = jsonContains("metadata", filter.metadata);
    parts.push(contains.sql);
    params.push(...contains.params);
  }
  if (hasAuthFilter(filter.auth)) {
    const auth = authFilterSql("metadata", filter.auth);
    parts.push(auth.sql);
    params.push(...auth.params);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function sqliteCrons(db: Database.Database): CronRepo {
  const sql = statementCache(db);
  const getRow = sql(`SELECT ${COLUMNS} FROM crons WHERE cron_id = ?`);
  const advanceOne = sql("UPDATE crons SET next_run_date = ?, revision = revision + 1 WHERE cron_id = ? AND revision = ?");
  const advanceAll = db.transaction(
    (claims: CronClaim[]) => new Set(claims.filter((c) => advanceOne.run(iso(c.next), c.cron_id, c.revision).changes === 1).map((c) => c.cron_id)),
  );

  async function count(filter: CronFilter): Promise<number> {
    const where = whereClause(filter);
    return (sql(`SELECT COUNT(*) AS n FROM crons ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  return {
    async create(input: NewCron) {
      const now = new Date().toISOString();
      const row = sql(`INSERT INTO crons (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING ${COLUMNS}`).get(
        input.cron_id,
        input.assistant_id,
        input.thread_id,
        input.on_run_completed,
        iso(input.end_time),
        input.schedule,
        input.timezone,
        JSON.stringify(input.payload),
        input.user_id,
        iso(input.next_run_date),
        JSON.stringify(input.metadata),
        input.enabled ? 1 : 0,
        now,
        now,
      ) as CronRow;
      return rowToCron(row);
    },
    async get(cronId, auth) {
      let row: CronRow | undefined;
      if (hasAuthFilter(auth)) {
        const where = authFilterSql("metadata", auth);
        row = sql(`SELECT ${COLUMNS} FROM crons WHERE cron_id = ? AND ${where.sql}`).get(cronId, ...where.params) as CronRow | undefined;
      } else {
        row = getRow.get(cronId) as CronRow | undefined;
      }
      return row ? rowToStored(row) : null;
    },
    async replace(cronId, revision, fields: Omit<CronFields, "assistant_id" | "thread_id">) {
      const row = sql(
        `UPDATE crons SET on_run_completed = ?, end_time = ?, schedule = ?, timezone = ?, payload = ?, user_id = ?, next_run_date = ?,
           metadata = ?, enabled = ?, revision = revision + 1, updated_at = ?
         WHERE cron_id = ? AND revision = ? RETURNING ${COLUMNS}`,
      ).get(
        fields.on_run_completed,
        iso(fields.end_time),
        fields.schedule,
        fields.timezone,
        JSON.stringify(fields.payload),
        fields.user_id,
        iso(fields.next_run_date),
        JSON.stringify(fields.metadata),
        fields.enabled ? 1 : 0,
        new Date().toISOString(),
        cronId,
        revision,
      ) as CronRow | undefined;
      if (row) return rowToCron(row);
      return getRow.get(cronId) ? "changed" : null;
    },
    async delete(cronId, auth) {
      if (!hasAuthFilter(auth)) return sql("DELETE FROM crons WHERE cron_id = ?").run(cronId).changes > 0;
      const where = authFilterSql("metadata", auth);
      return sql(`DELETE FROM crons WHERE cron_id = ? AND ${where.sql}`).run(cronId, ...where.params).changes > 0;
    },
    async search(filter, sort, page) {
      const where = whereClause(filter);
      const direction = sort.order === "asc" ? "ASC" : "DESC";
      const rows = sql(
        `SELECT ${COLUMNS} FROM crons ${where.sql}
         ORDER BY ${SORT_COLUMNS[sort.by]} ${direction} NULLS LAST, cron_id ${direction} LIMIT ? OFFSET ?`,
      ).all(...where.params, page.limit, page.offset) as CronRow[];
      const items = rows.map(rowToCron);
      const total = items.length > 0 && items.length < page.limit ? page.offset + items.length : await count(filter);
      return { items, total };
    },
    count,
    async due(now, limit) {
      const rows = sql(
        `SELECT ${COLUMNS} FROM crons WHERE enabled = 1 AND next_run_date IS NOT NULL AND next_run_date <= ?
         ORDER BY next_run_date, cron_id LIMIT ?`,
      ).all(now.toISOString(), limit) as CronRow[];
      return rows.map(rowToStored);
    },
    async advance(claims) {
      return advanceAll.immediate(claims);
    },
  };
}
