// An OpenTelemetry span per webhook attempt, when OTel is on: a client span under the trace the
// run's creating request carried (stored with the run, and in the payload's kwargs), so the
// delivery sits in the run's trace beside the run's own span. It names the receiver by host and
// port only: a webhook URL's path and query often hold the receiver's secret. The receiver gets
// the span's `traceparent` and can continue the trace.
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Otel } from "../observe/otel.js";
import type { WebhookAttemptResult, WebhookDelivery } from "../storage/webhook-ports.js";
import type { AttemptReport } from "./retry-policy.js";
import { webhookHost } from "./webhook-url.js";

export interface AttemptSpan {
  /** `traceparent`/`tracestate` naming this attempt, for the request's headers. */
  headers: Record<string, string>;
  end(report: AttemptReport, result: WebhookAttemptResult): void;
}

const NOT_TRACED: AttemptSpan = { headers: {}, end: () => {} };

export function startAttemptSpan(otel: Otel | undefined, delivery: WebhookDelivery, url: URL): AttemptSpan {
  if (!otel) return NOT_TRACED;
  const parent = otel.extract(runTrace(delivery));
  const span = otel.tracer.startSpan(
    "webhook POST",
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "http.request.method": "POST",
        "server.address": webhookHost(url),
        "server.port": Number(url.port) || (url.protocol === "https:" ? 443 : 80),
        "url.scheme": url.protocol.replace(/:$/, ""),
        "gantry.run.id": delivery.run_id,
        "gantry.webhook.delivery_id": delivery.delivery_id,
        "gantry.webhook.attempt": delivery.attempts,
      },
    },
    parent,
  );
  return {
    headers: otel.inject(trace.setSpan(parent, span)),
    end(report, result) {
      if (report.kind === "response") span.setAttribute("http.response.status_code", report.status);
      span.setAttribute("gantry.webhook.outcome", result.outcome);
      if (result.outcome !== "delivered") {
        span.setAttribute("error.type", report.kind === "response" ? String(report.status) : report.kind);
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
      }
      span.end();
    },
  };
}

/** The run's stored trace context, as the payload carries it in `kwargs.trace`. */
function runTrace(delivery: WebhookDelivery): Record<string, string> {
  const kwargs = delivery.payload.kwargs;
  const stored = kwargs && typeof kwargs === "object" && !Array.isArray(kwargs) ? kwargs.trace : undefined;
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return {};
  return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}
