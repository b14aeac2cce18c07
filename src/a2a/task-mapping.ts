// Pure translation between A2A and the run engine: an A2A message becomes a run's input, and a run
// (with its output, once it has finished) becomes an A2A task. contextId is the thread, the task is
// the run, so both faces describe the same records.
import type { JsonObject, Run } from "../domain/records.js";
import { JSONRPC_CODES, JsonRpcError, invalidParams } from "./json-rpc.js";
import type { Artifact, IncomingMessage, Message, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from "./protocol.js";

/**
 * The run input for a message. Text parts become one user message on the graph's `messages`
 * channel (so only a messages-based graph can take them, as the platform documents); data parts
 * are merged into the input as they are, for any graph.
 */
export function inputFromMessage(message: IncomingMessage, graph: { graphId: string; hasMessages: boolean }): JsonObject {
  const input: JsonObject = {};
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.kind === "file") throw filesUnsupported();
    if (part.kind === "data") Object.assign(input, part.data as JsonObject);
    else texts.push(part.text);
  }
  if (texts.length === 0) return input;
  if (!graph.hasMessages) {
    throw invalidParams(
      `Graph '${graph.graphId}' has no 'messages' key in its state, so it cannot take text parts; A2A text needs a messages-based graph. Send a data part with the graph's input instead.`,
    );
  }
  const content = texts.length === 1 ? texts[0]! : texts.map((text) => ({ type: "text", text }));
  const earlier = Array.isArray(input.messages) ? input.messages : [];
  input.messages = [...earlier, { type: "human", content, id: message.messageId }];
  return input;
}

/** What a reply to an input-required task resumes the graph with: its text, or its data when it has no text. */
export function resumeFromMessage(message: IncomingMessage): unknown {
  const texts: string[] = [];
  let data: Record<string, unknown> | undefined;
  for (const part of message.parts) {
    if (part.kind === "file") throw filesUnsupported();
    if (part.kind === "text") texts.push(part.text);
    else data = { ...data, ...part.data };
  }
  return texts.length > 0 ? texts.join("\n") : data;
}

/** The A2A state of a run; a finished run's output tells a graph interrupt (input-required) from a completion. */
export function taskState(run: Run, output: unknown): TaskState {
  switch (run.status) {
    case "pending":
      return "submitted";
    case "running":
      return "working";
    case "success":
      return interruptsOf(output).length > 0 ? "input-required" : "completed";
    case "interrupted":
      return "canceled";
    case "error":
    case "timeout":
      return "failed";
  }
}

const isFinished = (run: Run) => run.status !== "pending" && run.status !== "running";

/** The task for a run: its output (the final values, or null while it is not finished) gives the history and the answer. */
export function taskOf(run: Run, output: unknown, options: { historyLength?: number } = {}): Task {
  const state = taskState(run, output);
  const ids = { contextId: run.thread_id, taskId: run.run_id };
  const history = historyOf(output, ids);
  const kept = options.historyLength === undefined ? history : options.historyLength === 0 ? [] : history.slice(-options.historyLength);
  const artifact = isFinished(run) ? answerArtifact(run, output) : undefined;
  const message = isFinished(run) ? statusMessage(state, output, ids) : undefined;
  return {
    kind: "task",
    id: run.run_id,
    contextId: run.thread_id,
    status: { state, ...(message ? { message } : {}), timestamp: run.updated_at },
    history: kept,
    artifacts: artifact && state === "completed" ? [artifact] : [],
    metadata: { assistant_id: run.assistant_id, run_status: run.status },
  };
}

export function statusUpdate(task: Task, final: boolean): TaskStatusUpdateEvent {
  return { kind: "status-update", taskId: task.id, contextId: task.contextId, status: task.status, final };
}

/** An artifact update: by default the whole artifact, replacing what came before. */
export function artifactUpdate(
  task: Task,
  artifact: Artifact,
  chunk: { append: boolean; lastChunk: boolean } = { append: false, lastChunk: true },
): TaskArtifactUpdateEvent {
  return { kind: "artifact-update", taskId: task.id, contextId: task.contextId, artifact, ...chunk };
}

