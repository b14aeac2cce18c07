// Starts what config.observe asks for: LangSmith tracing of runs, OpenTelemetry export, and the
// run figures /metrics shows (always). Flushing at shutdown sends the last traces.
import type { ServerConfig } from "../config/server-config.js";
import type { Logger } from "../logging.js";
import { langsmithTracing, type LangSmithTracing } from "../observe/langsmith.js";
import type { Otel } from "../observe/otel.js";
import { createRunMetrics, type RunMetrics, type WorkerLoad } from "../observe/run-metrics.js";
import { runObserver, type RunObserver } from "../observe/run-observer.js";
import type { Storage } from "../storage/ports.js";

export interface Observing {
  observe: { otel?: Otel; langsmith?: LangSmithTracing; flush(): Promise<void> };
  runMetrics: RunMetrics;
  observer: RunObserver;
}

export async function startObserving(config: ServerConfig, storage: Storage, log: Logger, workers: () => WorkerLoad | undefined): Promise<Observing> {
  const langsmith = config.observe.langsmith ? langsmithTracing() : undefined;
  // OpenTelemetry's SDK loads only for a server that exports traces: at every start it cost about
  // 0.12 s of CPU (docs/benchmarks.md, 2026-11-28).
  const otel = config.observe.otel ? (await import("../observe/otel.js")).startOtel(config.observe.otel) : undefined;
  if (langsmith) log.info("tracing runs to LangSmith");
  if (config.observe.otel) log.info("exporting OpenTelemetry traces", { url: config.observe.otel.tracesUrl, service: config.observe.otel.serviceName });
  const runMetrics = createRunMetrics({
    queueStats: (now) => storage.runs.queueStats(now),
    workers,
    log,
  });
  return {
    observe: {
      ...(otel ? { otel } : {}),
      ...(langsmith ? { langsmith } : {}),
      async flush() {
        // A tracing backend that is away costs its traces, never the shutdown.
        await Promise.allSettled([langsmith?.flush(), otel?.shutdown()]);
      },
    },
    runMetrics,
    observer: runObserver({ metrics: runMetrics, ...(langsmith ? { langsmith } : {}), ...(otel ? { otel } : {}) }),
  };
}
