// A2A v0.3 on the wire, as far as Gantry speaks it: the params it reads (zod, unknown keys
// dropped) and the objects it answers with. The platform's A2A endpoint is v0.3 JSON-RPC
// (`message/send`, `message/stream`, `tasks/get`), so these are the v0.3 shapes, not v1.0's.
import { z } from "zod";

export const PROTOCOL_VERSION = "0.3.0";

const Metadata = z.record(z.string(), z.unknown());

const TextPart = z.object({ kind: z.literal("text"), text: z.string(), metadata: Metadata.optional() });
const DataPart = z.object({ kind: z.literal("data"), data: Metadata, metadata: Metadata.optional() });
const FilePart = z.object({ kind: z.literal("file"), file: z.record(z.string(), z.unknown()), metadata: Metadata.optional() });

export const IncomingMessage = z.object({
  kind: z.literal("message").optional(),
  messageId: z.string().min(1),
  role: z.enum(["user", "agent"]),
  parts: z.array(z.discriminatedUnion("kind", [TextPart, DataPart, FilePart])).min(1),
  contextId: z.string().min(1).optional(),
  taskId: z.string().min(1).optional(),
  metadata: Metadata.optional(),
});
export type IncomingMessage = z.output<typeof IncomingMessage>;

export const MessageSendParams = z.object({
  message: IncomingMessage,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().min(0).optional(),
      blocking: z.boolean().optional(),
    })
    .optional(),
  metadata: Metadata.optional(),
});
export type MessageSendParams = z.output<typeof MessageSendParams>;

export const TaskQueryParams = z.object({ id: z.string().min(1), historyLength: z.number().int().min(0).optional() });
export type TaskQueryParams = z.output<typeof TaskQueryParams>;

export const TaskIdParams = z.object({ id: z.string().min(1) });

export type TaskState = "submitted" | "working" | "input-required" | "completed" | "canceled" | "failed" | "rejected" | "auth-required" | "unknown";

export type Part = { kind: "text"; text: string } | { kind: "data"; data: Record<string, unknown> };

export interface Message {
  kind: "message";
  messageId: string;
  role: "user" | "agent";
  parts: Part[];
  contextId: string;
  taskId?: string;
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp: string;
}

export interface Artifact {
  artifactId: string;
  name: string;
  parts: Part[];
}

export interface Task {
  kind: "task";
  id: string;
  contextId: string;
  status: TaskStatus;
  history?: Message[];
  artifacts?: Artifact[];
  metadata: Record<string, unknown>;
}

export interface TaskStatusUpdateEvent {
  kind: "status-update";
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
}

export interface TaskArtifactUpdateEvent {
  kind: "artifact-update";
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append: boolean;
  lastChunk: boolean;
}

export type StreamEvent = Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  inputModes: string[];
  outputModes: string[];
}

export interface AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: "JSONRPC";
  version: string;
  capabilities: { streaming: boolean; pushNotifications: boolean; stateTransitionHistory: boolean };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
}
