// Runs a pass of work on demand, one pass at a time: wake-ups that arrive during a pass coalesce
// into one more pass after it, so a burst of them costs two passes, never one per wake-up. The
// queue worker, the webhook delivery loop and the reconciler each drive their work through one.

export interface WakeLoop {
  /** Starts a pass now, or one more after the pass under way. Does nothing once stopped. */
  wake(): void;
  /** Starts no more passes and resolves when the one under way (if any) has finished. */
  stop(): Promise<void>;
}

/**
 * `onError` receives what a pass threw; the loop goes on, and the next wake-up starts a pass as
 * usual (the callers' polls are what retry a pass that failed).
 */
export function wakeLoop(pass: () => Promise<void>, onError: (err: unknown) => void): WakeLoop {
  let running: Promise<void> | undefined;
  // Set before the first pass starts: a pass that wakes the loop synchronously gets one more pass,
  // not a second pass at the same time.
  let busy = false;
  let again = false;
  let stopped = false;

  const drain = async () => {
    try {
      do {
        again = false;
        try {
          await pass();
        } catch (err) {
          onError(err);
        }
      } while (again && !stopped);
    } finally {
      busy = false;
      running = undefined;
    }
  };

  return {
    wake() {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      running = drain();
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
