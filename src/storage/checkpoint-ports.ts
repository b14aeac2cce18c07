// Checkpoints are kept by the official LangGraph savers (SqliteSaver / PostgresSaver) in the same
// database as everything else. This port adds the thread-level operations the savers lack.
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

/** The lease a worker holds a run under: the run's row says running, held by `workerId`, at `attempt`. */
export interface RunLease {
  workerId: string;
  attempt: number;
}

export interface CheckpointStore {
  /** The official saver, attached to every graph that runs. */
  readonly saver: BaseCheckpointSaver;
  /** Every checkpoint and pending write of the thread, in all namespaces. */
  deleteThread(threadId: string): Promise<void>;
  /** Copies every checkpoint and write of one thread to another (thread copy). */
  copyThread(fromThreadId: string, toThreadId: string): Promise<void>;
  /**
   * Deletes what a run wrote on the thread: its checkpoints (found by the run_id the saver records
   * in their metadata) and every later one, in all namespaces, with their writes. Rolling back a
   * run restores the thread to the state before it; a run that wrote nothing leaves it as it is.
   */
  deleteRun(threadId: string, runId: string): Promise<void>;
  /** Deletes the thread's checkpoints (and writes) older than `checkpointId`: pruning history. */
  deleteBefore(threadId: string, checkpointId: string): Promise<void>;
  /** The newest root checkpoint id of the thread, or null. */
  latestCheckpointId(threadId: string): Promise<string | null>;
  /**
   * Waits for the run's checkpoint writes in flight, then drops every later one: an aborted graph
   * may still be writing when its run's checkpoints are deleted (see fenced-saver.ts).
   */
  fenceRun(runId: string): Promise<void>;
  /**
   * Until the returned function is called, each checkpoint write of the run lands only while the
   * run is still held under `lease`, checked in the write's own statement (a write refused so
   * rejects with LeaseLostError): a worker that lost the run (frozen, partitioned) writes nothing.
   * The first write of the run that fails, for that or any reason (the database away), calls
   * `failed` once and every later write of the run is refused with the same error, so the run
   * stops at that step and its next attempt resumes from the last checkpoint that landed. Once the
   * guard ends, the attempt's later writes (a step winding down after an abort) are refused too; a
   * write names its attempt by the `run_attempt` of the run's metadata.
   */
  guardWrites(runId: string, lease: RunLease, failed: (err: unknown) => void): () => void;
  /** The run starts on a thread with no checkpoint: its graph's first read of the latest one skips the database. */
  startsEmpty(runId: string): void;
  /**
   * A run whose thread goes when it ends (a stateless run) may have its checkpoint writes held back
   * a moment and written together, or not at all if it ends first (postgres/held-checkpoint-writes.ts);
   * a backend whose writes cost no round trip writes them at once. Ended by `releaseWrites`.
   */
  holdWrites(runId: string): void;
  /** Ends the hold: `keep` writes what is held and resolves once it has landed; otherwise it is dropped with the thread. */
  releaseWrites(runId: string, keep: boolean): Promise<void>;
}
