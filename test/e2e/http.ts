// What the e2e tests share: an SDK client that reports errors at once, raw HTTP for what the SDK
// cannot show (headers, status codes, malformed bodies), and polling with a deadline.
import { Client } from "@langchain/langgraph-sdk";

/** maxRetries 0: a 5xx must fail the test now, not after the SDK's backoff retries. */
export function sdkClient(url: string): Client {
  return new Client({ apiUrl: url, callerOptions: { maxRetries: 0 } });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown;
}

export interface RawRequest {
  /** Serialised with JSON.stringify unless it is already a string (to send malformed JSON). */
  body?: unknown;
  headers?: Record<string, string>;
}

export async function request(url: string, method: string, path: string, init: RawRequest = {}): Promise<RawResponse> {
  const hasBody = init.body !== undefined;
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...init.headers },
    ...(hasBody ? { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The `detail` of an error body; fails the test when the body is not `{detail: string}`. */
export function detailOf(response: RawResponse): string {
  const detail = (response.json as { detail?: unknown } | undefined)?.detail;
  if (typeof detail !== "string") {
    throw new Error(`Expected a JSON body with a string detail, got ${response.status}: ${response.text}`);
  }
  return detail;
}

/** Polls until `probe` returns a value other than undefined, or fails after the deadline. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 10_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}
