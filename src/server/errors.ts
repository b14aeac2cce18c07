// The one table from error kind to HTTP status, and the handler that uses it. Every error answer is
// `{"detail": "<sentence>"}`. Statuses are chosen so the official SDK does not retry deterministic
// refusals (it retries everything outside 400-409 and 422).
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { HTTPException } from "hono/http-exception";
import { AuthRejection, GantryError, ValidationFailure, type ErrorKind } from "../errors.js";
import type { Logger } from "../logging.js";

const STATUS_BY_KIND = {
  malformed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  timed_out: 408,
  conflict: 409,
  busy: 409,
  too_large: 413,
  invalid: 422,
  unsupported: 422,
  unavailable: 503,
} as const satisfies Record<ErrorKind, number>;

export function statusOf(kind: ErrorKind): (typeof STATUS_BY_KIND)[ErrorKind] {
  return STATUS_BY_KIND[kind];
}

/**
 * Seconds a client should wait before asking again, for refusals a wait can cure. `unavailable` is
 * PostgreSQL or Redis out of reach: a restarted one accepts connections again within a second or
 * two, and the replica reconnects on the next request. (The official SDK retries 503 on its own
 * schedule and ignores the header; load balancers and other clients read it.)
 */
const RETRY_AFTER_SECONDS: Partial<Record<ErrorKind, number>> = { unavailable: 2 };

/** The Retry-After header for a refusal of this kind, or none. */
export function retryAfter(kind: ErrorKind): Record<string, string> | undefined {
  const seconds = RETRY_AFTER_SECONDS[kind];
  return seconds === undefined ? undefined : { "Retry-After": String(seconds) };
}

export function errorHandler(log: Logger) {
  return function onError(err: Error, c: Context): Response {
    if (err instanceof ValidationFailure) {
      return c.json({ detail: err.issues }, statusOf(err.kind));
    }
    if (err instanceof GantryError) {
      return c.json({ detail: err.message }, statusOf(err.kind), retryAfter(err.kind));
    }
    if (err instanceof AuthRejection) {
      return c.json({ detail: err.message }, err.status as ContentfulStatusCode, err.headers);
    }
    if (err instanceof HTTPException || isHonoHttpException(err)) {
      return c.json({ detail: err.message || "Request failed" }, err.status);
    }
    const requestId = c.get("requestId") as string | undefined;
    log.error("unhandled error", { request_id: requestId, method: c.req.method, path: c.req.path, err });
    return c.json({ detail: `Internal error (request ${requestId ?? "unknown"}). The server log has the details.` }, 500);
  };
}

/** Hono's HTTPException from another copy of Hono: a user's http.app may bring its own. */
function isHonoHttpException(err: Error): err is Error & { status: ContentfulStatusCode } {
  const { status, getResponse } = err as Error & { status?: unknown; getResponse?: unknown };
  return typeof getResponse === "function" && typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599;
}
