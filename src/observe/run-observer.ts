// Watches each run a worker executes: the callbacks its graph gets (the LangSmith tracer, the
// OpenTelemetry spans), the run's own spans (queued, claimed, executed), and its figures for /metrics.
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ClaimedRun } from "../storage/run-ports.js";
import { GraphSpans } from "./graph-spans.js";
import type { LangSmithTracing } from "./langsmith.js";
import type { Otel } from "./otel.js";
import type { RunMetrics } from "./run-metrics.js";

export interface RunObserver {
  /** The run's graph is about to start. */
  start(run: ClaimedRun): ObservedRun;
}

export interface ObservedRun {
  /** For the graph's config. */
  callbacks: BaseCallbackHandler[];
  /**
   * The run ended with this status; without one it stopped without an outcome here (handed back,
   * its lease lost, the database gone). Only the first call counts.
   */
  end(status?: string): void;
}

export function runObserver(deps: { metrics: RunMetrics; langsmith?: LangSmithTracing; otel?: Otel }): RunObserver {
  return {
    start(run) {
      const started = performance.now();
      const createdAt = Date.parse(run.created_at);
      const claimedAt = Date.parse(run.updated_at);
      deps.metrics.runStarted(Math.max(0, claimedAt - createdAt) / 1000);
      const callbacks: BaseCallbackHandler[] = [];
      if (deps.langsmith) callbacks.push(deps.langsmith.tracer(run));
      const spans = deps.otel ? runSpans(deps.otel, run, callbacks) : undefined;
      let ended = false;
      return {
        callbacks,
        end(status) {
          if (ended) return;
          ended = true;
          if (status !== undefined) deps.metrics.runEnded(status, (performance.now() - started) / 1000);
          spans?.end(status);
        },
      };
    },
  };
}

/**
 * The run's span (from its creation on a first attempt, from its claim on a later one) with its
 * wait in the queue, its claim and its execution under it, the graph's spans under the execution.
 */
function runSpans(otel: Otel, run: ClaimedRun, callbacks: BaseCallbackHandler[]): { end(status?: string): void } {
  const { tracer } = otel;
  const createdAt = Date.parse(run.created_at);
  const claimedAt = Date.parse(run.updated_at);
  const graphId = String(run.kwargs.config.configurable.graph_id);
  const parent = otel.extract(run.kwargs.trace ?? {});
  const first = run.attempt === 1;
  const root = tracer.startSpan(
    `run ${graphId}`,
    {
      kind: SpanKind.CONSUMER,
      startTime: first ? createdAt : claimedAt,
      attributes: {
        "gantry.run.id": run.run_id,
        "gantry.thread.id": run.thread_id,
        "gantry.assistant.id": run.assistant_id,
        "gantry.graph.id": graphId,
        "gantry.run.attempt": run.attempt,
      },
    },
    parent,
  );
  const inRun = trace.setSpan(parent, root);
  if (first) tracer.startSpan("queue", { startTime: createdAt }, inRun).end(claimedAt);
  tracer.startSpan("claim", { startTime: claimedAt }, inRun).end();
  const execution: Span = tracer.startSpan("execute", {}, inRun);
  const graph = new GraphSpans(tracer, run.run_id, trace.setSpan(inRun, execution));
  callbacks.push(graph);
  return {
    end(status) {
      graph.endAll();
      for (const span of [execution, root]) {
        span.setAttribute("gantry.run.status", status ?? "abandoned");
        if (status === "error" || status === "timeout") span.setStatus({ code: SpanStatusCode.ERROR, message: `run ended with status ${status}` });
        span.end();
      }
    },
  };
}
