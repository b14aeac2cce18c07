// Inputs for the conformance cases. Every case builds rows with fresh ids and a marker of its own
// in their metadata, so its searches see only its rows whatever else the database holds.
import { newId } from "../../../src/ids.js";
import type { NewAssistant, NewThread } from "../../../src/storage/ports.js";

export { newId };

/** ISO-8601 UTC with milliseconds: the wire form of every timestamp. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const newMarker = (): string => `case-${newId()}`;

export function newAssistant(overrides: Partial<NewAssistant> = {}): NewAssistant {
  return {
    assistant_id: newId(),
    graph_id: "agent",
    config: {},
    context: {},
    metadata: {},
    name: "Assistant",
    description: null,
    ...overrides,
  };
}

export function newThread(overrides: Partial<NewThread> = {}): NewThread {
  return { thread_id: newId(), metadata: {}, ...overrides };
}

/** Resolves once Date.now() has moved past its value at the call, so the next write gets a later timestamp. */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() === start) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether an ISO timestamp lies within [from, to] (milliseconds since the epoch). */
export function isBetween(iso: string, from: number, to: number): boolean {
  const at = Date.parse(iso);
  return at >= from && at <= to;
}
