// The run as a client asks for it (RunCreate, validated at the edge) and as it is stored
// (RunKwargs): one builder turns the first into the second, so no other layer re-reads a request
// or re-types a stored invocation.
import type { Assistant, Json, JsonObject, RunCommand, RunConfig, RunKwargs, StreamMode } from "../storage/records.js";

export interface RunCreate {
  assistant_id: string;
  input?: Json;
  command?: RunCommand;
  config?: JsonObject & { tags?: string[]; recursion_limit?: number; configurable?: JsonObject };
  context?: JsonObject;
  metadata?: JsonObject;
  stream_mode?: StreamMode | StreamMode[];
  stream_subgraphs?: boolean;
  stream_resumable?: boolean;
  interrupt_before?: "*" | string[];
  interrupt_after?: "*" | string[];
  webhook?: string;
  feedback_keys?: string[];
  on_disconnect?: "cancel" | "continue";
  after_seconds?: number;
  durability?: "sync" | "async" | "exit";
  checkpoint_during?: boolean;
  if_not_exists?: "reject" | "create";
  multitask_strategy?: "reject" | "interrupt" | "rollback" | "enqueue";
  strict_resume?: boolean;
  checkpoint?: { checkpoint_id?: string; checkpoint_ns?: string; checkpoint_map?: JsonObject; thread_id?: string };
  checkpoint_id?: string;
  on_completion?: "delete" | "keep";
  langsmith_tracer?: { project_name?: string; example_id?: string };
  /** Set by the protocol service (src/protocol/), never read from a request: the run streams protocol (v2) events. */
  protocol?: boolean;
}

/** What the run service settled before building the invocation: ids, the merged config, the checkpoint to start from. */
export interface RunSetting {
  assistant: Assistant;
  /** The assistant's config with the request's over it (mergeConfig). */
  config: JsonObject;
  /** Keys the server adds to `configurable` from the request (headers, the creator), before the run's ids. */
  extraConfigurable: JsonObject;
  /** The metadata the run executes with, which its checkpoints record (runConfigMetadata). */
  metadata: JsonObject;
  runId: string;
  threadId: string;
  /** A stateless run's thread goes with the run. */
  temporary: boolean;
  checkpoint?: { checkpoint_id: string; checkpoint_ns?: string };
  /** The request's headers, for the trace context a run continues. */
  headers?: Record<string, string>;
}

/**
 * The JSON a request carries (zod checked its shape at the edge) is stored as it came: fields the
 * request left out take the platform's defaults here, and nowhere else.
 */
export function buildRunKwargs(body: RunCreate, setting: RunSetting): RunKwargs {
  const { assistant } = setting;
  return {
    input: body.input ?? null,
    command: body.command ?? null,
    config: { ...setting.config, configurable: runConfigurable(body, setting), metadata: setting.metadata },
    context: { ...assistant.context, ...body.context },
    stream_mode: body.stream_mode === undefined ? ["values"] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode],
    subgraphs: body.stream_subgraphs ?? false,
    resumable: body.stream_resumable ?? false,
    interrupt_before: body.interrupt_before ?? null,
    interrupt_after: body.interrupt_after ?? null,
    webhook: body.webhook ?? null,
    feedback_keys: body.feedback_keys ?? null,
    temporary: setting.temporary,
    on_disconnect: body.on_disconnect ?? "continue",
    durability: body.durability ?? (body.checkpoint_during === false ? "exit" : "async"),
    strict_resume: body.strict_resume ?? false,
    ...(body.protocol ? { protocol: true } : {}),
    ...traceContext(setting.headers ?? {}),
  };
}

const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A well-formed W3C `traceparent` (and its `tracestate`); anything else is ignored, as the W3C recommendation says. */
function traceContext(headers: Record<string, string>): { trace?: Record<string, string> } {
  const traceparent = headers.traceparent?.trim().toLowerCase();
  if (!traceparent || !TRACEPARENT.test(traceparent)) return {};
  const tracestate = headers.tracestate?.trim();
  return { trace: { traceparent, ...(tracestate ? { tracestate } : {}) } };
}

function runConfigurable(body: RunCreate, setting: RunSetting): RunConfig["configurable"] {
  const { assistant } = setting;
  return {
    ...(setting.config.configurable as JsonObject | undefined),
    ...setting.extraConfigurable,
    run_id: setting.runId,
    thread_id: setting.threadId,
    graph_id: assistant.graph_id,
    assistant_id: assistant.assistant_id,
    ...(body.langsmith_tracer?.project_name ? { langsmith_project: body.langsmith_tracer.project_name } : {}),
    ...(body.langsmith_tracer?.example_id ? { langsmith_example_id: body.langsmith_tracer.example_id } : {}),
    ...(setting.checkpoint ? setting.checkpoint : {}),
  };
}
