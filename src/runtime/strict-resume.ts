// Strict resume (SDK 1.15 `strictResume`, wire `strict_resume`): a resume that answers no waiting
// interrupt is refused before the graph runs, so nothing is written and the interrupts still
// waiting can be answered. The rule is LangGraph's own (its UnknownInterruptError, reasons
// `not_pending`, `empty_map`, `ambiguous`), checked here on the thread's state so that it holds
// whichever LangGraph version the project brings.
import type { ThreadState } from "./thread-state.js";
import type { WireError } from "./wire-serde.js";

export type RefusalReason = "not_pending" | "empty_map" | "ambiguous";

/** What the SDK reads from a refusal (stream/refusal.ts in the SDK): snake_case on the wire. */
export interface RefusalWire extends WireError {
  reason: RefusalReason;
  interrupt_ids: string[];
  pending_ids: string[];
}

export class UnknownInterruptError extends Error {
  constructor(
    message: string,
    readonly reason: RefusalReason,
    readonly interruptIds: string[],
    readonly pendingIds: string[],
  ) {
    super(message);
    this.name = "UnknownInterruptError";
  }

  toWire(): RefusalWire {
    return { error: this.name, message: this.message, reason: this.reason, interrupt_ids: this.interruptIds, pending_ids: this.pendingIds };
  }
}

/** LangGraph's interrupt ids are xxh3-128 hex digests; a resume map is keyed by them. */
const INTERRUPT_ID = /^[0-9a-f]{32}$/;

/** The ids of the interrupts waiting in a state: those of tasks that have no result yet. */
export function pendingInterruptIds(state: ThreadState): string[] {
  const ids = new Set<string>();
  for (const task of state.tasks) {
    if (task.result !== null) continue;
    for (const interrupt of task.interrupts) if (typeof interrupt.id === "string") ids.add(interrupt.id);
  }
  return [...ids].sort();
}

/**
 * Throws UnknownInterruptError when `resume` names an interrupt that is not pending, is an empty
 * map, or is one value while several interrupts are pending.
 */
export function checkResume(resume: unknown, pendingIds: string[]): void {
  const pending = new Set(pendingIds);
  if (isResumeMap(resume)) {
    const ids = Object.keys(resume);
    if (ids.length === 0) throw new UnknownInterruptError("The resume map names no interrupt", "empty_map", [], pendingIds);
    const unknown = ids.filter((id) => !pending.has(id)).sort();
    if (unknown.length > 0) {
      throw new UnknownInterruptError(`Unknown or already-consumed interrupt: ${unknown[0]}`, "not_pending", unknown, pendingIds);
    }
    return;
  }
  if (pending.size > 1) {
    throw new UnknownInterruptError(
      "When there are multiple pending interrupts, you must specify the interrupt id when resuming.",
      "ambiguous",
      [],
      pendingIds,
    );
  }
}

function isResumeMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.keys(value).every((key) => INTERRUPT_ID.test(key));
}
