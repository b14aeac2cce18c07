// The two messages between run creators and workers, over the bus: "a run may be claimable" and
// "stop this run". Both are hints that save a wait: the run rows in storage stay the truth (a
// worker polls, and its heartbeat reads cancel requests back from the run rows).
import type { RunSignals } from "../domain/runs.js";
import type { MessageBus } from "../events/event-bus.js";
import type { RunEventLog } from "../events/run-event-log.js";
import type { Logger } from "../logging.js";
import type { CancelAction } from "../storage/run-ports.js";
import type { Worker } from "./worker.js";

export const WAKE_TOPIC = "runs:wake";
export const CANCEL_TOPIC = "runs:cancel";

export interface CancelMessage {
  run_id: string;
  action: CancelAction;
}

export function publishWake(bus: MessageBus): Promise<void> {
  return bus.publish(WAKE_TOPIC, "");
}

export async function publishCancels(bus: MessageBus, runIds: string[], action: CancelAction): Promise<void> {
  await Promise.all(runIds.map((run_id) => bus.publish(CANCEL_TOPIC, JSON.stringify({ run_id, action } satisfies CancelMessage))));
}

export function parseCancel(message: string): CancelMessage | null {
  try {
    const parsed = JSON.parse(message) as Partial<CancelMessage>;
    if (typeof parsed.run_id !== "string" || (parsed.action !== "interrupt" && parsed.action !== "rollback")) return null;
    return { run_id: parsed.run_id, action: parsed.action };
  } catch {
    return null;
  }
}

export interface RunSignalDeps {
  events: RunEventLog;
  bus: MessageBus;
  /** This process's worker, when it runs one: a run created here starts on it when it has room, without a claim. */
  worker?: Worker;
  /** Wakes the webhook delivery loop: a run stopped before it started may have had its webhook written with the cancel. */
  webhookRecorded?: () => void;
  log: Logger;
}

/** How the run service tells the queue about new and cancelled runs, on this process and over the bus. */
export function runSignals(deps: RunSignalDeps): RunSignals {
  const { events, bus, worker, log } = deps;
  return {
    async created(run, claimed) {
      // The open and the wake-up go together; the creator's readers start once both are done. The
      // open is createOnly: a worker may have claimed the run (woken, or from the queue), run it
      // and ended its log before this open arrives, and reopening it would leave them waiting.
      await Promise.all([
        events.open(run.run_id, { resumable: true, createOnly: true }),
        // A lost wake-up costs one poll: never fail a run creation over it.
        claimed
          ? undefined
          : publishWake(bus).catch((err: unknown) => log.warn("publishing a wake-up failed; workers will poll", { err: (err as Error).message })),
      ]);
    },
    reserve: () => worker?.reserve(),
    cancelRequested(runIds, action) {
      // Whichever replica runs it hears this; a lost message is caught by the next heartbeat.
      publishCancels(bus, runIds, action).catch((err: unknown) => log.warn("publishing a cancel failed; the worker's heartbeat will see it", { err }));
    },
    async stopped(runIds) {
      for (const runId of runIds) await events.end(runId);
      deps.webhookRecorded?.();
    },
  };
}
