// A LangGraph StateSnapshot (graph.getState / getStateHistory) as the wire ThreadState of spec
// §2.3. Snapshots may come from another copy of LangGraph, so they are read as plain data.
import { serializeError, toWire } from "./wire-serde.js";

export interface Checkpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

/**
 * A task's subgraph checkpoint. Read without subgraphs it is the config the subgraph will run
 * under, and carries only the keys that config has (no checkpoint_id before the subgraph ran), as
 * both official servers send it.
 */
export type TaskCheckpoint = Pick<Checkpoint, "thread_id" | "checkpoint_ns"> & Partial<Pick<Checkpoint, "checkpoint_id" | "checkpoint_map">>;

export interface Interrupt {
  value?: unknown;
  id?: string;
  [key: string]: unknown;
}

/** The SDK's ThreadTask, with `path` and an always-present `result` as the official server sends them. */
export interface ThreadTask {
  id: string;
  name: string;
  /** Where the task came from: `["__pregel_pull", node]`, or a push (Send) path. */
  path: unknown[];
  error: string | null;
  interrupts: Interrupt[];
  /** The subgraph's checkpoint, when the task runs a subgraph and its state was not read (then it is `state.checkpoint`). */
  checkpoint: TaskCheckpoint | null;
  /** The subgraph's state; only present when the snapshot was read with subgraphs. */
  state: SubgraphState | null;
  /** The task's writes once it has finished; null while it has not. */
  result: unknown;
}

export interface ThreadState {
  values: unknown;
  next: string[];
  tasks: ThreadTask[];
  /** Null only for a snapshot read without a thread, which a checkpointer never produces. */
  checkpoint: Checkpoint | null;
  parent_checkpoint: Checkpoint | null;
  metadata: Record<string, unknown>;
  created_at: string | null;
  interrupts: Interrupt[];
}

/** A subgraph's state under its task: without the aggregated `interrupts`, as the official JS server sends it (they are on the task). */
export type SubgraphState = Omit<ThreadState, "interrupts">;

interface SnapshotLike {
  values: unknown;
  next: string[];
  config?: unknown;
  parentConfig?: unknown;
  metadata?: unknown;
  createdAt?: unknown;
  tasks?: TaskLike[];
}

interface TaskLike {
  id: string;
  name: string;
  path?: unknown[];
  error?: unknown;
  interrupts?: unknown[];
  state?: unknown;
  result?: unknown;
}

export function toThreadState(snapshot: unknown): ThreadState {
  if (!isSnapshot(snapshot)) throw new TypeError("Expected a LangGraph StateSnapshot");
  const tasks = (snapshot.tasks ?? []).map(toThreadTask);
  return {
    values: toWire(snapshot.values) ?? null,
    next: [...snapshot.next],
    tasks,
    checkpoint: checkpointOf(snapshot.config),
    parent_checkpoint: checkpointOf(snapshot.parentConfig),
    metadata: (toWire(snapshot.metadata) as Record<string, unknown> | undefined) ?? {},
    created_at: typeof snapshot.createdAt === "string" ? snapshot.createdAt : null,
    interrupts: tasks.flatMap((task) => task.interrupts),
  };
}

function toSubgraphState(snapshot: SnapshotLike): SubgraphState {
  const { interrupts: _onTheTask, ...state } = toThreadState(snapshot);
  return state;
}

/**
 * The checkpoint a RunnableConfig points at, or null without a thread. A config naming no
 * checkpoint (a subgraph task not started yet, a thread never run) gets `checkpoint_id: null`.
 */
export function checkpointOf(config: unknown): Checkpoint | null {
  const configurable = isObject(config) ? config.configurable : undefined;
  if (!isObject(configurable) || typeof configurable.thread_id !== "string" || !configurable.thread_id) return null;
  const { thread_id, checkpoint_ns, checkpoint_id, checkpoint_map } = configurable;
  return {
    thread_id,
    checkpoint_ns: typeof checkpoint_ns === "string" ? checkpoint_ns : "",
    checkpoint_id: typeof checkpoint_id === "string" && checkpoint_id ? checkpoint_id : null,
    checkpoint_map: isObject(checkpoint_map) ? (toWire(checkpoint_map) as Record<string, unknown>) : null,
  };
}

function taskCheckpointOf(config: unknown): TaskCheckpoint | null {
  const checkpoint = checkpointOf(config);
  if (!checkpoint) return null;
  const { checkpoint_id, checkpoint_map, ...where } = checkpoint;
  return { ...where, ...(checkpoint_id !== null ? { checkpoint_id } : {}), ...(checkpoint_map !== null ? { checkpoint_map } : {}) };
}

function toThreadTask(task: TaskLike): ThreadTask {
  const subgraph = isSnapshot(task.state) ? task.state : undefined;
  return {
    id: task.id,
    name: task.name,
    path: (toWire(task.path ?? []) as unknown[] | undefined) ?? [],
    error: task.error == null ? null : serializeError(task.error).message,
    interrupts: toWire(task.interrupts ?? []) as Interrupt[],
    // Read with subgraphs, the subgraph's checkpoint is in `state`; both official servers send null here then.
    checkpoint: subgraph ? null : taskCheckpointOf(task.state),
    state: subgraph ? toSubgraphState(subgraph) : null,
    result: task.result === undefined ? null : (toWire(task.result) ?? null),
  };
}

function isSnapshot(value: unknown): value is SnapshotLike {
  return isObject(value) && "values" in value && Array.isArray(value.next);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
