// Wire shapes of the checkpoint and task payloads LangGraph streams in the `checkpoints`, `tasks`
// and `debug` modes: configs in snake_case without internal keys, checkpoints spelled out as the
// SDK's Checkpoint, task errors as the message string the SDK types declare.
import { checkpointOf } from "./thread-state.js";
import { serializeError, toWire } from "./wire-serde.js";

type Payload = Record<string, unknown>;

/** A `checkpoints` chunk, or the payload of a `debug` event of type "checkpoint". */
export function checkpointPayload(payload: unknown): unknown {
  if (!isObject(payload)) return toWire(payload) ?? null;
  const { config, parentConfig, tasks, ...rest } = payload;
  return {
    ...(toWire(rest) as Payload),
    config: publicConfig(config),
    parent_config: publicConfig(parentConfig),
    checkpoint: checkpointOf(config),
    parent_checkpoint: checkpointOf(parentConfig),
    tasks: Array.isArray(tasks) ? tasks.map(taskPayload) : [],
  };
}

/** A `tasks` chunk (task start or result), or a task inside a checkpoint payload. */
export function taskPayload(task: unknown): unknown {
  if (!isObject(task)) return toWire(task) ?? null;
  const { state, error, ...rest } = task;
  const out = toWire(rest) as Payload;
  if (error !== undefined) out.error = error === null ? null : serializeError(error).message;
  // A task that runs a subgraph carries the subgraph's config; clients read it as a checkpoint.
  const checkpoint = checkpointOf(state);
  if (checkpoint) out.checkpoint = checkpoint;
  else if (state !== undefined) out.state = toWire(state) ?? null;
  return out;
}

/** A `debug` chunk: `{type, timestamp, step, payload}` with its payload shaped like the above. */
export function debugPayload(chunk: unknown): unknown {
  if (!isObject(chunk)) return toWire(chunk) ?? null;
  const { payload, ...rest } = chunk;
  const out = toWire(rest) as Payload;
  out.payload = chunk.type === "checkpoint" ? checkpointPayload(payload) : taskPayload(payload);
  return out;
}

// Configurable keys starting with "__" are LangGraph's plumbing (the checkpointer, the send and
// read functions, scratchpads) and callbacks are live handlers: neither means anything to a client.
function publicConfig(config: unknown): unknown {
  if (!isObject(config)) return null;
  const visible: Payload = {};
  for (const key of Object.keys(config)) {
    if (key === "callbacks") continue;
    const value = config[key];
    visible[key] = key === "configurable" && isObject(value) ? withoutInternalKeys(value) : value;
  }
  return toWire(visible);
}

function withoutInternalKeys(configurable: Payload): Payload {
  const visible: Payload = {};
  for (const key of Object.keys(configurable)) if (!key.startsWith("__")) visible[key] = configurable[key];
  return visible;
}

function isObject(value: unknown): value is Payload {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
