// What clients read from a run: its events filtered to the stream modes they asked for, and the
// final output of /wait and /join (the last values, with __interrupt__ or __error__).
import type { RunEventLog, StoredEvent } from "../events/run-event-log.js";
import type { Storage } from "../storage/ports.js";
import type { Run } from "../storage/records.js";
import { wants } from "../runtime/stream-modes.js";

/**
 * The log is read at call time, not on the first pull: a malformed `after` (Last-Event-ID) throws
 * its GantryError here, so the route answers 422 instead of a 200 stream holding an error event.
 */
export function runEvents(
  events: RunEventLog,
  runId: string,
  options: { after?: string; modes: readonly string[]; signal?: AbortSignal },
): AsyncGenerator<StoredEvent> {
  const modes = new Set(options.modes);
  const source = events.read(runId, { ...(options.after !== undefined ? { after: options.after } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  return (async function* () {
    for await (const event of source) {
      if (wants(modes, event.event)) yield event;
    }
  })();
}

/**
 * The final output of a run: read from its log when the log is still there (it always holds
 * `values`), otherwise from the thread's stored state.
 */
export async function runOutput(events: RunEventLog, storage: Storage, run: Run, signal?: AbortSignal): Promise<unknown> {
  if (await events.has(run.run_id)) {
    let values: unknown = null;
    let error: unknown = null;
    for await (const event of events.read(run.run_id, { after: "-1", ...(signal ? { signal } : {}) })) {
      if (event.event === "values") values = event.data;
      else if (event.event === "error") error = event.data;
    }
    if (error) return { __error__: error };
    if (values !== null) return values;
  }
  const latest = (await storage.runs.get(run.run_id)) ?? run;
  const thread = await storage.threads.get(run.thread_id);
  if (latest.status === "error" && thread?.error) return { __error__: thread.error };
  if (!thread) return null;
  const interrupts = Object.values(thread.interrupts).flat();
  if (interrupts.length > 0 && thread.values && typeof thread.values === "object" && !Array.isArray(thread.values)) {
    return { ...thread.values, __interrupt__: interrupts };
  }
  return thread.values;
}
