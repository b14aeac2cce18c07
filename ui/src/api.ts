// The one way the view reaches Gantry: the official SDK's Client on the public API, at the URL the
// page was served under (any mount prefix included), with the auth header the user entered, if any.
import { Client } from "@langchain/langgraph-sdk";

export interface AuthHeader {
  name: string;
  value: string;
}

// Session storage: the header survives reloads but not the browser session, and never leaves this tab.
const AUTH_KEY = "gantry.auth-header";

/** The API root: the page's base (`<prefix>/gantry/`, set by the server) without `gantry/`. */
export function apiUrl(): string {
  return new URL("..", document.baseURI).href.replace(/\/$/, "");
}

export function loadAuthHeader(): AuthHeader | undefined {
  const saved = sessionStorage.getItem(AUTH_KEY);
  return saved ? (JSON.parse(saved) as AuthHeader) : undefined;
}

export function saveAuthHeader(header: AuthHeader | undefined): void {
  if (header) sessionStorage.setItem(AUTH_KEY, JSON.stringify(header));
  else sessionStorage.removeItem(AUTH_KEY);
}

export function makeClient(): Client {
  const header = loadAuthHeader();
  return new Client({
    apiUrl: apiUrl(),
    defaultHeaders: header ? { [header.name]: header.value } : {},
    // A person is waiting: show the error at once instead of retrying a 5xx for seconds.
    callerOptions: { maxRetries: 0 },
  });
}

/**
 * The JSON form of /metrics: the one call the SDK has no method for, so a plain fetch with the
 * same header. /metrics is under the same auth as the rest of the API.
 */
export async function fetchMetrics(): Promise<MetricsFigures> {
  const header = loadAuthHeader();
  const response = await fetch(`${apiUrl()}/metrics?format=json`, { headers: header ? { [header.name]: header.value } : {} });
  // The shape errorText reads from the SDK's errors, so a 401 reads the same on every page.
  if (!response.ok) throw { status: response.status, text: await response.text() };
  return (await response.json()) as MetricsFigures;
}

export interface HistogramFigures {
  count: number;
  sum: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** What the metrics page reads of /metrics?format=json (src/observe/run-metrics.ts and friends). */
export interface MetricsFigures {
  /** Absent when the database did not answer. */
  queue?: { n_pending: number; n_running: number; pending_runs_wait_time_max_secs: number };
  /** Absent on an API-only replica. */
  workers?: { max: number; active: number; available: number };
  runs: { finished: Record<string, number>; duration_seconds: Record<string, HistogramFigures>; queue_seconds: HistogramFigures | null };
  active_streams: number;
  webhook_attempts?: { delivered: number; retry: number; failed: number };
}

/** What to show for a failed call: the API's `detail` when it sent one. */
export function errorText(err: unknown): string {
  if (err && typeof err === "object" && "status" in err && "text" in err) {
    const { status, text } = err as { status: number; text: string };
    return `HTTP ${status}: ${detailOf(text) ?? text}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function detailOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (typeof body.detail === "string") return body.detail;
    // Validation errors (the control plane's 422) list each problem with where it is.
    if (Array.isArray(body.detail)) return body.detail.map(problemText).join("; ");
    return undefined;
  } catch {
    return undefined;
  }
}

function problemText(problem: unknown): string {
  if (!problem || typeof problem !== "object") return String(problem);
  const { loc, msg } = problem as { loc?: unknown; msg?: unknown };
  const where = Array.isArray(loc) ? loc.filter((part) => part !== "body").join(".") : "";
  return where ? `${where}: ${String(msg)}` : String(msg);
}

/** Parses a JSON text field, naming the field when it is not JSON. */
export function parseJsonField(label: string, text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${label} is not valid JSON: ${(err as Error).message}`);
  }
}
