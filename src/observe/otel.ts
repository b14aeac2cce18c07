// OpenTelemetry traces of the server's own work, sent over OTLP/HTTP (JSON) in batches: a span per
// HTTP request, and per run its wait in the queue, its execution, each node, model call and tool
// call inside it (GenAI semantic conventions), and each webhook delivery. Contexts are passed by
// hand rather than through a global context manager: nothing else in the process is instrumented,
// and a run's spans must hang under the `traceparent` its creating request carried, which may have
// reached another replica (it is stored with the run).
import { type Context, defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { OtelConfig } from "../config/observe-config.js";
import { GANTRY_VERSION } from "../version.js";

export interface Otel {
  tracer: Tracer;
  /** The context a W3C `traceparent` (and `tracestate`) names; the root context without one. */
  extract(carrier: Record<string, string | undefined>): Context;
  /** `traceparent`/`tracestate` for a context, to store or send on. */
  inject(ctx: Context): Record<string, string>;
  /** Sends what is batched and stops; at shutdown. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

export function startOtel(config: OtelConfig): Otel {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName, "service.version": GANTRY_VERSION, ...config.resourceAttributes }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers, timeoutMillis: config.timeoutMs }), {
        scheduledDelayMillis: config.scheduleDelayMs,
      }),
    ],
  });
  return {
    tracer: provider.getTracer("gantry", GANTRY_VERSION),
    extract(carrier) {
      return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
    },
    inject(ctx) {
      const carrier: Record<string, string> = {};
      propagator.inject(ctx, carrier, defaultTextMapSetter);
      return carrier;
    },
    shutdown: () => provider.shutdown(),
  };
}
