// Kept apart from otel.ts, which loads OpenTelemetry's SDK (only when traces are exported): the
// graph's span handler needs this one function, and only the API package it uses.
import { type Span, SpanStatusCode } from "@opentelemetry/api";

/** Ends a span with an error status naming what went wrong. */
export function endWithError(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute("error.type", err instanceof Error ? err.name : "Error");
  span.end();
}
