// Deletes store items whose TTL ran out, on the `store.ttl.sweep_interval_minutes` interval. Reads
// already hide expired items, so sweeping only reclaims space; one tick deletes in batches until a
// batch comes back short.
import type { StoreService } from "../domain/store.js";
import type { Logger } from "../logging.js";
import { startIntervalSweeper, type Sweeper } from "./interval-sweeper.js";

/** Rows per DELETE: small enough that a sweep never holds locks for long. */
const BATCH = 1000;

export function startStoreTtlSweeper(options: { store: StoreService; intervalMs: number; log: Logger }): Sweeper {
  const { store, intervalMs, log } = options;
  return startIntervalSweeper({
    what: "expired store items",
    intervalMs,
    log,
    sweep: async () => {
      let deleted = 0;
      let batch: number;
      do {
        batch = await store.sweepExpired(new Date(), BATCH);
        deleted += batch;
      } while (batch === BATCH);
      return deleted;
    },
  });
}
