// The one logger factory: JSON lines when stdout is not a terminal, short readable lines when it is.
// Loggers are bound with context once (`log.child({ run_id })`) instead of repeating fields.

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level: LogLevel;
  json: boolean;
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const write = options.write ?? writeToStdout;
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] < RANK[options.level]) return;
    const all = { ...bound, ...fields };
    if (options.json) {
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...serializable(all) }));
    } else {
      const extras = Object.entries(serializable(all))
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" ");
      write(`${new Date().toISOString().slice(11, 23)} ${level.padEnd(5)} ${msg}${extras ? " " + extras : ""}`);
    }
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/**
 * Lines logged in one turn of the event loop leave as one write after that turn's work, so a
 * synchronous write to a pipe never sits between a run's outcome and the client's answer. Lines
 * still pending when the process exits are flushed then.
 */
let pending: string[] = [];
let flushScheduled = false;
let flushOnExit = false;

function flushStdout(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  const text = pending.join("");
  pending = [];
  process.stdout.write(text);
}

function writeToStdout(line: string): void {
  pending.push(line + "\n");
  if (flushScheduled) return;
  if (!flushOnExit) {
    flushOnExit = true;
    process.once("exit", flushStdout);
  }
  flushScheduled = true;
  setImmediate(flushStdout);
}

function serializable(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}

/** A logger that drops everything; for tests and library callers that don't want output. */
export const silentLogger: Logger = createLogger({ level: "error", json: true, write: () => {} });
