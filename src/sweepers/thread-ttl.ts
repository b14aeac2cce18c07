// Sweeps threads whose TTL ran out, on the checkpointer.ttl sweep interval: at most sweep_limit
// threads a pass, each deleted or pruned to its latest checkpoint as its strategy says.
import type { ThreadService } from "../domain/threads.js";
import type { Logger } from "../logging.js";
import { startIntervalSweeper, type Sweeper } from "./interval-sweeper.js";

export function startThreadTtlSweeper(options: { threads: ThreadService; intervalMs: number; limit: number; log: Logger }): Sweeper {
  const { threads, intervalMs, limit, log } = options;
  return startIntervalSweeper({ what: "expired threads", intervalMs, log, sweep: () => threads.sweepExpired(new Date(), limit) });
}
