// LangSmith tracing as LangSmith Deployment does it: one trace per run, its root run's id the run's
// id (LangGraph's root run takes the runId it is given), in the project the run's
// `langsmith_tracer.project_name` names or else LANGSMITH_PROJECT, linked to
// `langsmith_tracer.example_id` when given, with the platform's metadata on every run of the trace.
// The official tracer and client do the sending (LANGSMITH_ENDPOINT, LANGSMITH_API_KEY, batching).
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import type { ClaimedRun } from "../storage/run-ports.js";
import { GANTRY_VERSION, langgraphVersion } from "../version.js";

export interface LangSmithTracing {
  /** The tracer for one run's graph. */
  tracer(run: ClaimedRun): BaseCallbackHandler;
  /** Sends what is batched; at shutdown, so the last runs' traces are not lost. */
  flush(): Promise<void>;
}

export function langsmithTracing(): LangSmithTracing {
  const langgraph = langgraphVersion();
  let client: LangChainTracer["client"] | undefined;
  return {
    tracer(run) {
      const configurable = run.kwargs.config.configurable as Record<string, unknown>;
      const project = stringOrUndefined(configurable.langsmith_project);
      const exampleId = stringOrUndefined(configurable.langsmith_example_id);
      const tracer = new LangChainTracer({
        ...(project ? { projectName: project } : {}),
        ...(exampleId ? { exampleId } : {}),
        ...(client ? { client } : {}),
        metadata: {
          ...run.metadata,
          thread_id: run.thread_id,
          assistant_id: run.assistant_id,
          graph_id: configurable.graph_id,
          run_id: run.run_id,
          run_attempt: run.attempt,
          ...(langgraph ? { langgraph_version: langgraph } : {}),
          langgraph_api_version: GANTRY_VERSION,
          langgraph_api_server: "gantry",
          langgraph_host: "self-hosted",
        },
      });
      client ??= tracer.client;
      return tracer;
    },
    async flush() {
      // The default client (langsmith's Client) batches; the interface the tracer declares does not say so.
      const batching = client as { awaitPendingTraceBatches?: () => Promise<void> } | undefined;
      await batching?.awaitPendingTraceBatches?.();
    },
  };
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
