// Deletes threads whose TTL ran out, on an interval. One sweep at a time; a failed sweep is logged
// and retried at the next tick, never crashing the server.
import type { ThreadService } from "../domain/threads.js";
import type { Logger } from "../logging.js";

export interface Sweeper {
  stop(): Promise<void>;
}

export function startThreadTtlSweeper(options: { threads: ThreadService; intervalMs: number; limit: number; log: Logger }): Sweeper {
  const { threads, intervalMs, limit, log } = options;
  let running: Promise<void> | null = null;
  const sweep = async () => {
    try {
      const deleted = await threads.sweepExpired(new Date(), limit);
      if (deleted > 0) log.info("swept expired threads", { deleted });
    } catch (err) {
      log.warn("thread TTL sweep failed; will retry", { err });
    }
  };
  const timer = setInterval(() => {
    if (!running) running = sweep().finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
