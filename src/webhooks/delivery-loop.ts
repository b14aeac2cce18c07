// The delivery loop: claims due outbox rows under a lease, sends each (signed, with the configured
// headers), and records the attempt's result. It never touches a run: a slow or failing receiver
// only delays its own webhook. Wake-ups come from runs finishing on this process; a poll picks up
// what other processes recorded and what a retry's backoff made due.
import type { WebhookConfig } from "../config/webhook-config.js";
import { isUnavailable } from "../errors.js";
import { wakeLoop } from "../events/wake-loop.js";
import type { Logger } from "../logging.js";
import type { Otel } from "../observe/otel.js";
import type { WebhookDelivery, WebhookOutbox } from "../storage/webhook-ports.js";
import { GANTRY_VERSION } from "../version.js";
import type { WebhookMetrics } from "./delivery-metrics.js";
import { startAttemptSpan } from "./delivery-span.js";
import { webhookBody } from "./payload.js";
import { postWebhook } from "./post-webhook.js";
import { attemptResult, type AttemptReport } from "./retry-policy.js";
import { signWebhook } from "./signature.js";

export interface DeliveryLoopOptions {
  owner: string;
  /** Base URL of this server, for relative webhooks ("/hook" means this server). */
  selfUrl: () => string;
  /** Deliveries in flight at once. */
  concurrency?: number;
}

/** How long past an attempt's deadline its lease lasts, so a slow recording never lets a second sender in. */
const LEASE_MARGIN_MS = 30_000;

export class WebhookDeliveryLoop {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private stopping = false;
  // Storage logs an outage once; repeating it at every poll would bury everything else.
  private readonly claims = wakeLoop(
    () => this.fill(),
    (err) => this.deps.log[isUnavailable(err) ? "debug" : "warn"]("claiming webhook deliveries failed; will retry at the next poll", { err }),
  );
  private pollTimer: NodeJS.Timeout | null = null;
  private dueTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: { outbox: WebhookOutbox; log: Logger; metrics: WebhookMetrics; otel?: Otel | undefined },
    private readonly config: WebhookConfig,
    private readonly options: DeliveryLoopOptions,
  ) {}

  private get leaseMs(): number {
    return this.config.timeoutMs + LEASE_MARGIN_MS;
  }

  start(): void {
    this.pollTimer = setInterval(() => this.wake(), this.config.pollMs);
    this.pollTimer.unref();
    this.wake();
  }

  /**
   * Releases leases held by processes that stopped mid-attempt. `expiredBefore` in the future also
   * takes leases still running, for a process that knows it is alone on its database (`gantry dev`).
   */
  async recover(expiredBefore: Date): Promise<void> {
    const released = await this.deps.outbox.releaseExpired(expiredBefore);
    if (released) this.deps.log.warn("resuming webhook deliveries interrupted by a stop", { deliveries: released });
  }

  wake(): void {
    this.claims.wake();
  }

  /** Stops claiming and ends attempts under way; they are recorded as due again at once. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.dueTimer) clearTimeout(this.dueTimer);
    await this.claims.stop();
    this.abort.abort();
    await Promise.all(this.inFlight.values());
  }

  private async fill(): Promise<void> {
    const { outbox, log } = this.deps;
    const capacity = (this.options.concurrency ?? 10) - this.inFlight.size;
    if (capacity > 0) {
      for (const delivery of await outbox.claimDue(this.options.owner, this.leaseMs, new Date(), capacity)) {
        const done = this.deliver(delivery)
          .catch((err: unknown) => log.error("webhook delivery failed unexpectedly", { delivery_id: delivery.delivery_id, err }))
          .finally(() => {
            this.inFlight.delete(delivery.delivery_id);
            this.wake();
          });
        this.inFlight.set(delivery.delivery_id, done);
      }
    }
    await this.scheduleNextDue();
  }

  /** A retry due before the next poll gets a timer of its own, so short backoffs are kept. */
  private async scheduleNextDue(): Promise<void> {
    const next = await this.deps.outbox.nextDueAt();
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    if (!next || this.stopping) return;
    const delay = next.getTime() - Date.now();
    if (delay <= 0 || delay > this.config.pollMs) return;
    this.dueTimer = setTimeout(() => this.wake(), delay + 1);
    this.dueTimer.unref();
  }

  private async deliver(delivery: WebhookDelivery): Promise<void> {
    const { outbox, log, metrics } = this.deps;
    const url = delivery.url.startsWith("/") ? new URL(this.options.selfUrl() + delivery.url) : new URL(delivery.url);
    const attemptLog = log.child({ delivery_id: delivery.delivery_id, run_id: delivery.run_id, attempt: delivery.attempts, target: url.origin + url.pathname });
    const sentAt = new Date();
    const body = webhookBody(delivery.payload, sentAt);
    const span = startAttemptSpan(this.deps.otel, delivery, url);
    const started = performance.now();
    const report: AttemptReport = await postWebhook(url, body, {
      headers: { ...this.headers(delivery.delivery_id, sentAt, body), ...span.headers },
      timeoutMs: this.config.timeoutMs,
      policy: this.config.policy,
      signal: this.abort.signal,
    });
    const ms = Math.round(performance.now() - started);
    const now = new Date();
    const result = this.abort.signal.aborted
      ? { outcome: "retry" as const, next_attempt_at: now, error: "the server stopped during the attempt" }
      : attemptResult(report, delivery.attempts, this.config, now);
    span.end(report, result);
    const recorded = await outbox.recordAttempt(delivery.delivery_id, this.options.owner, result, now);
    metrics.count(result.outcome);
    const status = report.kind === "response" ? report.status : undefined;
    if (!recorded) attemptLog.warn("webhook attempt not recorded: its lease ran out and another sender took it", { status, ms });
    else if (result.outcome === "delivered") attemptLog.info("webhook delivered", { status, ms });
    else if (result.outcome === "retry") {
      attemptLog.warn("webhook attempt failed; will retry", { status, ms, error: result.error, retry_in_ms: result.next_attempt_at.getTime() - now.getTime() });
    } else attemptLog.warn("webhook failed; not sending it again", { status, ms, error: result.error });
  }

  private headers(deliveryId: string, sentAt: Date, body: string): Record<string, string> {
    const timestamp = Math.floor(sentAt.getTime() / 1000);
    return {
      ...this.config.headers,
      "content-type": "application/json",
      "user-agent": `gantry/${GANTRY_VERSION}`,
      "webhook-id": deliveryId,
      "webhook-timestamp": String(timestamp),
      ...(this.config.signingSecret ? { "webhook-signature": signWebhook(this.config.signingSecret, deliveryId, timestamp, body) } : {}),
    };
  }
}
