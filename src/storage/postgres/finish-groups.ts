// Finishes of concurrent stateless runs share statements. Such a finish deletes the run, its thread
// and the thread's checkpoints, with nothing to read after the lock; it starts at once when fewer than
// MAX_IN_FLIGHT statements are out, and otherwise waits and leaves with every finish queued behind
// it, in one statement of array parameters (one fixed text, so it is prepared once per connection).
// A lone run's finish therefore goes as before, one statement, while 32 runs' finishes go a few to a
// statement: fewer statements, commits and WAL flushes (docs/decisions.md).
//
// Grouping is safe because one statement is atomic: every run of a group is finished, or none is.
// Each finish still resolves only once its group committed, so it is as durable as before. A group
// that fails is retried one finish at a time, so a finish fails only for itself. The statement
// locks its threads in thread_id order, as every writer holding several thread locks does (runs.ts).
import type pg from "pg";
import { threadCheckpointDeletes } from "./checkpoints.js";
import { run as query } from "./sql-helpers.js";

/** Statements out at once: a second one keeps a lock wait on one thread from holding every finish. */
const MAX_IN_FLIGHT = 2;
/** Finishes per statement: bounds one statement's size when a backlog has built up. */
const MAX_FINISHES = 64;

interface Queued {
  runId: string;
  workerId: string;
  done: (err: unknown, finished?: boolean) => void;
}

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
  const queue: Queued[] = [];
  let inFlight = 0;

  async function send(group: Queued[]): Promise<void> {
    try {
      const { rows } = await query<{ run_id: string }>(pool, STATEMENT, [group.map((q) => q.runId), group.map((q) => q.workerId)]);
      const finished = new Set(rows.map((r) => r.run_id));
      // A run finished twice in one group is finished once: its first finish answers true, as if they had gone one after the other.
      for (const q of group) q.done(undefined, finished.delete(q.runId));
    } catch (err) {
      if (group.length === 1) group[0]!.done(err);
      else for (const q of group) await send([q]);
    }
  }

  function pump(): void {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const group = queue.splice(0, MAX_FINISHES);
      inFlight += 1;
      void send(group).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  return (runId, workerId) =>
    new Promise<boolean>((resolve, reject) => {
      queue.push({ runId, workerId, done: (err, finished) => (err === undefined ? resolve(finished === true) : reject(err)) });
      pump();
    });
}
