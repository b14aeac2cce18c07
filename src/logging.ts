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
  const format = (time: Date, level: LogLevel, msg: string, all: LogFields) => {
    if (options.json) return JSON.stringify({ time: time.toISOString(), level, msg, ...serializable(all) });
    const extras = Object.entries(serializable(all))
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
    return `${time.toISOString().slice(11, 23)} ${level.padEnd(5)} ${msg}${extras ? " " + extras : ""}`;
  };
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] < RANK[options.level]) return;
    const time = new Date();
    const all = { ...bound, ...fields };
    if (options.write) options.write(format(time, level, msg, all));
    else writeToStdout(() => format(time, level, msg, all));
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
 * Lines logged in one turn of the event loop are formatted and leave as one write after that turn's
 * work, so neither the formatting nor a synchronous write to a pipe sits between a run's outcome and
 * the client's answer. A line keeps the time it was logged at and the fields as they were passed
 * (a shallow copy). Lines still pending when the process exits are flushed then.
 */
let pending: Array<() => string> = [];
let flushScheduled = false;
let flushOnExit = false;

function flushStdout(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  const lines = pending;
  pending = [];
  process.stdout.write(lines.map((line) => formatted(line) + "\n").join(""));
}

/** A line that cannot be formatted (a circular field, say) is reported, not thrown from a timer. */
function formatted(line: () => string): string {
  try {
    return line();
  } catch (err) {
    return JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "a log line could not be formatted", error: String(err) });
  }
}

function writeToStdout(line: () => string): void {
  pending.push(line);
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
