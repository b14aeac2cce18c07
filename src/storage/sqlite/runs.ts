// RunRepo on SQLite. Every state change is one IMMEDIATE transaction; with a single writer there is
// nothing to skip-lock, so the claim is a plain UPDATE of the chosen row.
import type Database from "better-sqlite3";
import type { Json, JsonObject, MultitaskStrategy, Run, RunStatus } from "../records.js";
import type {
  CancelAction,
  CancelResult,
  ClaimedRun,
  EnqueueOptions,
  EnqueueResult,
  NewRun,
  NewRunOnNewThread,
  RunOutcome,
  RunRepo,
  StoppedRunWebhook,
} from "../run-ports.js";
import { hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { deleteThreadCheckpoints } from "./checkpoints.js";
import { authFilterSql, type SqlFragment } from "./json-filter.js";
import { parseJson, statementCache } from "./sql-helpers.js";
import { insertWebhookDelivery } from "./webhooks.js";
import { newThreadTtl } from "../ttl.js";

const COLUMNS = "run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, attempt, cancel_action";

interface RunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: string;
  kwargs: string;
  multitask_strategy: MultitaskStrategy | null;
  attempt: number;
  cancel_action: CancelAction | null;
}

/** " AND <the run's thread matches the auth filter>", or nothing without a filter. */
function andThreadVisible(auth: AuthFilter | undefined, column = "thread_id"): SqlFragment {
  if (!hasAuthFilter(auth)) return { sql: "", params: [] };
  const where = authFilterSql("metadata", auth);
  return { sql: ` AND ${column} IN (SELECT thread_id FROM threads WHERE ${where.sql})`, params: where.params };
}

function rowToRun(row: RunRow): Run {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: row.status,
    metadata: parseJson(row.metadata),
    kwargs: parseJson(row.kwargs),
    multitask_strategy: row.multitask_strategy,
  };
}

function rowToClaimed(row: RunRow): ClaimedRun {
  return { ...rowToRun(row), attempt: row.attempt, cancel_action: row.cancel_action };
}

