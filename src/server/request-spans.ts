// A span per HTTP request (OpenTelemetry, when configured): method, route pattern and status, under
// the caller's `traceparent` when it sent one. Named by route pattern, not path, as the HTTP
// semantic conventions ask, so that traces group by endpoint.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import type { Otel } from "../observe/otel.js";
import type { AppEnv } from "./app-env.js";

export function requestSpans(otel: Otel): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const parent = otel.extract({ traceparent: c.req.header("traceparent"), tracestate: c.req.header("tracestate") });
    const span = otel.tracer.startSpan(
      c.req.method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": c.req.method, "url.path": c.req.path, "gantry.request.id": c.get("requestId") } },
      parent,
    );
    try {
      await next();
    } finally {
      const route = c.get("routePattern");
      if (route) {
        span.updateName(`${c.req.method} ${route}`);
        span.setAttribute("http.route", route);
      }
      span.setAttribute("http.response.status_code", c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
