// ThreadRepo on SQLite. Metadata searches first narrow candidates through thread_metadata_keys
// (kept by triggers) for string/boolean filter keys, then apply exact containment in the same query.
import type Database from "better-sqlite3";
import type { Json, JsonObject, Thread, ThreadStatus, TtlStrategy } from "../records.js";
import type { ExpiredThread, NewThread, Page, SortOrder, ThreadFilter, ThreadPatch, ThreadRepo, ThreadSortField } from "../ports.js";
import { conflict } from "../../errors.js";
import { expiresAt, newThreadTtl } from "../ttl.js";
import { authContainment, hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { authFilterSql, indexableEntries, jsonContains, type SqlFragment } from "./json-filter.js";
import { parseJson, statementCache } from "./sql-helpers.js";

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
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: string;
  status: ThreadStatus;
  config: string;
  values: string | null;
  interrupts: string;
  error: string | null;
  ttl_strategy: TtlStrategy | null;
  ttl_minutes: number | null;
  expires_at: string | null;
}

function rowToThread(row: ThreadRow, includeTtl = false): Thread {
  const thread: Thread = {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    state_updated_at: row.state_updated_at,
    metadata: parseJson(row.metadata),
    status: row.status,
    config: parseJson(row.config),
    values: row.values === null ? null : parseJson<Json>(row.values),
    interrupts: parseJson(row.interrupts),
    error: row.error === null ? null : parseJson<Json>(row.error),
  };
  if (includeTtl) {
    thread.ttl =
      row.ttl_strategy && row.ttl_minutes !== null && row.expires_at
        ? { strategy: row.ttl_strategy, ttl_minutes: row.ttl_minutes, expires_at: row.expires_at }
        : null;
  }
  return thread;
}

