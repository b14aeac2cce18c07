// Inputs for the conformance cases. Every case builds rows with fresh ids and a marker of its own
// in their metadata, so its searches see only its rows whatever else the database holds.
import { buildRunKwargs, type RunCreate } from "../../../src/domain/run-request.js";
import { newId } from "../../../src/ids.js";
import type { NewAssistant, NewThread } from "../../../src/storage/ports.js";
import type { NewRun } from "../../../src/storage/run-ports.js";
import type { RunKwargs } from "../../../src/storage/records.js";

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

/** A run's stored invocation as the run service builds it, for a request of `body`'s fields. */
export function newKwargs(body: Omit<RunCreate, "assistant_id"> = {}): RunKwargs {
  const now = new Date().toISOString();
  const assistant = { ...newAssistant(), version: 1, created_at: now, updated_at: now };
  return buildRunKwargs(
    { assistant_id: assistant.assistant_id, ...body },
    {
      assistant,
      config: {},
      extraConfigurable: {},
      metadata: {},
      runId: newId(),
      threadId: newId(),
      temporary: false,
    },
  );
}

/** A run on `threadId`, due a second ago, so a claim stamped "now" finds it eligible. */
export function newRun(threadId: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    run_id: newId(),
    thread_id: threadId,
    assistant_id: newId(),
    metadata: {},
    kwargs: newKwargs({ input: { n: 1 } }),
    multitask_strategy: null,
    available_at: new Date(Date.now() - 1_000),
    ...overrides,
  };
}
