// What a Gantry process does when a failure escapes every handler (an exception nobody caught, a
// rejected promise nobody awaited) or start-up fails: it says why at error level in the structured
// log the operator already reads, then exits non-zero for the orchestrator to restart it. Without
// this the reason went to stderr only, as Node's crash dump, and a log search found nothing.
// Dependency faults are not among these: a PostgreSQL or Redis connection dying is handled where
// the connection lives and never ends the process.
import type { Logger } from "../logging.js";

/** The process has one set of these handlers; the logger they write to is replaced once configured. */
let processLog: Logger | undefined;

/** Installs the handlers on first call; later calls route them to a better-configured logger. */
export function logProcessFaults(log: Logger): void {
  const first = processLog === undefined;
  processLog = log;
  if (!first) return;
  process.on("uncaughtException", (err, origin) => exitWith("process stopped: an exception escaped every handler", { origin, err }));
  process.on("unhandledRejection", (reason) => exitWith("process stopped: a rejected promise had no handler", { err: reason }));
}

/** Logs why the process stops, at error level, and exits with `code`. */
export function exitWith(msg: string, fields: Record<string, unknown>, code = 1): never {
  processLog?.error(msg, fields);
  process.exit(code);
}
