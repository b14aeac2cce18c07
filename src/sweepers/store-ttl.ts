// Deletes store items whose TTL ran out, on the `store.ttl.sweep_interval_minutes` interval. Reads
// already hide expired items, so sweeping only reclaims space: a failed sweep is logged and retried
// at the next tick, and one tick deletes in batches until a batch comes back short.
import type { StoreService } from "../domain/store.js";
import type { Logger } from "../logging.js";
import type { Sweeper } from "./thread-ttl.js";

/** Rows per DELETE: small enough that a sweep never holds locks for long. */
const BATCH = 1000;

export function startStoreTtlSweeper(options: { store: StoreService; intervalMs: number; log: Logger }): Sweeper {
  const { store, intervalMs, log } = options;
  let running: Promise<void> | null = null;
  const sweep = async () => {
    try {
      let deleted = 0;
      let batch: number;
      do {
        batch = await store.sweepExpired(new Date(), BATCH);
        deleted += batch;
      } while (batch === BATCH);
      if (deleted > 0) log.info("swept expired store items", { deleted });
    } catch (err) {
      log.warn("store TTL sweep failed; will retry", { err });
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
