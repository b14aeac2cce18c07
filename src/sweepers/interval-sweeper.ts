// Runs a sweep on an interval, one at a time; a failed sweep is logged and retried at the next
// tick, never crashing the server. The timer does not keep the process alive.
import { isUnavailable } from "../errors.js";
import type { Logger } from "../logging.js";

export interface Sweeper {
  stop(): Promise<void>;
}

export function startIntervalSweeper(options: { what: string; intervalMs: number; sweep: () => Promise<number>; log: Logger }): Sweeper {
  const { what, intervalMs, sweep, log } = options;
  let running: Promise<void> | null = null;
  const tick = async () => {
    try {
      const deleted = await sweep();
      if (deleted > 0) log.info(`swept ${what}`, { deleted });
    } catch (err) {
      // Storage logs an outage once: the sweep just tries again at the next tick.
      log[isUnavailable(err) ? "debug" : "warn"](`sweeping ${what} failed; will retry`, { err });
    }
  };
  const timer = setInterval(() => {
    if (!running) running = tick().finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
