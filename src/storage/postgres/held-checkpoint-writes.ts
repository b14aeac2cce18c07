// A stateless run's thread is deleted with its checkpoints when the run ends, and most such runs
// end within a few hundred milliseconds: every checkpoint they wrote was a round trip, a commit and
// a WAL flush for rows deleted a moment later (5 of a one-node run's 8 statements). A held run's
// checkpoint writes stay here, already serialised, until HOLD_MS after its first one: then they
// are written, in order, and the run's later writes go straight to the database as before. A run
// that ends sooner has them dropped with its thread, or written before its outcome is recorded.
//
// What a crash costs changes by at most HOLD_MS: a stateless run's later attempt resumes from its
// last checkpoint written, which may be up to HOLD_MS of steps older. Reads on this process never
// see the difference (a read of a held thread writes its jobs first); another replica reading the
// temporary thread mid-run sees it up to HOLD_MS late. Runs that ask for durability "sync" are not
// held (execute-run.ts).
import type { CheckpointJob } from "./checkpoint-write-groups.js";

/** The longest a held run's first checkpoint waits to be written. */
export const HOLD_MS = 250;

export interface HeldCheckpointWrites {
  /** A job of `runId` (when it names one): kept if the run is held, otherwise written at once. */
  submit(runId: string | undefined, job: CheckpointJob): Promise<void>;
  /** The run's writes are held from now on, until HOLD_MS after its first one or until released. */
  hold(runId: string): void;
  /** Ends the hold: `keep` writes the held jobs (resolving once they have landed), otherwise drops them. */
  release(runId: string, keep: boolean): Promise<void>;
  /** Writes every held job of the thread: called before anything reads or changes its checkpoints. */
  flushThread(threadId: string): Promise<void>;
  /** Writes every held job (a read across threads). */
  flushAll(): Promise<void>;
  /** Drops every held job of the thread, whose checkpoints are being deleted. */
  dropThread(threadId: string): void;
}

interface Held {
  jobs: CheckpointJob[];
  timer?: NodeJS.Timeout;
}

export function heldCheckpointWrites(write: (job: CheckpointJob) => Promise<void>, holdMs = HOLD_MS): HeldCheckpointWrites {
  // A few runs at most (one per worker slot), each with a few jobs: the runs holding a thread's
  // jobs are found by looking, not kept in an index of their own.
  const held = new Map<string, Held>();
  /** Timed writes that failed, for the run's next write or its release to report. */
  const failures = new Map<string, unknown>();

  const forget = (runId: string, entry: Held) => {
    held.delete(runId);
    clearTimeout(entry.timer);
  };

  const holding = (threadId: string) => [...held].filter(([, entry]) => entry.jobs.some((job) => job.threadId === threadId));

  /** The held jobs of `runId`, written in their order (the write queue keeps a thread's order). */
  const flush = (runId: string): Promise<void> => {
    const entry = held.get(runId);
    if (!entry) return Promise.resolve();
    forget(runId, entry);
    return Promise.all(entry.jobs.map(write)).then(() => undefined);
  };

  const flushOnTimer = (runId: string) => {
    flush(runId).catch((err: unknown) => failures.set(runId, err));
  };

  return {
    submit(runId, job) {
      const entry = runId === undefined ? undefined : held.get(runId);
      if (!entry) {
        const failure = runId === undefined ? undefined : failures.get(runId);
        if (failure !== undefined) {
          failures.delete(runId!);
          return Promise.reject(failure);
        }
        return write(job);
      }
      entry.jobs.push(job);
      if (!entry.timer) {
        entry.timer = setTimeout(() => flushOnTimer(runId!), holdMs);
        entry.timer.unref();
      }
      return Promise.resolve();
    },

    hold(runId) {
      if (!held.has(runId)) held.set(runId, { jobs: [] });
    },

    async release(runId, keep) {
      const failure = failures.get(runId);
      failures.delete(runId);
      if (keep) {
        await flush(runId);
        if (failure !== undefined) throw failure;
        return;
      }
      const entry = held.get(runId);
      if (entry) forget(runId, entry);
    },

    async flushThread(threadId) {
      await Promise.all(holding(threadId).map(([runId]) => flush(runId)));
    },

    async flushAll() {
      await Promise.all([...held.keys()].map(flush));
    },

    dropThread(threadId) {
      for (const [runId, entry] of holding(threadId)) forget(runId, entry);
    },
  };
}
