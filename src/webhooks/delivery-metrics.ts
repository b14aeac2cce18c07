// Counters for webhook attempts, by how each ended, for /metrics.
import type { WebhookAttemptResult } from "../storage/webhook-ports.js";

export type AttemptOutcome = WebhookAttemptResult["outcome"];

export interface WebhookMetrics {
  count(outcome: AttemptOutcome): void;
  prometheus(): string;
  json(): { webhook_attempts: Record<AttemptOutcome, number> };
}

export function createWebhookMetrics(): WebhookMetrics {
  const attempts: Record<AttemptOutcome, number> = { delivered: 0, retry: 0, failed: 0 };
  return {
    count(outcome) {
      attempts[outcome] += 1;
    },
    prometheus() {
      const lines = [
        "# HELP gantry_webhook_attempts_total Webhook delivery attempts, by result: delivered, retry (will be sent again), failed (given up).",
        "# TYPE gantry_webhook_attempts_total counter",
        ...Object.entries(attempts).map(([result, n]) => `gantry_webhook_attempts_total{result="${result}"} ${n}`),
      ];
      return lines.join("\n") + "\n";
    },
    json() {
      return { webhook_attempts: { ...attempts } };
    },
  };
}
