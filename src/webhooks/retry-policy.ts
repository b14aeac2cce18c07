// What one attempt's result means for the delivery: a 2xx is done; a network error, a timeout,
// 408, 429 or 5xx is retried with exponential backoff until the attempts run out; any other status
// is the receiver refusing the webhook, and sending it again would not change its mind. An address
// the URL policy refuses is final too: the policy is fixed for the process, so a retry would only
// be refused again.
import type { WebhookAttemptResult } from "../storage/webhook-ports.js";

export type AttemptReport =
  | { kind: "response"; status: number }
  | { kind: "error"; message: string }
  /** The URL policy refused the address before anything was sent. */
  | { kind: "refused"; message: string };

export interface RetrySettings {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export function attemptResult(report: AttemptReport, attempt: number, settings: RetrySettings, now: Date): WebhookAttemptResult {
  if (report.kind === "response" && report.status >= 200 && report.status < 300) return { outcome: "delivered" };
  if (report.kind === "refused") return { outcome: "failed", error: `${report.message}: the URL policy refuses this address; not retried` };
  const error = report.kind === "response" ? `HTTP ${report.status}` : report.message;
  const retryable = report.kind === "error" || report.status === 408 || report.status === 429 || report.status >= 500;
  if (!retryable) return { outcome: "failed", error: `${error}: the receiver refused the webhook; not retried` };
  if (attempt >= settings.maxAttempts) return { outcome: "failed", error: `${error}: gave up after ${attempt} attempts` };
  return { outcome: "retry", error, next_attempt_at: new Date(now.getTime() + backoffMs(attempt, settings)) };
}

/** Wait before the attempt after `attempt`: base * 2^(attempt-1), capped, less up to a fifth at random so retries spread out. */
export function backoffMs(attempt: number, settings: RetrySettings): number {
  const full = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** (attempt - 1));
  return Math.round(full * (1 - Math.random() * 0.2));
}
