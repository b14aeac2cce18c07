// Records as they travel on the wire (spec §2). Storage adapters return these shapes directly, so
// routes never rename fields on the way out.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };
export type JsonObject = { [key: string]: Json | undefined };

export interface Assistant {
  assistant_id: string;
  graph_id: string;
  config: JsonObject;
  context: JsonObject;
  metadata: JsonObject;
  version: number;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export type AssistantVersion = Omit<Assistant, "updated_at">;

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";
export type TtlStrategy = "delete" | "keep_latest";

export interface ThreadTtl {
  strategy: TtlStrategy;
  ttl_minutes: number;
  expires_at: string;
}

export interface Thread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: JsonObject;
  status: ThreadStatus;
  config: JsonObject;
  values: Json | null;
  interrupts: JsonObject;
  error: Json | null;
  ttl?: ThreadTtl | null;
}

export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
export type MultitaskStrategy = "reject" | "interrupt" | "rollback" | "enqueue";

export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: JsonObject;
  /** The stored invocation: input, command, config, context, stream modes, and the other run options. */
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy | null;
}

/** The stream modes a run can ask for. */
export const STREAM_MODES = [
  "values",
  "messages",
  "messages-tuple",
  "updates",
  "events",
  "debug",
  "custom",
  "tasks",
  "checkpoints",
  "tools",
  "lifecycle",
] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/** A `Send`: run `node` with `input` as its state. */
export type SendTarget = { node: string; input: Json };

/** What a run asks of an interrupted or running thread instead of (or with) new input. */
export type RunCommand = {
  resume?: Json;
  update?: JsonObject | Array<[string, Json]>;
  goto?: string | SendTarget | Array<string | SendTarget>;
};

/** The ids every run's graph finds in `config.configurable`, next to the assistant's and the client's keys. */
export type RunConfigurable = JsonObject & { run_id: string; thread_id: string; graph_id: string; assistant_id: string };

export type RunConfig = JsonObject & { configurable: RunConfigurable; tags?: string[]; recursion_limit?: number; metadata?: JsonObject };

/**
 * A run's invocation as it is stored, built once from the request (domain/run-request.ts) and read
 * by the worker that executes it.
 */
export type RunKwargs = {
  input: Json;
  command: RunCommand | null;
  config: RunConfig;
  context: JsonObject;
  stream_mode: StreamMode[];
  subgraphs: boolean;
  resumable: boolean;
  interrupt_before: "*" | string[] | null;
  interrupt_after: "*" | string[] | null;
  webhook: string | null;
  feedback_keys: string[] | null;
  /** A stateless run's thread, deleted when the run ends (`on_completion: "delete"`). */
  temporary: boolean;
  on_disconnect: "cancel" | "continue";
  durability: "sync" | "async" | "exit";
  /** Refuse a resume that answers no waiting interrupt. Absent on runs stored before it existed. */
  strict_resume?: boolean;
  /**
   * Started through the thread protocol (v2, src/protocol/): the worker streams it with
   * `streamEvents(..., {version: "v3"})` into the thread's protocol log as well as its own log.
   */
  protocol?: boolean;
  /** The W3C trace context (`traceparent`, `tracestate`) the creating request carried: the run's spans continue its trace, on whichever replica executes it. */
  trace?: Record<string, string>;
};
