// The two messages between run creators and workers, over the bus: "a run may be claimable" and
// "stop this run". Both are hints that save a wait: the run rows in storage stay the truth (a
// worker polls, and its heartbeat reads cancel requests back from the run rows).
import type { MessageBus } from "../events/event-bus.js";
import type { CancelAction } from "../storage/run-ports.js";

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
