// What deleting or pruning threads takes with it, shared by thread deletes, prunes and the TTL
// sweep: a deleted thread goes with its checkpoints and every event log it left (its runs', its
// thread stream's, its protocol stream's); a pruned one keeps only its newest checkpoint.
import { protocolLogKey, threadLogKey, type RunEventLog } from "../events/run-event-log.js";
import type { CheckpointStore } from "../storage/checkpoint-ports.js";
import type { ThreadRepo } from "../storage/ports.js";
import type { RunRepo } from "../storage/run-ports.js";

export interface ThreadRemovalDeps {
  threads: ThreadRepo;
  checkpoints: CheckpointStore;
  /** For the logs a deleted thread leaves: its runs are listed before it goes (they go with it). */
  runs: RunRepo;
  events: RunEventLog;
}

/** Runs listed per page when collecting a deleted thread's run logs. */
const RUN_PAGE = 1000;

/** A sweeper that claims a thread to delete and dies first leaves it to be claimed again this much later. */
const SWEEP_RETRY_MS = 5 * 60_000;

/** Every event log key of the threads, read before they are deleted. */
export async function eventLogsOf(deps: Pick<ThreadRemovalDeps, "runs">, threadIds: string[]): Promise<string[]> {
  const keys: string[] = [];
  for (const threadId of threadIds) {
    keys.push(threadLogKey(threadId), protocolLogKey(threadId));
    for (let offset = 0; ; offset += RUN_PAGE) {
      const page = await deps.runs.list(threadId, {}, { limit: RUN_PAGE, offset });
      for (const run of page) keys.push(run.run_id);
      if (page.length < RUN_PAGE) break;
    }
  }
  return keys;
}

/** Deletes the threads with their checkpoints and event logs, as a thread delete does; returns how many went. */
export async function deleteThreads(deps: ThreadRemovalDeps, threadIds: string[]): Promise<number> {
  if (threadIds.length === 0) return 0;
  const logs = await eventLogsOf(deps, threadIds);
  const deleted = await deps.threads.deleteMany(threadIds);
  for (const id of threadIds) await deps.checkpoints.deleteThread(id);
  await deps.events.delete(logs);
  return deleted;
}

/** keep_latest: every checkpoint but the newest goes; the thread and its latest state stay. */
export async function keepLatest(deps: Pick<ThreadRemovalDeps, "checkpoints">, threadIds: string[]): Promise<void> {
  for (const id of threadIds) {
    const latest = await deps.checkpoints.latestCheckpointId(id);
    if (latest) await deps.checkpoints.deleteBefore(id, latest);
  }
}

/**
 * One TTL sweep pass: claims up to `limit` expired threads (ThreadRepo.claimExpired keeps
 * concurrent sweeps apart) and deletes or prunes each as its strategy says; returns how many.
 */
export async function sweepExpiredThreads(deps: ThreadRemovalDeps, now: Date, limit: number): Promise<number> {
  const claimed = await deps.threads.claimExpired(now, limit, new Date(now.getTime() + SWEEP_RETRY_MS));
  const doomed = claimed.filter((t) => t.strategy === "delete").map((t) => t.thread_id);
  const pruned = claimed.filter((t) => t.strategy === "keep_latest").map((t) => t.thread_id);
  await keepLatest(deps, pruned);
  return (await deleteThreads(deps, doomed)) + pruned.length;
}
