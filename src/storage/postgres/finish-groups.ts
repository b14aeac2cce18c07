// Finishes of concurrent stateless runs share statements (queued as statement-groups.ts queues
// them). Such a finish deletes the run, its thread and the thread's checkpoints, with nothing to
// read after the lock; a group goes in one statement of array parameters (one fixed text, so it is
// prepared once per connection). A lone run's finish therefore goes as before, one statement, while
// 32 runs' finishes go a few to a statement: fewer statements, commits and WAL flushes
// (docs/decisions.md).
//
// Grouping is safe because one statement is atomic: every run of a group is finished, or none is,
// and each finish resolves only once its group committed, so it is as durable as before. The
// statement locks its threads in thread_id order, as every writer holding several thread locks
// does (runs.ts).
import type pg from "pg";
import { threadCheckpointDeletes } from "./checkpoints.js";
import { run as query } from "./sql-helpers.js";
import { statementGroups } from "./statement-groups.js";

// Each run is finished only while it is still running under its worker's lease, and only once its
// thread's row is locked (the thread CTE must yield it), as finish does on one run. The runs go
// with their threads by the foreign key's cascade; deleting them here first keeps the statement's
// answer (which runs it finished) to the rows it matched.
const STATEMENT = `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::text[]) AS i(run_id, worker_id)
   ), thread AS (
     SELECT thread_id FROM threads
     WHERE thread_id IN (SELECT r.thread_id FROM runs r JOIN input i ON i.run_id = r.run_id)
     ORDER BY thread_id
     FOR UPDATE
   ), owned AS (
     DELETE FROM runs r USING input i
     WHERE r.run_id = i.run_id AND r.status = 'running' AND r.lease_owner = i.worker_id AND r.thread_id IN (SELECT thread_id FROM thread)
     RETURNING r.run_id, r.thread_id
   ), ${threadCheckpointDeletes("SELECT thread_id FROM owned")},
   deleted_threads AS (
     DELETE FROM threads WHERE thread_id IN (SELECT thread_id FROM owned)
   )
   SELECT run_id FROM owned`;

/**
 * finish for a stateless run (the thread deleted with it, no webhook): true when the run was still
 * running under `workerId`'s lease and is gone now with its thread, false when the lease was lost.
 */
export function statelessFinishGroups(pool: pg.Pool): (runId: string, workerId: string) => Promise<boolean> {
  const finish = statementGroups<{ runId: string; workerId: string }, boolean>(async (jobs) => {
    const { rows } = await query<{ run_id: string }>(pool, STATEMENT, [jobs.map((j) => j.runId), jobs.map((j) => j.workerId)]);
    const finished = new Set(rows.map((r) => r.run_id));
    // A run finished twice in one group is finished once: its first finish answers true, as if they had gone one after the other.
    return jobs.map((j) => finished.delete(j.runId));
  });
  return (runId, workerId) => finish({ runId, workerId });
}
