// Records as they travel on the wire (spec §2). Storage adapters return these shapes directly, so
// routes never rename fields on the way out.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

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
  kwargs: JsonObject;
  multitask_strategy: MultitaskStrategy | null;
}
