// Tracing settings: LangSmith (LANGSMITH_* and their LANGCHAIN_* aliases, as the langsmith client
// reads them) and OpenTelemetry (the standard OTEL_* variables, OTLP over HTTP) -> one typed slice
// of the config. langgraph.json `env` counts, the process environment winning over it.
import { StartupError } from "../errors.js";
import type { ProjectConfig } from "./langgraph-config.js";

export interface ObserveConfig {
  /** Runs are traced to LangSmith: an API key is set and a tracing variable says `true`. */
  langsmith: boolean;
  /** Absent unless an OTLP endpoint is set (and the SDK not disabled): OpenTelemetry is off by default. */
  otel?: OtelConfig;
}

export interface OtelConfig {
  /** Where spans are POSTed (OTLP/HTTP, JSON encoding). */
  tracesUrl: string;
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; `gantry` unless set. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
  /** OTEL_BSP_SCHEDULE_DELAY: how long finished spans wait to be sent together. */
  scheduleDelayMs: number;
  /** OTEL_EXPORTER_OTLP_TIMEOUT. */
  timeoutMs: number;
}

const TRACING_VARIABLES = ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"];

export function loadObserveConfig(project: Pick<ProjectConfig, "env">, processEnv: NodeJS.ProcessEnv): ObserveConfig {
  const env: Record<string, string | undefined> = { ...project.env, ...processEnv };
  const apiKey = env.LANGSMITH_API_KEY || env.LANGCHAIN_API_KEY;
  const langsmith = Boolean(apiKey) && TRACING_VARIABLES.some((name) => env[name]?.toLowerCase() === "true");
  const otel = loadOtel(env);
  return { langsmith, ...(otel ? { otel } : {}) };
}

function loadOtel(env: Record<string, string | undefined>): OtelConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (env.OTEL_EXPORTER_OTLP_ENDPOINT ? join(env.OTEL_EXPORTER_OTLP_ENDPOINT, "v1/traces") : undefined);
  if (!tracesUrl) return undefined;
  if (!URL.canParse(tracesUrl)) throw new StartupError(`OTEL_EXPORTER_OTLP_ENDPOINT '${tracesUrl}' is not a URL (e.g. http://localhost:4318)`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol !== "http/json") {
    throw new StartupError(`OTEL_EXPORTER_OTLP_PROTOCOL '${protocol}' is not supported: Gantry sends OTLP over HTTP as JSON (http/json)`);
  }
  return {
    tracesUrl,
    headers: {
      ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS, "OTEL_EXPORTER_OTLP_HEADERS"),
      ...pairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    },
    serviceName: env.OTEL_SERVICE_NAME || "gantry",
    resourceAttributes: pairs(env.OTEL_RESOURCE_ATTRIBUTES, "OTEL_RESOURCE_ATTRIBUTES"),
    scheduleDelayMs: milliseconds(env.OTEL_BSP_SCHEDULE_DELAY, "OTEL_BSP_SCHEDULE_DELAY", 5_000),
    timeoutMs: milliseconds(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT, "OTEL_EXPORTER_OTLP_TIMEOUT", 10_000),
  };
}

/** The base endpoint gets the signal's path appended, as the OTLP exporter specification says. */
function join(base: string, path: string): string {
  return base.endsWith("/") ? base + path : `${base}/${path}`;
}

/** `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage format the variables use). */
function pairs(value: string | undefined, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of (value ?? "").split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    if (at <= 0) throw new StartupError(`${name} must be key=value pairs separated by commas, got '${item.trim()}'`);
    try {
      out[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new StartupError(`${name} has a badly percent-encoded pair: '${item.trim()}'`);
    }
  }
  return out;
}

function milliseconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new StartupError(`${name} must be a number of milliseconds, got '${value}'`);
  return ms;
}