export function sqliteRuns(db: Database.Database): RunRepo {
  const sql = statementCache(db);
  const getRow = sql(`SELECT ${COLUMNS} FROM runs WHERE run_id = ?`);
  /** The run's row when it exists and its thread matches the auth filter. */
  const visibleRow = (runId: string, auth: AuthFilter | undefined): RunRow | undefined => {
    if (!hasAuthFilter(auth)) return getRow.get(runId) as RunRow | undefined;
    const visible = andThreadVisible(auth);
    return sql(`SELECT ${COLUMNS} FROM runs WHERE run_id = ?${visible.sql}`).get(runId, ...visible.params) as RunRow | undefined;
  };
  const threadExists = sql("SELECT metadata FROM threads WHERE thread_id = ?");
  const inflight = sql("SELECT run_id, status FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY seq");
  const threadHasRuns = sql("SELECT 1 FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') LIMIT 1");
  const eligibleWaiting = sql("SELECT 1 FROM runs WHERE status = 'pending' AND available_at <= ? LIMIT 1");
  // Every write of an assistant stamps updated_at, as ISO text from a `Date`: compared as text.
  const assistantCurrent = sql("SELECT 1 FROM assistants WHERE assistant_id = ? AND version = ? AND updated_at = ?");

  /** A thread's status once runs of it stopped: idle, or busy while others still wait or run. */
  const statusAfterRuns = (threadId: string, preferred: "idle" | "interrupted" | "error" = "idle") =>
    preferred === "idle" && threadHasRuns.get(threadId) ? "busy" : preferred;
  const settleThread = (threadId: string, now: string, preferred: "idle" | "interrupted" | "error" = "idle") => {
    sql("UPDATE threads SET status = ?, updated_at = ? WHERE thread_id = ?").run(statusAfterRuns(threadId, preferred), now, threadId);
  };

  /** Stops runs right away when pending, flags them when running. */
  const cancelRows = (
    rows: Array<{ run_id: string; status: string; thread_id: string }>,
    action: CancelAction,
    now: string,
    webhookFor: StoppedRunWebhook | undefined,
  ): CancelResult => {
    const result: CancelResult = { stopped: [], flagged: [] };
    const threads = new Set<string>();
    for (const row of rows) {
      if (row.status === "pending") {
        if (action === "rollback") sql("DELETE FROM runs WHERE run_id = ?").run(row.run_id);
        else {
          sql("UPDATE runs SET status = 'interrupted', updated_at = ? WHERE run_id = ?").run(now, row.run_id);
          const webhook = webhookFor?.(rowToRun(getRow.get(row.run_id) as RunRow));
          if (webhook) insertWebhookDelivery(db, webhook, now);
        }
        result.stopped.push(row.run_id);
        threads.add(row.thread_id);
      } else if (row.status === "running") {
        sql("UPDATE runs SET cancel_action = ?, updated_at = ? WHERE run_id = ?").run(action, now, row.run_id);
        result.flagged.push(row.run_id);
      }
    }
    for (const threadId of threads) {
      const running = sql("SELECT 1 FROM runs WHERE thread_id = ? AND status = 'running' LIMIT 1").get(threadId);
      if (!running) settleThread(threadId, now);
    }
    return result;
  };

  const enqueue = db.transaction((run: NewRun, options: EnqueueOptions): EnqueueResult => {
    const known = options.assistantVersion;
    if (known && !assistantCurrent.get(run.assistant_id, known.version, known.updated_at)) return { kind: "assistant_changed" };
    const now = new Date().toISOString();
    const thread = threadExists.get(run.thread_id) as { metadata: string } | undefined;
    if (thread && hasAuthFilter(options.threadAuth)) {
      const visible = andThreadVisible(options.threadAuth);
      if (!sql(`SELECT 1 FROM threads WHERE thread_id = ?${visible.sql}`).get(run.thread_id, ...visible.params)) return { kind: "thread_missing" };
    }
    const existing = thread ? parseJson<JsonObject>(thread.metadata) : undefined;
    if (options.graphId !== undefined && typeof existing?.graph_id === "string" && existing.graph_id !== options.graphId)
      return { kind: "wrong_graph", threadGraph: existing.graph_id };
    let metadata: JsonObject;
    // Runs of the thread still pending or running before this one; none on a new thread.
    let active: Array<{ run_id: string; status: string }> = [];
    if (!existing) {
      if (!options.createThread) return { kind: "thread_missing" };
      // The run's own metadata wins over graph_id/assistant_id on a new thread (spec §3.2).
      metadata = { ...options.threadMetadata, ...options.createThread.metadata };
      sql(
        `INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at)
         VALUES (?, ?, ?, ?, ?, 'busy', '{}', NULL, '{}', NULL, ?, ?, ?)`,
      ).run(run.thread_id, now, now, now, JSON.stringify(metadata), ...newThreadTtl(options.createThread.ttl, new Date(now)));
    } else {
      active = inflight.all(run.thread_id) as Array<{ run_id: string; status: string }>;
      if (active.length > 0 && options.multitask === "reject") return { kind: "busy" };
      metadata = { ...existing, ...options.threadMetadata };
      const merged = JSON.stringify(metadata);
      // Rewriting unchanged metadata would re-run the trigger that mirrors it for search.
      if (merged !== thread!.metadata) sql("UPDATE threads SET metadata = ? WHERE thread_id = ?").run(merged, run.thread_id);
    }
    let cancelled: string[] = [];
    let stopped: string[] = [];
    if (thread && (options.multitask === "interrupt" || options.multitask === "rollback")) {
      const active = (inflight.all(run.thread_id) as Array<{ run_id: string; status: string }>).map((r) => ({ ...r, thread_id: run.thread_id }));
      const result = cancelRows(active, options.multitask, now, options.webhookFor);
      cancelled = result.flagged;
      stopped = result.stopped;
    }
    const seq = (sql("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM runs").get() as { seq: number }).seq;
    const availableAt = run.available_at.toISOString();
    // A thread with no run before this one has none now: the common case asks no more.
    const threadBusy = active.length > 0 && threadHasRuns.get(run.thread_id) !== undefined;
    const claimFor = options.claimFor && availableAt <= now && !threadBusy && !eligibleWaiting.get(now) ? options.claimFor : undefined;
    sql(
      `INSERT INTO runs (run_id, seq, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, available_at,
                         attempt, lease_owner, lease_until)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      run.run_id,
      seq,
      run.thread_id,
      run.assistant_id,
      now,
      now,
      claimFor ? "running" : "pending",
      JSON.stringify(run.metadata),
      JSON.stringify(run.kwargs),
      run.multitask_strategy,
      availableAt,
      claimFor ? 1 : 0,
      claimFor?.workerId ?? null,
      claimFor ? new Date(Date.parse(now) + claimFor.leaseMs).toISOString() : null,
    );
    sql("UPDATE threads SET status = 'busy', updated_at = ? WHERE thread_id = ?").run(now, run.thread_id);
    // The row just written, as rowToRun would read it back.
    const created: Run = {
      run_id: run.run_id,
      thread_id: run.thread_id,
      assistant_id: run.assistant_id,
      created_at: now,
      updated_at: now,
      status: "pending",
      metadata: run.metadata,
      kwargs: run.kwargs,
      multitask_strategy: run.multitask_strategy,
    };
    if (!claimFor) return { kind: "created", run: created, cancelled, stopped };
    return { kind: "created", run: created, cancelled, stopped, claimed: { ...created, status: "running", attempt: 1, cancel_action: null } };
  });

  // One transaction of plain enqueues: SQLite has no round trips to save, only commits.
  const enqueueOnNewThreads = db.transaction((items: NewRunOnNewThread[]): Run[] => {
    const created: Run[] = [];
    for (const { run, threadMetadata } of items) {
      if (threadExists.get(run.thread_id)) continue;
      const result = enqueue(run, { threadMetadata, multitask: "enqueue", createThread: { metadata: {}, temporary: false } });
      if (result.kind === "created") created.push(result.run);
    }
    return created;
  });

  const claimOne = (workerId: string, leaseMs: number, now: Date): ClaimedRun | null => {
    const stamp = now.toISOString();
    const candidate = sql(
      `SELECT r.run_id FROM runs r
       WHERE r.status = 'pending' AND r.available_at <= ?
         AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
         AND NOT EXISTS (SELECT 1 FROM runs y WHERE y.thread_id = r.thread_id AND y.status = 'pending' AND y.seq < r.seq)
       ORDER BY r.available_at, r.seq
       LIMIT 1`,
    ).get(stamp) as { run_id: string } | undefined;
    if (!candidate) return null;
    sql(`UPDATE runs SET status = 'running', lease_owner = ?, lease_until = ?, attempt = attempt + 1, updated_at = ? WHERE run_id = ?`).run(
      workerId,
      new Date(now.getTime() + leaseMs).toISOString(),
      stamp,
      candidate.run_id,
    );
    const row = getRow.get(candidate.run_id) as RunRow;
    // A busy thread is left as it is, as on PostgreSQL, where rewriting the row costs WAL.
    sql("UPDATE threads SET status = 'busy', updated_at = ? WHERE thread_id = ? AND status <> 'busy'").run(stamp, row.thread_id);
    return rowToClaimed(row);
  };
  // One transaction: each pick sees the ones before it, so no thread gets two running runs.
  const claim = db.transaction((workerId: string, leaseMs: number, now: Date, limit: number): ClaimedRun[] => {
    const claimed: ClaimedRun[] = [];
    while (claimed.length < limit) {
      const run = claimOne(workerId, leaseMs, now);
      if (!run) break;
      claimed.push(run);
    }
    return claimed;
  });

  const finish = db.transaction((runId: string, workerId: string, outcome: RunOutcome): boolean => {
    const now = new Date().toISOString();
    const held = "run_id = ? AND status = 'running' AND lease_owner = ?";
    const row = (
      outcome.delete_run
        ? sql(`DELETE FROM runs WHERE ${held} RETURNING thread_id`).get(runId, workerId)
        : sql(`UPDATE runs SET status = ?, lease_owner = NULL, lease_until = NULL, cancel_action = NULL, updated_at = ? WHERE ${held} RETURNING thread_id`).get(
            outcome.status,
            now,
            runId,
            workerId,
          )
    ) as { thread_id: string } | undefined;
    if (!row) return false;
    if (outcome.webhook) insertWebhookDelivery(db, outcome.webhook, now);
    if (outcome.delete_thread) {
      deleteThreadCheckpoints(sql, row.thread_id);
      sql("DELETE FROM threads WHERE thread_id = ?").run(row.thread_id);
      return true;
    }
    const sets: string[] = ["status = ?", "updated_at = ?"];
    const params: unknown[] = [statusAfterRuns(row.thread_id, outcome.thread_status), now];
    if (outcome.values !== undefined) sets.push('"values" = ?', "state_updated_at = ?"), params.push(toText(outcome.values), now);
    if (outcome.interrupts !== undefined) sets.push("interrupts = ?"), params.push(JSON.stringify(outcome.interrupts));
    sets.push("error = ?"), params.push(outcome.error === undefined || outcome.error === null ? null : JSON.stringify(outcome.error));
    sql(`UPDATE threads SET ${sets.join(", ")} WHERE thread_id = ?`).run(...params, row.thread_id);
    return true;
  });

  const cancel = db.transaction(
    (
      target: { runIds: string[]; threadId?: string } | { status: "pending" | "running" | "all" },
      action: CancelAction,
      auth: AuthFilter | undefined,
      webhookFor: StoppedRunWebhook | undefined,
    ): CancelResult => {
      const now = new Date().toISOString();
      const visible = andThreadVisible(auth);
      let rows: Array<{ run_id: string; status: string; thread_id: string }>;
      if ("runIds" in target) {
        rows = db
          .prepare(
            `SELECT run_id, status, thread_id FROM runs WHERE run_id IN (SELECT value FROM json_each(?)) ${target.threadId ? "AND thread_id = ?" : ""}${visible.sql}`,
          )
          .all(JSON.stringify(target.runIds), ...(target.threadId ? [target.threadId] : []), ...visible.params) as typeof rows;
      } else {
        const statuses = target.status === "all" ? ["pending", "running"] : [target.status];
        rows = db
          .prepare(`SELECT run_id, status, thread_id FROM runs WHERE status IN (SELECT value FROM json_each(?))${visible.sql}`)
          .all(JSON.stringify(statuses), ...visible.params) as typeof rows;
      }
      return cancelRows(rows, action, now, webhookFor);
    },
  );

  const recoverExpired = db.transaction((now: Date, maxAttempts: number, expiredBefore: Date) => {
    const stamp = now.toISOString();
    const cutoff = expiredBefore.toISOString();
    const expired = db
      .prepare("SELECT run_id, thread_id, attempt - handed_back AS lost FROM runs WHERE status = 'running' AND lease_until < ?")
      .all(cutoff) as Array<{ run_id: string; thread_id: string; lost: number }>;
    let requeued = 0;
    let failed = 0;
    for (const run of expired) {
      if (run.lost >= maxAttempts) {
        sql("UPDATE runs SET status = 'error', lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE run_id = ?").run(stamp, run.run_id);
        sql("UPDATE threads SET error = ? WHERE thread_id = ?").run(
          JSON.stringify({ error: "RunAttemptsExhausted", message: `Run ${run.run_id} was lost by its worker ${run.lost} times and will not be retried` }),
          run.thread_id,
        );
        settleThread(run.thread_id, stamp, "error");
        failed += 1;
      } else {
        sql("UPDATE runs SET status = 'pending', lease_owner = NULL, lease_until = NULL, available_at = ?, updated_at = ? WHERE run_id = ?").run(
          stamp,
          stamp,
          run.run_id,
        );
        requeued += 1;
      }
    }
    return { requeued, failed };
  });

  return {
    async enqueue(run, options) {
      return enqueue.immediate(run, options);
    },
    async enqueueOnNewThreads(items) {
      return enqueueOnNewThreads.immediate(items);
    },
    async get(runId, threadId, auth) {
      const row = visibleRow(runId, auth);
      if (!row || (threadId !== undefined && row.thread_id !== threadId)) return null;
      return rowToRun(row);
    },
    async list(threadId, filter, page, auth) {
      const visible = andThreadVisible(auth);
      const rows = db
        .prepare(`SELECT ${COLUMNS} FROM runs WHERE thread_id = ? ${filter.status ? "AND status = ?" : ""}${visible.sql} ORDER BY seq DESC LIMIT ? OFFSET ?`)
        .all(threadId, ...(filter.status ? [filter.status] : []), ...visible.params, page.limit, page.offset) as RunRow[];
      return rows.map(rowToRun);
    },
    async delete(runId, threadId, auth) {
      const row = visibleRow(runId, auth);
      if (!row || (threadId !== undefined && row.thread_id !== threadId)) return null;
      if (row.status === "pending" || row.status === "running") return "active";
      sql("DELETE FROM runs WHERE run_id = ?").run(runId);
      return "deleted";
    },
    async claim(workerId, leaseMs, now, limit) {
      return claim.immediate(workerId, leaseMs, now, limit);
    },
    async heartbeat(workerId, runIds, leaseMs, now) {
      const cancels = new Map<string, CancelAction>();
      if (runIds.length === 0) return { cancels, lost: [] };
      const ids = JSON.stringify(runIds);
      sql("UPDATE runs SET lease_until = ? WHERE lease_owner = ? AND status = 'running' AND run_id IN (SELECT value FROM json_each(?))").run(
        new Date(now.getTime() + leaseMs).toISOString(),
        workerId,
        ids,
      );
      // Only runs this worker still holds: one that lost its lease may be flagged for its new owner.
      const held = db
        .prepare("SELECT run_id, cancel_action FROM runs WHERE lease_owner = ? AND status = 'running' AND run_id IN (SELECT value FROM json_each(?))")
        .all(workerId, ids) as Array<{ run_id: string; cancel_action: CancelAction | null }>;
      for (const f of held) if (f.cancel_action) cancels.set(f.run_id, f.cancel_action);
      const holding = new Set(held.map((f) => f.run_id));
      return { cancels, lost: runIds.filter((id) => !holding.has(id)) };
    },
    async finish(runId, workerId, outcome) {
      return finish.immediate(runId, workerId, outcome);
    },
    async cancel(target, action, auth, webhookFor) {
      return cancel.immediate(target, action, auth, webhookFor);
    },
    async release(runId, workerId, now) {
      const stamp = now.toISOString();
      const result = sql(
        "UPDATE runs SET status = 'pending', lease_owner = NULL, lease_until = NULL, available_at = ?, updated_at = ?, handed_back = handed_back + 1 WHERE run_id = ? AND status = 'running' AND lease_owner = ?",
      ).run(stamp, stamp, runId, workerId);
      return result.changes === 1;
    },
    async recoverExpired(now, maxAttempts, expiredBefore) {
      return recoverExpired.immediate(now, maxAttempts, expiredBefore ?? now);
    },
    async nextAvailableAt() {
      const row = sql("SELECT MIN(available_at) AS at FROM runs WHERE status = 'pending'").get() as { at: string | null };
      return row.at ? new Date(row.at) : null;
    },
    async queueStats(now) {
      const row = sql(
        `SELECT (SELECT COUNT(*) FROM runs WHERE status = 'pending') AS pending, (SELECT COUNT(*) FROM runs WHERE status = 'running') AS running,
           (SELECT MIN(available_at) FROM runs WHERE status = 'pending' AND available_at <= ?) AS oldest`,
      ).get(now.toISOString()) as { pending: number; running: number; oldest: string | null };
      return { pending: row.pending, running: row.running, oldestDueAt: row.oldest ? new Date(row.oldest) : null };
    },
  };
}

function toText(value: Json | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
