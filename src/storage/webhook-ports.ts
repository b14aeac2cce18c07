// The webhook outbox port. A delivery row is written in the transaction that finishes its run, so a
// finished run's webhook can't be lost; delivery loops claim due rows under a lease (several
// processes may share one database) and record each attempt's result.
import type { JsonObject } from "./records.js";

export interface NewWebhookDelivery {
  /** Sent as the `webhook-id` header; the same on every attempt so receivers can deduplicate. */
  delivery_id: string;
  run_id: string;
  url: string;
  /** The body without `webhook_sent_at`, which each attempt stamps. */
  payload: JsonObject;
}

export type WebhookDeliveryStatus = "pending" | "delivered" | "failed";

export interface WebhookDelivery extends NewWebhookDelivery {
  status: WebhookDeliveryStatus;
  /** Attempts started so far, counting the one a claim starts. */
  attempts: number;
  /** Why the latest unsuccessful attempt failed; kept once the delivery succeeds, for the record. */
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookAttemptResult = { outcome: "delivered" } | { outcome: "retry"; next_attempt_at: Date; error: string } | { outcome: "failed"; error: string };

export interface WebhookOutbox {
  /**
   * Claims up to `limit` pending deliveries that are due at `now` and not leased to a live owner:
   * each is leased to `owner` until now + leaseMs and its attempt counted. A claimed row is never
   * handed to a second claimer while its lease runs.
   */
  claimDue(owner: string, leaseMs: number, now: Date, limit: number): Promise<WebhookDelivery[]>;
  /** Records the attempt's result if `owner` still holds the lease (false otherwise) and releases it. */
  recordAttempt(deliveryId: string, owner: string, result: WebhookAttemptResult, now: Date): Promise<boolean>;
  /** Ends every lease that runs until before `expiredBefore`, so their deliveries are due again. Returns how many. */
  releaseExpired(expiredBefore: Date): Promise<number>;
  get(deliveryId: string): Promise<WebhookDelivery | null>;
  /** Deliveries of one run, oldest first. */
  listForRun(runId: string): Promise<WebhookDelivery[]>;
  /** The earliest time a pending, unleased delivery becomes due. */
  nextDueAt(): Promise<Date | null>;
}
