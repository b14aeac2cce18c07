// The logger that `getLogger()` from @langchain/langgraph-sdk/logging hands a user's graph or
// http.app. The platform registers it on globalThis before graphs load, so a module may call
// getLogger() at import; a missing one stops the import. Its lines go to Gantry's log, with the
// run, thread, graph and node when a graph node logs them.
import { getConfig } from "@langchain/langgraph";
import type { LogFields, Logger, LogLevel } from "../logging.js";

/** The key the SDK's getLogger() reads. */
const SDK_LOGGER_KEY = Symbol.for("langgraph.api.sdk-logger");

/** Winston's level names, which the SDK's Logger type lists, folded onto ours. */
const LEVELS = {
  error: "error",
  warn: "warn",
  help: "info",
  data: "info",
  info: "info",
  prompt: "info",
  http: "info",
  input: "info",
  debug: "debug",
  verbose: "debug",
  silly: "debug",
} as const satisfies Record<string, LogLevel>;

const RESERVED = ["time", "level", "msg"];

export type SdkLogMethod = (message?: unknown, ...meta: unknown[]) => SdkLogger;
export type SdkLogger = Record<keyof typeof LEVELS, SdkLogMethod>;

export function sdkLogger(log: Logger): SdkLogger {
  const logger = {} as SdkLogger;
  for (const [name, level] of Object.entries(LEVELS) as Array<[keyof typeof LEVELS, LogLevel]>) {
    logger[name] = (message, ...meta) => {
      const [msg, fields] = lineOf(message, meta);
      log[level](msg, { ...fields, ...runFields() });
      return logger;
    };
  }
  return logger;
}

/** Makes `getLogger()` answer with this logger from now on, in this process. */
export function registerSdkLogger(log: Logger): void {
  (globalThis as Record<symbol, unknown>)[SDK_LOGGER_KEY] = sdkLogger(log);
}

/**
 * As winston reads a call: a string message and meta objects merged into the line (an Error under
 * `err`), or one object whose `message` is the message and whose other keys are fields.
 */
function lineOf(message: unknown, meta: unknown[]): [string, LogFields] {
  const fields: LogFields = {};
  const args: unknown[] = [];
  let msg: string;
  if (message instanceof Error) {
    msg = message.message;
    fields.err = message;
  } else if (typeof message === "object" && message !== null) {
    const { message: inner, ...rest } = message as Record<string, unknown>;
    msg = typeof inner === "string" ? inner : inner === undefined ? "" : JSON.stringify(inner);
    Object.assign(fields, rest);
  } else {
    msg = String(message ?? "");
  }
  for (const item of meta) {
    if (item instanceof Error) fields.err = item;
    else if (typeof item === "object" && item !== null && !Array.isArray(item)) Object.assign(fields, item);
    else args.push(item);
  }
  if (args.length > 0) fields.args = args;
  // The line's own keys are the logger's, as winston keeps its level and message over the meta's.
  for (const key of RESERVED) delete fields[key];
  return [msg, fields];
}

/** The ids of the run whose node is logging, read from LangGraph's own run context (no cost until a line is logged). */
function runFields(): LogFields {
  const config = getConfig();
  if (!config) return {};
  const configurable = config.configurable ?? {};
  const out: LogFields = {};
  for (const key of ["run_id", "thread_id", "graph_id", "assistant_id"]) {
    if (typeof configurable[key] === "string") out[key] = configurable[key];
  }
  const node = config.metadata?.langgraph_node;
  if (typeof node === "string") out.langgraph_node = node;
  return out;
}