function whereClause(filter: ThreadFilter): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter.ids !== undefined) {
    parts.push(`thread_id IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.ids));
  }
  if (filter.metadata && Object.keys(filter.metadata).length > 0) {
    for (const [key, value] of indexableEntries(filter.metadata)) {
      parts.push("thread_id IN (SELECT thread_id FROM thread_metadata_keys WHERE key = ? AND value = ?)");
      params.push(key, value);
    }
    const contains = jsonContains("metadata", filter.metadata);
    parts.push(contains.sql);
    params.push(...contains.params);
  }
  if (filter.values && Object.keys(filter.values).length > 0) {
    const contains = jsonContains('"values"', filter.values);
    parts.push(`"values" IS NOT NULL AND ${contains.sql}`);
    params.push(...contains.params);
  }
  if (filter.status !== undefined) {
    parts.push("status = ?");
    params.push(filter.status);
  }
  if (hasAuthFilter(filter.auth)) {
    const auth = authWhere(filter.auth);
    parts.push(auth.sql);
    params.push(...auth.params);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

/** The auth filter on a thread row, narrowed through the metadata side table like a metadata search. */
function authWhere(auth: AuthFilter): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const [key, value] of indexableEntries(authContainment(auth))) {
    parts.push("thread_id IN (SELECT thread_id FROM thread_metadata_keys WHERE key = ? AND value = ?)");
    params.push(key, value);
  }
  const contains = authFilterSql("metadata", auth);
  parts.push(contains.sql);
  params.push(...contains.params);
  return { sql: parts.join(" AND "), params };
}

export function sqliteThreads(db: Database.Database): ThreadRepo {
  const sql = statementCache(db);

  // One process owns the file (data-dir-lock.ts), so the transaction alone keeps claims apart.
  const claimExpired = db.transaction((now: Date, limit: number, retryAt: Date): ExpiredThread[] => {
    const due = sql(
      `SELECT thread_id, ttl_strategy, ttl_minutes FROM threads
       WHERE expires_at IS NOT NULL AND expires_at <= ? AND status <> 'busy'
       ORDER BY expires_at LIMIT ?`,
    ).all(now.toISOString(), limit) as Array<{ thread_id: string; ttl_strategy: TtlStrategy; ttl_minutes: number }>;
    const move = sql("UPDATE threads SET expires_at = ? WHERE thread_id = ?");
    for (const row of due) move.run(row.ttl_strategy === "keep_latest" ? expiresAt(now, row.ttl_minutes) : retryAt.toISOString(), row.thread_id);
    return due.map((row) => ({ thread_id: row.thread_id, strategy: row.ttl_strategy }));
  });
  const getRow = sql(`SELECT ${COLUMNS} FROM threads WHERE thread_id = ?`);
  /** The thread's row when it exists and matches the auth filter. */
  const visibleRow = (threadId: string, auth: AuthFilter | undefined): ThreadRow | undefined => {
    if (!hasAuthFilter(auth)) return getRow.get(threadId) as ThreadRow | undefined;
    const where = authWhere(auth);
    return sql(`SELECT ${COLUMNS} FROM threads WHERE thread_id = ? AND ${where.sql}`).get(threadId, ...where.params) as ThreadRow | undefined;
  };
  const insert = sql(
    `INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at)
     VALUES (?, ?, ?, ?, ?, 'idle', ?, ?, ?, NULL, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING`,
  );

  const update = db.transaction((threadId: string, patch: ThreadPatch, auth: AuthFilter | undefined): Thread | null => {
    const current = visibleRow(threadId, auth);
    if (!current) return null;
    const now = new Date();
    const metadata = patch.metadata ? JSON.stringify({ ...parseJson(current.metadata), ...patch.metadata }) : current.metadata;
    const [strategy, minutes, expires] = patch.ttl ? newThreadTtl(patch.ttl, now) : [current.ttl_strategy, current.ttl_minutes, current.expires_at];
    sql(`UPDATE threads SET metadata = ?, updated_at = ?, ttl_strategy = ?, ttl_minutes = ?, expires_at = ? WHERE thread_id = ?`).run(
      metadata,
      now.toISOString(),
      strategy,
      minutes,
      expires,
      threadId,
    );
    return rowToThread(getRow.get(threadId) as ThreadRow);
  });

  const copy = db.transaction((sourceId: string, newId: string, auth: AuthFilter | undefined): Thread | null => {
    const source = visibleRow(sourceId, auth);
    if (!source) return null;
    const now = new Date().toISOString();
    const inserted = db
      .prepare(
        `INSERT INTO threads (${COLUMNS})
         SELECT ?, ?, ?, ?, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at
         FROM threads WHERE thread_id = ? ON CONFLICT (thread_id) DO NOTHING`,
      )
      .run(newId, now, now, now, sourceId);
    if (inserted.changes === 0) throw conflict(`Thread ${newId} already exists; copy to a new thread id`);
    return rowToThread(getRow.get(newId) as ThreadRow);
  });

  const setState = db.transaction(
    (threadId: string, state: { values: Json | null; interrupts: JsonObject; status: "idle" | "interrupted" }): Thread | "busy" | null => {
      const current = getRow.get(threadId) as ThreadRow | undefined;
      if (!current) return null;
      if (current.status === "busy") return "busy";
      const now = new Date().toISOString();
      sql(`UPDATE threads SET "values" = ?, interrupts = ?, status = ?, error = NULL, updated_at = ?, state_updated_at = ? WHERE thread_id = ?`).run(
        state.values === null ? null : JSON.stringify(state.values),
        JSON.stringify(state.interrupts),
        state.status,
        now,
        now,
        threadId,
      );
      return rowToThread(getRow.get(threadId) as ThreadRow);
    },
  );

  return {
    async create(input: NewThread) {
      const now = new Date();
      const stamp = now.toISOString();
      const result = insert.run(input.thread_id, stamp, stamp, stamp, JSON.stringify(input.metadata), "{}", null, "{}", ...newThreadTtl(input.ttl, now));
      if (result.changes === 0) return null;
      return rowToThread(getRow.get(input.thread_id) as ThreadRow, input.ttl !== undefined);
    },
    async get(threadId, options) {
      const row = visibleRow(threadId, options?.auth);
      return row ? rowToThread(row, options?.includeTtl) : null;
    },
    async update(threadId, patch, auth) {
      return update.immediate(threadId, patch, auth);
    },
    async delete(threadId, auth) {
      if (!hasAuthFilter(auth)) return sql("DELETE FROM threads WHERE thread_id = ?").run(threadId).changes > 0;
      const where = authWhere(auth);
      return sql(`DELETE FROM threads WHERE thread_id = ? AND ${where.sql}`).run(threadId, ...where.params).changes > 0;
    },
    async deleteByAssistant(assistantId, auth) {
      const where = whereClause({ metadata: { assistant_id: assistantId }, ...(auth ? { auth } : {}) });
      return sql(`DELETE FROM threads ${where.sql}`).run(...where.params).changes;
    },
    async search(filter, sort: { by: ThreadSortField; order: SortOrder }, page: Page) {
      const where = whereClause(filter);
      const direction = sort.order === "asc" ? "ASC" : "DESC";
      const rows = db
        .prepare(`SELECT ${COLUMNS} FROM threads ${where.sql} ORDER BY ${SORT_COLUMNS[sort.by]} ${direction}, thread_id ${direction} LIMIT ? OFFSET ?`)
        .all(...where.params, page.limit, page.offset) as ThreadRow[];
      const items = rows.map((row) => rowToThread(row));
      const total = items.length > 0 && items.length < page.limit ? page.offset + items.length : await this.count(filter);
      return { items, total };
    },
    async count(filter) {
      const where = whereClause(filter);
      return (sql(`SELECT COUNT(*) AS n FROM threads ${where.sql}`).get(...where.params) as { n: number }).n;
    },
    async copy(sourceId, newId, auth) {
      return copy.immediate(sourceId, newId, auth);
    },
    async claimExpired(now, limit, retryAt) {
      return claimExpired.immediate(now, limit, retryAt);
    },
    async setState(threadId, state) {
      return setState.immediate(threadId, state);
    },
    async existing(ids, auth) {
      const where = whereClause({ ids, ...(auth ? { auth } : {}) });
      const rows = sql(`SELECT thread_id FROM threads ${where.sql}`).all(...where.params) as Array<{ thread_id: string }>;
      return rows.map((r) => r.thread_id);
    },
    async deleteMany(ids) {
      return sql("DELETE FROM threads WHERE thread_id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids)).changes;
    },
  };
}