/**
 * A piece of the answer while it is written: the text of an AI message (or token chunk) in a
 * root-graph `messages` event; the final answer artifact replaces the pieces once the run ends.
 */
export function answerChunk(runId: string, event: { event: string; data: unknown }): Artifact | undefined {
  if (event.event !== "messages" || !Array.isArray(event.data)) return undefined;
  const message: unknown = event.data[0];
  if (!isObject(message) || (message.type !== "AIMessageChunk" && message.type !== "ai")) return undefined;
  const text = textOf(message.content);
  return text ? { artifactId: answerArtifactId(runId), name: ANSWER_NAME, parts: [{ kind: "text", text }] } : undefined;
}

const ANSWER_NAME = "Assistant Response";
const answerArtifactId = (runId: string) => `${runId}-answer`;

/**
 * The answer: the last AI message's text for a messages-based graph, the final values as a data
 * part for any other.
 */
function answerArtifact(run: Run, output: unknown): Artifact | undefined {
  if (!isObject(output) || "__error__" in output) return undefined;
  const reply = lastAiText(output);
  const values: Record<string, unknown> = { ...output };
  delete values.__interrupt__;
  const parts: Part[] = reply !== undefined ? [{ kind: "text", text: reply }] : [{ kind: "data", data: values }];
  return { artifactId: answerArtifactId(run.run_id), name: ANSWER_NAME, parts };
}

function statusMessage(state: TaskState, output: unknown, ids: { contextId: string; taskId: string }): Message | undefined {
  const agent = (messageId: string, parts: Part[]): Message => ({ kind: "message", messageId, role: "agent", parts, ...ids });
  if (state === "failed" && isObject(output) && isObject(output.__error__)) {
    const error = output.__error__;
    return agent(`${ids.taskId}-error`, [{ kind: "text", text: `${String(error.error ?? "Error")}: ${String(error.message ?? "")}` }]);
  }
  if (state === "input-required") {
    const values = interruptsOf(output).map((interrupt) => (isObject(interrupt) && "value" in interrupt ? interrupt.value : interrupt));
    const parts: Part[] = values.map((value) => (typeof value === "string" ? { kind: "text", text: value } : { kind: "data", data: { interrupt: value } }));
    return agent(`${ids.taskId}-input-required`, parts);
  }
  if (state === "completed" && isObject(output)) {
    const reply = lastAiText(output);
    if (reply !== undefined) return agent(`${ids.taskId}-answer`, [{ kind: "text", text: reply }]);
  }
  return undefined;
}

/**
 * The conversation as A2A messages: human turns are the user's, AI turns with text the agent's;
 * tool traffic stays out. No taskId: a thread's messages do not record which run wrote them.
 */
function historyOf(output: unknown, ids: { contextId: string; taskId: string }): Message[] {
  if (!isObject(output) || !Array.isArray(output.messages)) return [];
  const history: Message[] = [];
  output.messages.forEach((raw: unknown, index: number) => {
    if (!isObject(raw)) return;
    const role = raw.type === "human" ? "user" : raw.type === "ai" ? "agent" : undefined;
    const text = textOf(raw.content);
    if (!role || !text) return;
    const messageId = typeof raw.id === "string" && raw.id ? raw.id : `${ids.taskId}-${index}`;
    history.push({ kind: "message", messageId, role, parts: [{ kind: "text", text }], contextId: ids.contextId });
  });
  return history;
}

function lastAiText(values: Record<string, unknown>): string | undefined {
  if (!Array.isArray(values.messages)) return undefined;
  for (let i = values.messages.length - 1; i >= 0; i--) {
    const message: unknown = values.messages[i];
    if (isObject(message) && message.type === "ai") {
      const text = textOf(message.content);
      if (text) return text;
    }
  }
  return undefined;
}

/** A message's text: the string itself, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) => (typeof block === "string" ? block : isObject(block) && block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .filter(Boolean)
    .join("\n");
}

const filesUnsupported = () => new JsonRpcError(JSONRPC_CODES.contentTypeNotSupported, "File parts are not supported; send the content as text or data parts");

function interruptsOf(output: unknown): unknown[] {
  return isObject(output) && Array.isArray(output.__interrupt__) ? output.__interrupt__ : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
