// RunRepo on PostgreSQL, for several processes sharing one database. Every change to which run of a
// thread is pending or running is made holding that thread's row lock: enqueue, finish and cancel
// wait for it (taking it before any run row, and several threads' in thread_id order, as a cancel
// and a group of stateless finishes do, so they cannot deadlock each other), while claim and the
// sweeper skip a locked thread with SKIP LOCKED and so never wait at all.
import type { Pool, PoolClient } from "pg";
import type { Json, Run, RunStatus } from "../records.js";
import type { CancelAction, CancelResult, ClaimedRun, EnqueueResult, NewRunOnNewThread, RunRepo, StoppedRunWebhook } from "../run-ports.js";
import { newThreadTtl } from "../ttl.js";
import { hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { threadCheckpointDeletes } from "./checkpoints.js";
import { newThreadEnqueueGroups } from "./enqueue-groups.js";
import { statelessFinishGroups } from "./finish-groups.js";
import { assistantCurrent, COLUMN_NAMES, COLUMNS, rowToRun, type RunRow } from "./run-rows.js";
import { authFilterSql, param, run as query, transaction } from "./sql-helpers.js";
import { insertWebhookDelivery } from "./webhooks.js";

/** The run columns read through the alias `r`, where a join would make bare names ambiguous. */
const R_COLUMNS = COLUMN_NAMES.map((c) => `r.${c}`).join(", ");

function rowToClaimed(row: RunRow): ClaimedRun {
  return { ...rowToRun(row), attempt: row.attempt, cancel_action: row.cancel_action };
}

/** The placeholders' values for assistantCurrent. */
function assistantVersionParams(options: Parameters<RunRepo["enqueue"]>[1]): [number | null, string | null] {
  const known = options.assistantVersion;
  return known ? [known.version, known.updated_at] : [null, null];
}

/**
 * A run on a thread that does not exist yet, for a worker that may claim it at creation (the others
 * go in groups, enqueue-groups.ts), in one statement instead of a six-round-trip transaction: a
 * thread nobody can see yet needs no lock, has no runs to cancel or wait behind, and is inserted
 * busy already. The statement is atomic on its own, so thread and run appear together or not at
 * all, and neither when the assistant changed (`assistant_changed`). Undefined when the thread
 * exists: the caller takes the locking path. The statement always answers one row, so the two
 * refusals can be told apart.
 */
async function enqueueOnNewThread(
  pool: Pool,
  input: Parameters<RunRepo["enqueue"]>[0],
  options: Parameters<RunRepo["enqueue"]>[1],
): Promise<EnqueueResult | undefined> {
  const now = new Date();
  const claimFor = options.claimFor && input.available_at <= now ? options.claimFor : undefined;
  // As on an existing thread: a run claimed at creation must not jump ahead of runs already waiting.
  const { rows } = await query<Partial<RunRow> & { assistant_current: boolean }>(
    pool,
    `WITH assistant AS (
       SELECT ${assistantCurrent("$3", "$13", "$14")} AS current
     ), thread AS (
       INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at)
       SELECT $2, $4, $4, $4, $12::jsonb, 'busy', '{}', NULL, '{}', NULL, $15, $16::float8, $17::timestamptz FROM assistant WHERE assistant.current
       ON CONFLICT (thread_id) DO NOTHING
       RETURNING thread_id
     ), starts AS (
       SELECT $9::boolean AND NOT EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND available_at <= $4) AS claimed
     ), created AS (
       INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, available_at,
                         attempt, lease_owner, lease_until)
       SELECT $1, thread.thread_id, $3, $4, $4, CASE WHEN starts.claimed THEN 'running' ELSE 'pending' END, $5::jsonb, $6::jsonb, $7, $8::timestamptz,
              CASE WHEN starts.claimed THEN 1 ELSE 0 END, CASE WHEN starts.claimed THEN $10 END, CASE WHEN starts.claimed THEN $11::timestamptz END
       FROM thread, starts
       RETURNING ${COLUMNS}
     )
     SELECT created.*, assistant.current AS assistant_current FROM assistant LEFT JOIN created ON true`,
    [
      ...runParams(input, now),
      claimFor !== undefined,
      claimFor?.workerId ?? null,
      claimFor ? new Date(now.getTime() + claimFor.leaseMs) : null,
      JSON.stringify({ ...options.threadMetadata, ...options.createThread!.metadata }),
      ...assistantVersionParams(options),
      ...newThreadTtl(options.createThread!.ttl, now),
    ],
  );
  const answer = rows[0]!;
  if (!answer.assistant_current) return { kind: "assistant_changed" };
  if (!answer.run_id) return undefined;
  const row = answer as RunRow;
  const createdRun = rowToRun(row);
  if (row.status !== "running") return { kind: "created", run: createdRun, cancelled: [], stopped: [] };
  return { kind: "created", run: { ...createdRun, status: "pending" }, cancelled: [], stopped: [], claimed: rowToClaimed(row) };
}

/**
 * enqueueOnNewThreads: the runs travel as one JSON array, so the statement's text stays the same
 * whatever their number. Inserting in the array's order gives the runs their seq in that order.
 */
async function insertOnNewThreads(pool: Pool, items: NewRunOnNewThread[]): Promise<Run[]> {
  if (items.length === 0) return [];
  const batch = items.map(({ run, threadMetadata }, n) => ({
    n,
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    metadata: run.metadata,
    kwargs: run.kwargs,
    multitask_strategy: run.multitask_strategy,
    available_at: run.available_at.toISOString(),
    thread_metadata: threadMetadata,
  }));
  const { rows } = await query<RunRow>(
    pool,
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(n integer, run_id text, thread_id text, assistant_id text, metadata jsonb, kwargs jsonb,
                                                       multitask_strategy text, available_at timestamptz, thread_metadata jsonb)
     ), thread AS (
       INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error)
       SELECT thread_id, $2, $2, $2, thread_metadata, 'busy', '{}', NULL, '{}', NULL FROM input
       ON CONFLICT (thread_id) DO NOTHING
       RETURNING thread_id
     ), created AS (
       INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, available_at, attempt)
       SELECT input.run_id, input.thread_id, input.assistant_id, $2, $2, 'pending', input.metadata, input.kwargs, input.multitask_strategy,
              input.available_at, 0
       FROM input JOIN thread ON thread.thread_id = input.thread_id
       ORDER BY input.n
       RETURNING ${COLUMNS}
     )
     SELECT created.* FROM created JOIN input ON input.run_id = created.run_id ORDER BY input.n`,
    [JSON.stringify(batch), new Date()],
  );
  return rows.map(rowToRun);
}

/** $1-$8 of both run inserts: the new run's own columns. */
function runParams(input: Parameters<RunRepo["enqueue"]>[0], now: Date): unknown[] {
  return [
    input.run_id,
    input.thread_id,
    input.assistant_id,
    now,
    JSON.stringify(input.metadata),
    JSON.stringify(input.kwargs),
    input.multitask_strategy,
    input.available_at,
  ];
}

/** jsonb parameter that keeps a JSON null as SQL NULL, as the thread columns expect. */
function jsonOrNull(value: Json | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

/**
 * SQL for the status a thread takes after runs on it stopped: the preferred one (SQL too, a
 * placeholder or a literal), except that idle becomes busy while other runs still wait or run.
 */
function settledStatus(preferred: string): string {
  return `CASE WHEN ${preferred} = 'idle' AND EXISTS (
      SELECT 1 FROM runs q WHERE q.thread_id = threads.thread_id AND q.status IN ('pending', 'running'))
    THEN 'busy' ELSE ${preferred} END`;
}

/** Locks the threads in id order, the one order every multi-thread writer uses. */
async function lockThreads(client: PoolClient, threadIds: string[]): Promise<string[]> {
  const { rows } = await query<{ thread_id: string }>(client, "SELECT thread_id FROM threads WHERE thread_id = ANY($1::text[]) ORDER BY thread_id FOR UPDATE", [
    threadIds,
  ]);
  return rows.map((r) => r.thread_id);
}

type CancelTarget = { runIds: string[]; threadId?: string } | { status: "pending" | "running" | "all" };

/** Stops the target's pending runs and flags its running ones, on threads already locked. */
async function cancelOnLockedThreads(
  client: PoolClient,
  threadIds: string[],
  target: CancelTarget,
  action: CancelAction,
  now: Date,
  webhookFor: StoppedRunWebhook | undefined,
): Promise<CancelResult> {
  const statuses = "runIds" in target || target.status === "all" ? ["pending", "running"] : [target.status];
  // $1 the locked threads, $2 the run ids (NULL: every run with the status).
  const targetRuns = "thread_id = ANY($1::text[]) AND ($2::text[] IS NULL OR run_id = ANY($2::text[]))";
  const params = [threadIds, "runIds" in target ? target.runIds : null];

  const result: CancelResult = { stopped: [], flagged: [] };
  if (statuses.includes("pending")) {
    const { rows } =
      action === "rollback"
        ? await query<{ run_id: string; thread_id: string }>(
            client,
            `DELETE FROM runs WHERE ${targetRuns} AND status = 'pending' RETURNING run_id, thread_id`,
            params,
          )
        : await query<RunRow>(
            client,
            `UPDATE runs SET status = 'interrupted', updated_at = $3 WHERE ${targetRuns} AND status = 'pending' RETURNING ${COLUMNS}`,
            [...params, now],
          );
    result.stopped = rows.map((r) => r.run_id);
    if (action !== "rollback" && webhookFor) {
      for (const row of rows) {
        const webhook = webhookFor(rowToRun(row as RunRow));
        if (webhook) await insertWebhookDelivery(client, webhook, now);
      }
    }
    const touched = [...new Set(rows.map((r) => r.thread_id))];
    if (touched.length > 0) {
      // A thread whose running run was only flagged stays busy until that run finishes.
      await query(
        client,
        `UPDATE threads SET status = ${settledStatus("'idle'")}, updated_at = $2
         WHERE thread_id = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.thread_id = threads.thread_id AND x.status = 'running')`,
        [touched, now],
      );
    }
  }
  if (statuses.includes("running")) {
    const { rows } = await query<{ run_id: string }>(
      client,
      `UPDATE runs SET cancel_action = $3, updated_at = $4 WHERE ${targetRuns} AND status = 'running' RETURNING run_id`,
      [...params, action, now],
    );
    result.flagged = rows.map((r) => r.run_id);
  }
  return result;
}

/** " AND <the run's thread matches the auth filter>", or "" without a filter. */
function andThreadVisible(auth: AuthFilter | undefined, values: unknown[]): string {
  return hasAuthFilter(auth) ? ` AND thread_id IN (SELECT thread_id FROM threads WHERE ${authFilterSql("metadata", auth, values)})` : "";
}

export function postgresRuns(pool: Pool): RunRepo {
  const finishStateless = statelessFinishGroups(pool);
  const enqueueUnclaimed = newThreadEnqueueGroups(pool);
  return {
    async enqueue(input, options): Promise<EnqueueResult> {
      if (options.createThread) {
        // A run nobody claims at creation may share its statement with others created at the same moment.
        const answer = options.claimFor ? await enqueueOnNewThread(pool, input, options) : await enqueueUnclaimed(input, options);
        if (answer) return answer;
      }
      return transaction(pool, async (client) => {
        const now = new Date();
        let created = false;
        let cancelled: string[] = [];
        let stopped: string[] = [];
        if (options.createThread) {
          // When the thread exists, or a concurrent enqueue has just created it, nothing is inserted
          // and the run takes the existing-thread path below. When this inserts it (the thread was
          // deleted since the statement above found it), the assistant was checked by that statement.
          const inserted = await query(
            client,
            `INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at)
             VALUES ($1, $2, $2, $2, $3::jsonb, 'busy', '{}', NULL, '{}', NULL, $4, $5, $6)
             ON CONFLICT (thread_id) DO NOTHING`,
            [
              input.thread_id,
              now,
              JSON.stringify({ ...options.threadMetadata, ...options.createThread.metadata }),
              ...newThreadTtl(options.createThread.ttl, now),
            ],
          );
          created = inserted.rowCount === 1;
        }
        if (!created) {
          // The lock orders this enqueue against claims, finishes, cancels and the sweeper on the
          // thread: its inflight runs cannot change between the reads below and the new run's insert.
          // The assistant's check rides along, before anything is written.
          const { rows: locked } = await query<{ graph_id: string | null; assistant_current: boolean }>(
            client,
            `SELECT metadata->>'graph_id' AS graph_id, ${assistantCurrent("$2", "$3", "$4")} AS assistant_current
             FROM threads WHERE thread_id = $1 FOR UPDATE`,
            [input.thread_id, input.assistant_id, ...assistantVersionParams(options)],
          );
          if (locked.length === 0) return { kind: "thread_missing" };
          if (hasAuthFilter(options.threadAuth)) {
            const values: unknown[] = [input.thread_id];
            const visible = await query(
              client,
              `SELECT 1 FROM threads WHERE thread_id = $1 AND ${authFilterSql("metadata", options.threadAuth, values)}`,
              values,
            );
            if (visible.rowCount === 0) return { kind: "thread_missing" };
          }
          if (!locked[0]!.assistant_current) return { kind: "assistant_changed" };
          const threadGraph = locked[0]!.graph_id;
          if (options.graphId !== undefined && threadGraph !== null && threadGraph !== options.graphId) return { kind: "wrong_graph", threadGraph };
          if (options.multitask === "reject") {
            const { rows } = await query(client, "SELECT 1 FROM runs WHERE thread_id = $1 AND status IN ('pending', 'running') LIMIT 1", [input.thread_id]);
            if (rows.length > 0) return { kind: "busy" };
          }
          await query(client, "UPDATE threads SET metadata = metadata || $2::jsonb, status = 'busy', updated_at = $3 WHERE thread_id = $1", [
            input.thread_id,
            JSON.stringify(options.threadMetadata),
            now,
          ]);
          if (options.multitask === "interrupt" || options.multitask === "rollback") {
            const result = await cancelOnLockedThreads(client, [input.thread_id], { status: "all" }, options.multitask, now, options.webhookFor);
            cancelled = result.flagged;
            stopped = result.stopped;
          }
        }
        // The thread's row is locked (or was just inserted), so its runs cannot change until commit.
        // A run may skip the queue when its thread has nothing else pending or running and no
        // eligible run is waiting: read in the insert itself, whose snapshot is taken after the lock.
        const claimFor = options.claimFor && input.available_at <= now ? options.claimFor : undefined;
        const { rows } = await query<RunRow>(
          client,
          `WITH starts AS (
             SELECT $9::boolean
               AND NOT EXISTS (SELECT 1 FROM runs WHERE thread_id = $2 AND status IN ('pending', 'running'))
               AND NOT EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND available_at <= $4) AS claimed
           )
           INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, available_at,
                             attempt, lease_owner, lease_until)
           SELECT $1, $2, $3, $4, $4, CASE WHEN starts.claimed THEN 'running' ELSE 'pending' END, $5::jsonb, $6::jsonb, $7, $8::timestamptz,
                  CASE WHEN starts.claimed THEN 1 ELSE 0 END, CASE WHEN starts.claimed THEN $10 END, CASE WHEN starts.claimed THEN $11::timestamptz END
           FROM starts
           RETURNING ${COLUMNS}`,
          [...runParams(input, now), claimFor !== undefined, claimFor?.workerId ?? null, claimFor ? new Date(now.getTime() + claimFor.leaseMs) : null],
        );
        // Stopping the old runs may have settled the thread to idle; the new run makes it busy again.
        // Otherwise the thread was inserted busy or set busy above, under the lock held since.
        if (cancelled.length > 0 || stopped.length > 0) await query(client, "UPDATE threads SET status = 'busy' WHERE thread_id = $1", [input.thread_id]);
        const row = rows[0]!;
        const createdRun = rowToRun(row);
        if (row.status !== "running") return { kind: "created", run: createdRun, cancelled, stopped };
        return { kind: "created", run: { ...createdRun, status: "pending" }, cancelled, stopped, claimed: rowToClaimed(row) };
      });
    },

    enqueueOnNewThreads: (items) => insertOnNewThreads(pool, items),
    async get(runId, threadId, auth) {
      const values: unknown[] = [runId, threadId ?? null];
      const { rows } = await query<RunRow>(
        pool,
        `SELECT ${COLUMNS} FROM runs WHERE run_id = $1 AND ($2::text IS NULL OR thread_id = $2)${andThreadVisible(auth, values)}`,
        values,
      );
      return rows[0] ? rowToRun(rows[0]) : null;
    },

    async list(threadId, filter, page, auth) {
      const values: unknown[] = [threadId, filter.status ?? null, page.limit, page.offset];
      const { rows } = await query<RunRow>(
        pool,
        `SELECT ${COLUMNS} FROM runs WHERE thread_id = $1 AND ($2::text IS NULL OR status = $2)${andThreadVisible(auth, values)}
         ORDER BY seq DESC LIMIT $3 OFFSET $4`,
        values,
      );
      return rows.map(rowToRun);
    },

    async delete(runId, threadId, auth) {
      const values: unknown[] = [runId, threadId ?? null];
      // A finished run never becomes pending or running again, so the status read here stays true.
      const { rows } = await query<{ status: RunStatus }>(
        pool,
        `WITH target AS (
           SELECT run_id, status FROM runs WHERE run_id = $1 AND ($2::text IS NULL OR thread_id = $2)${andThreadVisible(auth, values)}
         ), deleted AS (
           DELETE FROM runs r USING target
           WHERE r.run_id = target.run_id AND target.status NOT IN ('pending', 'running')
         )
         SELECT status FROM target`,
        values,
      );
      const status = rows[0]?.status;
      if (!status) return null;
      return status === "pending" || status === "running" ? "active" : "deleted";
    },

    async claim(workerId, leaseMs, now, limit) {
      // One statement. The oldest eligible runs and their thread rows are locked FOR UPDATE SKIP LOCKED:
      // two claimers never take the same run, and a claimer passes over a thread that another
      // claimer, an enqueue or a cancel is working on. A second run of a thread cannot start either:
      // a run leaves 'pending' only by a write to its own row, and a claimer whose snapshot predates
      // that write re-reads the row when locking it (READ COMMITTED re-checks the WHERE on the newest
      // version) and drops it, while in that same snapshot the dropped run still bars the thread's
      // later runs ("first pending by seq"). The unique index runs_one_running_per_thread backs this.
      // Only a thread's first pending run is eligible, so the runs one statement picks are on
      // different threads. The thread row is locked but rewritten only when it is not busy already
      // (a run before this one failed or was interrupted while it waited): a thread with a pending
      // run nearly always is busy (stateless threads are inserted busy), and rewriting its row, a
      // non-HOT update of indexed columns, was most of the claim's WAL.
      const { rows } = await query<RunRow>(
        pool,
        `WITH picked AS (
           SELECT r.run_id, r.thread_id, r.available_at, r.seq
           FROM runs r JOIN threads t ON t.thread_id = r.thread_id
           WHERE r.status = 'pending' AND r.available_at <= $3
             AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
             AND NOT EXISTS (SELECT 1 FROM runs y WHERE y.thread_id = r.thread_id AND y.status = 'pending' AND y.seq < r.seq)
           ORDER BY r.available_at, r.seq
           LIMIT $4
           FOR UPDATE OF r, t SKIP LOCKED
         ), claimed AS (
           UPDATE runs r SET status = 'running', lease_owner = $1, lease_until = $2, attempt = r.attempt + 1, updated_at = $3
           FROM picked WHERE r.run_id = picked.run_id
           RETURNING ${R_COLUMNS}
         ), busy AS (
           UPDATE threads t SET status = 'busy', updated_at = $3 FROM picked WHERE t.thread_id = picked.thread_id AND t.status <> 'busy'
         )
         SELECT c.* FROM claimed c JOIN picked p ON p.run_id = c.run_id ORDER BY p.available_at, p.seq`,
        [workerId, new Date(now.getTime() + leaseMs), now, limit],
      );
      return rows.map(rowToClaimed);
    },

    async heartbeat(workerId, runIds, leaseMs, now) {
      const cancels = new Map<string, CancelAction>();
      if (runIds.length === 0) return { cancels, lost: [] };
      // SKIP LOCKED: a run locked right now is being finished or flagged; its lease is extended at
      // the next beat. Never waiting keeps the heartbeat out of lock cycles with multi-run cancels.
      // The outer SELECT reads the rows as they were when the statement began, locked or not: a
      // run missing there is no longer this worker's.
      const { rows } = await query<{ run_id: string; cancel_action: CancelAction | null }>(
        pool,
        `WITH beat AS (
           UPDATE runs SET lease_until = $3
           WHERE run_id IN (
             SELECT run_id FROM runs WHERE run_id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'
             FOR UPDATE SKIP LOCKED)
           RETURNING run_id, cancel_action)
         SELECT r.run_id, b.cancel_action FROM runs r LEFT JOIN beat b ON b.run_id = r.run_id
         WHERE r.run_id = ANY($1::text[]) AND r.lease_owner = $2 AND r.status = 'running'`,
        [runIds, workerId, new Date(now.getTime() + leaseMs)],
      );
      for (const row of rows) if (row.cancel_action) cancels.set(row.run_id, row.cancel_action);
      const held = new Set(rows.map((row) => row.run_id));
      return { cancels, lost: runIds.filter((id) => !held.has(id)) };
    },

    async finish(runId, workerId, outcome) {
      // A thread deleted with its run (a stateless run's) reads nothing after the lock: one statement,
      // atomic as the transaction, shared with other runs finishing at the same moment. It deletes
      // the run whatever the outcome says, so a rollback's delete_run changes nothing there.
      if (outcome.delete_thread && !outcome.webhook) return finishStateless(runId, workerId);
      const now = new Date();
      // Thread first, then run: the lock order enqueue and cancel use too. The run's row is written
      // only once its thread's row is locked (the thread CTE must yield a row for the join).
      const lockThenRun = (runChange: string) => `WITH thread AS (
           SELECT thread_id FROM threads WHERE thread_id = (SELECT thread_id FROM runs WHERE run_id = $1) FOR UPDATE
         ), owned AS (
           ${runChange} AND status = 'running' AND lease_owner = $2 AND thread_id IN (SELECT thread_id FROM thread)
           RETURNING thread_id
         )`;
      const runChange = outcome.delete_run
        ? "DELETE FROM runs WHERE run_id = $1"
        : "UPDATE runs SET status = $3, lease_owner = NULL, lease_until = NULL, cancel_action = NULL, updated_at = $4 WHERE run_id = $1";
      const runParams = outcome.delete_run ? [runId, workerId] : [runId, workerId, outcome.status, now];
      return transaction(pool, async (client) => {
        const { rows: owned } = await query<{ thread_id: string }>(client, `${lockThenRun(runChange)} SELECT thread_id FROM owned`, runParams);
        const threadId = owned[0]?.thread_id;
        if (!threadId) return false;
        if (outcome.webhook) await insertWebhookDelivery(client, outcome.webhook, now);
        if (outcome.delete_thread) {
          await query(client, `WITH ${threadCheckpointDeletes("$1")} DELETE FROM threads WHERE thread_id = $1`, [threadId]);
          return true;
        }
        // A statement of its own, after the lock: its snapshot sees every run enqueued meanwhile.
        const params: unknown[] = [];
        const stamp = param(params, now);
        // The error always describes the latest run, so a run that did not fail clears an earlier one's.
        const sets = [
          `updated_at = ${stamp}`,
          `status = ${settledStatus(`${param(params, outcome.thread_status)}::text`)}`,
          `error = ${param(params, jsonOrNull(outcome.error ?? null))}::jsonb`,
        ];
        if (outcome.values !== undefined) sets.push(`"values" = ${param(params, jsonOrNull(outcome.values))}::jsonb`, `state_updated_at = ${stamp}`);
        if (outcome.interrupts !== undefined) sets.push(`interrupts = ${param(params, JSON.stringify(outcome.interrupts))}::jsonb`);
        await query(client, `UPDATE threads SET ${sets.join(", ")} WHERE thread_id = ${param(params, threadId)}`, params);
        return true;
      });
    },

    async release(runId, workerId, now) {
      // The thread stays busy: its run is pending again, and claims skip nothing on its account.
      const result = await query(
        pool,
        `UPDATE runs SET status = 'pending', lease_owner = NULL, lease_until = NULL, available_at = $3, updated_at = $3,
           handed_back = handed_back + 1
         WHERE run_id = $1 AND status = 'running' AND lease_owner = $2`,
        [runId, workerId, now],
      );
      return result.rowCount === 1;
    },

    async cancel(target, action, auth, webhookFor) {
      return transaction(pool, async (client) => {
        const now = new Date();
        // Only threads the caller may see: the runs cancelled below are those threads' runs.
        const values: unknown[] =
          "runIds" in target ? [target.runIds, target.threadId ?? null] : [target.status === "all" ? ["pending", "running"] : [target.status]];
        const { rows } =
          "runIds" in target
            ? await query<{ thread_id: string }>(
                client,
                `SELECT DISTINCT thread_id FROM runs WHERE run_id = ANY($1::text[]) AND ($2::text IS NULL OR thread_id = $2)${andThreadVisible(auth, values)}`,
                values,
              )
            : await query<{ thread_id: string }>(
                client,
                `SELECT DISTINCT thread_id FROM runs WHERE status = ANY($1::text[])${andThreadVisible(auth, values)}`,
                values,
              );
        const threads = await lockThreads(
          client,
          rows.map((r) => r.thread_id),
        );
        if (threads.length === 0) return { stopped: [], flagged: [] };
        return cancelOnLockedThreads(client, threads, target, action, now, webhookFor);
      });
    },

    async recoverExpired(now, maxAttempts, expiredBefore) {
      // SKIP LOCKED on run and thread: sweepers on several processes share the expired runs instead
      // of queueing on each other, and never touch a thread an enqueue or cancel is working on.
      const { rows } = await query<{ requeued: string; failed: string }>(
        pool,
        `WITH expired AS (
           SELECT r.run_id, r.attempt - r.handed_back AS lost
           FROM runs r JOIN threads t ON t.thread_id = r.thread_id
           WHERE r.status = 'running' AND r.lease_until < $3
           FOR UPDATE OF r, t SKIP LOCKED
         ), requeued AS (
           UPDATE runs r SET status = 'pending', lease_owner = NULL, lease_until = NULL, available_at = $1, updated_at = $1
           FROM expired e WHERE r.run_id = e.run_id AND e.lost < $2
           RETURNING r.run_id
         ), failed AS (
           UPDATE runs r SET status = 'error', lease_owner = NULL, lease_until = NULL, updated_at = $1
           FROM expired e WHERE r.run_id = e.run_id AND e.lost >= $2
           RETURNING r.run_id, r.thread_id, e.lost
         ), failed_threads AS (
           UPDATE threads t SET status = 'error', updated_at = $1,
             error = jsonb_build_object('error', 'RunAttemptsExhausted',
               'message', format('Run %s was lost by its worker %s times and will not be retried', f.run_id, f.lost))
           FROM failed f WHERE t.thread_id = f.thread_id
         )
         SELECT (SELECT COUNT(*) FROM requeued) AS requeued, (SELECT COUNT(*) FROM failed) AS failed`,
        [now, maxAttempts, expiredBefore ?? now],
      );
      return { requeued: Number(rows[0]?.requeued ?? 0), failed: Number(rows[0]?.failed ?? 0) };
    },

    async nextAvailableAt() {
      const { rows } = await query<{ at: Date | null }>(pool, "SELECT MIN(available_at) AS at FROM runs WHERE status = 'pending'");
      return rows[0]?.at ?? null;
    },

    async queueStats(now) {
      // Both partial indexes cover it: pending and running runs only, however long the history.
      const { rows } = await query<{ pending: string; running: string; oldest: Date | null }>(
        pool,
        `SELECT COUNT(*) FILTER (WHERE status = 'pending') AS pending, COUNT(*) FILTER (WHERE status = 'running') AS running,
           MIN(available_at) FILTER (WHERE status = 'pending' AND available_at <= $1) AS oldest
         FROM runs WHERE status IN ('pending', 'running')`,
        [now],
      );
      return { pending: Number(rows[0]?.pending ?? 0), running: Number(rows[0]?.running ?? 0), oldestDueAt: rows[0]?.oldest ?? null };
    },
  };
}
