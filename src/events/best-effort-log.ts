// An event log whose writes never fail their caller: a write that fails (Redis unreachable past its
// command timeout) is dropped, with one warning per outage. A run must not fail, and a run creation
// must not answer 500 (which the SDK retries, creating the run twice), because its stream could not
// be written: the outcome lives in PostgreSQL, and readers fall back to it when a log is missing.
// A StaleWriterError is no fault of the store but the log's refusal of a fenced-off writer: it
// reaches the caller, which must stop writing.
import type { Logger } from "../logging.js";
import { StaleWriterError } from "./event-log-errors.js";
import type { RunEventLog } from "./run-event-log.js";

export function bestEffortWrites(events: RunEventLog, log: Logger): RunEventLog {
  let failing = false;
  // One `then` per call rather than an async function: these sit on every event a run emits.
  const guard = <T>(what: string, key: string, write: Promise<T>, fallback: T): Promise<T> =>
    write.then(
      (result) => {
        failing = false;
        return result;
      },
      (err: unknown) => {
        if (err instanceof StaleWriterError) throw err;
        if (!failing) log.warn("event log write failed; streams miss events until it recovers", { what, key, err: (err as Error).message });
        failing = true;
        return fallback;
      },
    );
  return {
    open: (key, options) => guard("open", key, events.open(key, options), undefined),
    append: (key, event, options) => guard("append", key, events.append(key, event, options), ""),
    end: (key, options) => guard("end", key, events.end(key, options), undefined),
    delete: (keys) => guard("delete", keys[0] ?? "", events.delete(keys), undefined),
    read: (key, options) => events.read(key, options),
    has: (key) => guard("has", key, events.has(key), false),
    last: (key) => guard("last", key, events.last(key), undefined),
    writeHere: (key) => events.writeHere(key),
  };
}
