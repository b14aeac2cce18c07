// The run queue's storage port. Runs are rows: creating one applies the thread's multitask rule in
// the same transaction, a worker claims the oldest eligible run under a lease, and finishing a run
// sets the thread's status in the same transaction, so a thread is never left busy by a half-write.
import type { AuthFilter } from "./auth-filter.js";
import type { Assistant, Json, JsonObject, MultitaskStrategy, Run, RunKwargs, RunStatus, ThreadStatus } from "./records.js";
import type { NewWebhookDelivery } from "./webhook-ports.js";
import type { ThreadTtlInput } from "./ports.js";

export type CancelAction = "interrupt" | "rollback";

export interface NewRun {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  metadata: JsonObject;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy | null;
  /** When the run becomes eligible to start (now + after_seconds). */
  available_at: Date;
}

/** A run on a thread of its own that does not exist yet, and the metadata that thread is created with. */
export interface NewRunOnNewThread {
  run: NewRun;
  threadMetadata: JsonObject;
}

export interface EnqueueOptions {
  /** Create the thread when it is missing, with this metadata; otherwise a missing thread is refused. */
  /** `ttl`: the configured default_ttl a thread created here starts with, as one created by POST /threads would. */
  createThread?: { metadata: JsonObject; temporary: boolean; ttl?: ThreadTtlInput };
  /** Merged into the thread's metadata (graph_id, assistant_id). */
  threadMetadata: JsonObject;
  /** The run's graph: when given, an existing thread whose metadata names another graph refuses the run. */
  graphId?: string;
  /** How to treat runs already pending or running on the thread. */
  multitask: MultitaskStrategy;
  /** An existing thread whose metadata does not match is treated as missing (and never created over). */
  threadAuth?: AuthFilter;
  /** The webhook of a pending run that interrupt stops before it started, written in the same transaction. */
  webhookFor?: StoppedRunWebhook;
  /**
   * A worker of the creating process with a free slot. When the run could be claimed right now
   * (available now, nothing else pending or running on its thread, no eligible run waiting in the
   * queue), it is stored running under this worker's lease: the claim's round trip is saved, and
   * the queue's order is kept.
   */
  claimFor?: { workerId: string; leaseMs: number };
  /**
   * The run's assistant (NewRun.assistant_id) as the caller knows it, from a cache that may be
   * stale: the run is created only while the assistant's row still has this version and
   * updated_at, checked inside the enqueue's own statements; otherwise `assistant_changed`, and
   * nothing is written. The version alone would not do: an assistant deleted and created again
   * starts over at version 1. Every write of the row stamps updated_at.
   */
  assistantVersion?: Pick<Assistant, "version" | "updated_at">;
}

/**
 * A pending run stopped by a cancel never reaches a worker, so storage writes its webhook (when this
 * returns one) in the transaction that stops it. Not called for rollback: the run row is deleted.
 */
export type StoppedRunWebhook = (run: Run) => NewWebhookDelivery | undefined;

export type EnqueueResult =
  | {
      kind: "created";
      run: Run;
      /** Running runs that were asked to stop (interrupt/rollback). */
      cancelled: string[];
      /** Pending runs that were stopped (or deleted) at once by interrupt/rollback. */
      stopped: string[];
      /** Set when the run was claimed at once for `claimFor`; `run` still shows it as created (pending). */
      claimed?: ClaimedRun;
    }
  | { kind: "thread_missing" }
  | { kind: "busy" }
  /** The thread belongs to `threadGraph`, not the run's graph. */
  | { kind: "wrong_graph"; threadGraph: string }
  /** The assistant no longer matches `assistantVersion` (updated, set to another version, or deleted). */
  | { kind: "assistant_changed" };

export interface ClaimedRun extends Run {
  attempt: number;
  /** Set when a cancel was requested before or during the run. */
  cancel_action: CancelAction | null;
}

export interface Heartbeat {
  cancels: Map<string, CancelAction>;
  lost: string[];
}

export interface RunOutcome {
  status: Exclude<RunStatus, "pending" | "running">;
  /** The thread status this outcome calls for; `idle` becomes `busy` when more runs are waiting. */
  thread_status: Exclude<ThreadStatus, "busy">;
  /** Latest state of the thread, copied onto the thread row; undefined leaves them as they are. */
  values?: Json | null;
  interrupts?: JsonObject;
  error?: Json | null;
  /** Delete the run row (rollback) instead of recording the outcome. */
  delete_run?: boolean;
  /** Delete the thread too, with its checkpoints (a stateless run's temporary thread); kept when the lease was lost. */
  delete_thread?: boolean;
  /** The run's webhook, written to the outbox in the same transaction (only when the outcome is recorded). */
  webhook?: NewWebhookDelivery;
}

