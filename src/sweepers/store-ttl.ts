// Deletes store items whose TTL ran out, on the `store.ttl.sweep_interval_minutes` interval. Reads
// already hide expired items, so sweeping only reclaims space; one pass deletes in batches until a
// batch comes back short or the pass reaches its bound, and the next pass carries on from there.
import type { StoreService } from "../domain/store.js";
import type { Logger } from "../logging.js";
import { startIntervalSweeper, type Sweeper } from "./interval-sweeper.js";

/** Rows per DELETE: small enough that a sweep never holds locks for long. */
const BATCH = 1000;
/**
 * Rows per pass: the platform's store.ttl has no sweep_limit, so the bound is fixed, a pass's work
 * kept about that of one checkpointer sweep at its default sweep_limit.
 */
const PASS_LIMIT = 10 * BATCH;

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
      } while (batch === BATCH && deleted < PASS_LIMIT);
      return deleted;
    },
  });
}