export interface CancelResult {
  /** Pending runs that were stopped (or deleted, with rollback) right away. */
  stopped: string[];
  /** Running runs that were flagged; their workers must be told. */
  flagged: string[];
}

/**
 * Methods taking `auth` see a run only when its thread's metadata matches it (spec §6.5): a
 * stateless run is filtered through its own thread, created with the run's metadata.
 */
export interface RunRepo {
  enqueue(run: NewRun, options: EnqueueOptions): Promise<EnqueueResult>;
  /**
   * Creates several runs at once, each pending on a new thread (inserted busy) of its own: what
   * `enqueue` with `createThread` does for a thread that does not exist, in one write for the lot.
   * A run whose thread id exists already is left out, and nothing of it is written. Returns the
   * runs created, in the order given. Nothing is claimed at creation: workers claim them in order.
   */
  enqueueOnNewThreads(runs: NewRunOnNewThread[]): Promise<Run[]>;
  get(runId: string, threadId?: string, auth?: AuthFilter): Promise<Run | null>;
  list(threadId: string, filter: { status?: RunStatus }, page: { limit: number; offset: number }, auth?: AuthFilter): Promise<Run[]>;
  /** Deletes a run that is not pending or running; "active" when it is, null when it is missing. */
  delete(runId: string, threadId?: string, auth?: AuthFilter): Promise<"deleted" | "active" | null>;
  /**
   * Claims up to `limit` of the oldest eligible pending runs, oldest first: available now, first in
   * their thread's queue, and on a thread with no running run (so at most one per thread). Marks
   * each running under a lease for `workerId` and counts the attempt; its thread becomes busy
   * (with a new updated_at) unless it is busy already, in which case the thread is left as it is.
   * One call, whatever the limit: a worker with several free slots fills them in one round trip.
   */
  claim(workerId: string, leaseMs: number, now: Date, limit: number): Promise<ClaimedRun[]>;
  /**
   * Extends the leases of runs this worker holds; returns their pending cancel requests, and the
   * runs of `runIds` it no longer holds (requeued, taken by another worker, finished): their
   * worker must stop them without recording anything.
   */
  heartbeat(workerId: string, runIds: string[], leaseMs: number, now: Date): Promise<Heartbeat>;
  /** Records the outcome of a running run held by `workerId`; false when the lease was lost. */
  finish(runId: string, workerId: string, outcome: RunOutcome): Promise<boolean>;
  /**
   * Hands a running run held by `workerId` back to the queue (a worker shutting down, or one that
   * lost the database mid-run): pending again at once, for another worker to resume from its last
   * checkpoint. A handed-back attempt does not count against `maxAttempts`. False when not held.
   */
  release(runId: string, workerId: string, now: Date): Promise<boolean>;
  /** Cancels runs by id (optionally on one thread), or every run with a status ("pending"/"running"/"all"). */
  cancel(
    target: { runIds: string[]; threadId?: string } | { status: "pending" | "running" | "all" },
    action: CancelAction,
    auth?: AuthFilter,
    webhookFor?: StoppedRunWebhook,
  ): Promise<CancelResult>;
  /**
   * Running runs whose lease ran out go back to pending (their next attempt resumes from the last
   * checkpoint), or end in error once `maxAttempts` attempts were lost this way (attempts handed
   * back by `release` are not). Returns how many of each.
   * `expiredBefore` (default `now`) lets a process that knows it is the only one, such as `gantry
   * dev` at boot, recover leases that have not run out yet; `now` stamps what is written.
   */
  recoverExpired(now: Date, maxAttempts: number, expiredBefore?: Date): Promise<{ requeued: number; failed: number }>;
  /** The earliest time a pending run becomes eligible, for the worker's next wake-up. */
  nextAvailableAt(): Promise<Date | null>;
  /** The queue as /metrics shows it, across every replica: runs pending and running, and since when the oldest due one waits. */
  queueStats(now: Date): Promise<QueueStats>;
}

export interface QueueStats {
  pending: number;
  running: number;
  /** When the pending run that has been due longest became due; null when none is. */
  oldestDueAt: Date | null;
}
