// Thread state outside runs: reading the latest or a past checkpoint, history, state updates as a
// node, and pre-populating a new thread from supersteps. The graph is the thread's graph
// (metadata.graph_id), run with the official checkpointer.
import { conflict, invalid, notFound } from "../errors.js";
import type { CompiledGraphLike } from "../runtime/graph-like.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import { checkpointOf, toThreadState, type Checkpoint, type ThreadState } from "../runtime/thread-state.js";
import { toWire } from "../runtime/wire-serde.js";
import type { CheckpointStore } from "../storage/checkpoint-ports.js";
import type { ThreadRepo } from "../storage/ports.js";
import type { RunRepo } from "../storage/run-ports.js";
import type { Json, JsonObject, Thread } from "../storage/records.js";
import { authField, authorize, type Access } from "./access.js";

export interface CheckpointSelector {
  checkpoint_id?: string | null;
  checkpoint_ns?: string | null;
  checkpoint_map?: Record<string, unknown> | null;
}

/** `access` (custom auth): reads are `threads:read`, writes `threads:update`, both confined to what the handler allows. */
export interface ThreadStateService {
  get(threadId: string, options: { checkpoint?: CheckpointSelector; subgraphs?: boolean }, access?: Access): Promise<ThreadState>;
  history(
    threadId: string,
    options: { limit: number; before?: string; metadata?: Record<string, unknown>; checkpoint?: CheckpointSelector },
    access?: Access,
  ): Promise<ThreadState[]>;
  update(
    threadId: string,
    input: { values: unknown; asNode?: string; checkpoint?: CheckpointSelector },
    access?: Access,
  ): Promise<{ checkpoint: Checkpoint | null }>;
  /** Merges keys into the metadata of the thread's latest checkpoint. */
  patchMetadata(threadId: string, metadata: Record<string, unknown>, access?: Access): Promise<void>;
  applySupersteps(
    threadId: string,
    graphId: string,
    supersteps: Array<{ updates: Array<{ values?: unknown; command?: unknown; as_node: string }> }>,
  ): Promise<Thread>;
}

/**
 * The state of a thread without a graph: the same shape as a graph's thread before its first run,
 * a checkpoint naming the thread but no id (the SDK types `checkpoint` as never null).
 */
const emptyState = (threadId: string): ThreadState => ({
  values: {},
  next: [],
  tasks: [],
  checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
  parent_checkpoint: null,
  metadata: {},
  created_at: null,
  interrupts: [],
});

export function threadStateService(deps: {
  threads: ThreadRepo;
  runs: Pick<RunRepo, "list">;
  graphs: GraphRegistry;
  checkpoints: CheckpointStore;
}): ThreadStateService {
  const { threads, runs, graphs, checkpoints } = deps;

  /** The thread, when it exists and the caller may `action` it. */
  const visibleThread = async (threadId: string, access: Access | undefined, action: "read" | "update"): Promise<Thread> => {
    const auth = await authorize(access, "threads", action, { thread_id: threadId });
    const thread = await threads.get(threadId, authField(auth));
    if (!thread) throw notFound(`Thread ${threadId} not found`);
    return thread;
  };

  const threadAndGraph = async (
    threadId: string,
    access: Access | undefined,
    action: "read" | "update",
  ): Promise<{ thread: Thread; graph: CompiledGraphLike | null }> => {
    const thread = await visibleThread(threadId, access, action);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== "string" || !graphs.has(graphId)) return { thread, graph: null };
    return { thread, graph: await graphFor(graphId, threadId) };
  };

  const graphFor = async (graphId: string, threadId: string): Promise<CompiledGraphLike> => {
    const entry = graphs.get(graphId);
    const graph = await entry.resolve(entry.factory ? await threadConfig(threadId) : { configurable: { thread_id: threadId } });
    graph.checkpointer = checkpoints.saver;
    return graph;
  };

  /**
   * What a graph factory is given outside a run: the config of the thread's latest run (its
   * assistant's config merged with the run's), so it builds the graph that wrote the state. The
   * official server passes the thread's config, accumulated from its runs the same way.
   */
  const threadConfig = async (threadId: string): Promise<{ configurable: Record<string, unknown>; [key: string]: unknown }> => {
    const [latest] = await runs.list(threadId, {}, { limit: 1, offset: 0 });
    const config = (latest?.kwargs.config ?? {}) as { configurable?: Record<string, unknown>; [key: string]: unknown };
    return { ...config, configurable: { ...config.configurable, thread_id: threadId } };
  };

  const configOf = (threadId: string, checkpoint?: CheckpointSelector) => ({
    configurable: {
      thread_id: threadId,
      ...(checkpoint?.checkpoint_id ? { checkpoint_id: checkpoint.checkpoint_id } : {}),
      ...(checkpoint?.checkpoint_ns ? { checkpoint_ns: checkpoint.checkpoint_ns } : {}),
      ...(checkpoint?.checkpoint_map ? { checkpoint_map: checkpoint.checkpoint_map } : {}),
    },
  });

  /** Refreshes the thread row from the graph's latest state after a change outside a run. */
  const record = async (thread: Thread, graph: CompiledGraphLike): Promise<Thread> => {
    const state = toThreadState(await graph.getState!({ configurable: { thread_id: thread.thread_id } }));
    const interrupts: JsonObject = {};
    for (const task of state.tasks) if (task.interrupts.length > 0) interrupts[task.id] = task.interrupts as Json;
    const saved = await threads.setState(thread.thread_id, {
      values: state.values as Json,
      interrupts,
      status: state.next.length > 0 ? "interrupted" : "idle",
    });
    if (saved === "busy") throw conflict(`Thread ${thread.thread_id} is busy with a run; update its state once the run has finished`);
    if (!saved) throw notFound(`Thread ${thread.thread_id} not found`);
    return saved;
  };

  return {
    async get(threadId, options, access) {
      const { graph } = await threadAndGraph(threadId, access, "read");
      const wanted = options.checkpoint?.checkpoint_id;
      const missing = () => notFound(`Checkpoint ${wanted} not found on thread ${threadId}`);
      if (!graph) {
        if (wanted) throw missing();
        return emptyState(threadId);
      }
      const snapshot = await graph.getState!(configOf(threadId, options.checkpoint), { subgraphs: options.subgraphs ?? false });
      const state = toThreadState(snapshot);
      // For a checkpoint it cannot find, LangGraph answers an empty snapshot that echoes the config it
      // was given (so the id matches); only a saved checkpoint has a timestamp.
      if (wanted && (state.created_at === null || state.checkpoint?.checkpoint_id !== wanted)) throw missing();
      return state;
    },

    async history(threadId, options, access) {
      const { graph } = await threadAndGraph(threadId, access, "read");
      if (!graph) return [];
      const out: ThreadState[] = [];
      const listOptions = {
        limit: options.limit,
        ...(options.before ? { before: { configurable: { checkpoint_id: options.before } } } : {}),
        ...(options.metadata ? { filter: options.metadata } : {}),
      };
      for await (const snapshot of graph.getStateHistory!(configOf(threadId, options.checkpoint), listOptions)) {
        out.push(toThreadState(snapshot));
        if (out.length >= options.limit) break;
      }
      return out;
    },

    async update(threadId, input, access) {
      const { thread, graph } = await threadAndGraph(threadId, access, "update");
      if (!graph) {
        throw invalid(`Thread ${threadId} has no graph yet: run an assistant on it (or create it with metadata.graph_id) before updating its state`);
      }
      if (thread.status === "busy") throw conflict(`Thread ${threadId} is busy with a run; update its state once the run has finished`);
      // LangGraph treats a checkpoint it cannot find as an empty thread, so an unknown id would
      // silently replace the state with the update alone.
      const from = input.checkpoint?.checkpoint_id;
      if (from && !(await checkpoints.saver.getTuple(configOf(threadId, input.checkpoint)))) {
        throw notFound(`Checkpoint ${from} not found on thread ${threadId}`);
      }
      let config;
      try {
        config = await graph.updateState!(configOf(threadId, input.checkpoint), input.values, input.asNode);
      } catch (err) {
        throw invalid(`The state update was refused by the graph: ${(err as Error).message}`);
      }
      await record(thread, graph);
      return { checkpoint: checkpointOf(config) };
    },

    async patchMetadata(threadId, metadata, access) {
      await visibleThread(threadId, access, "update");
      const saver = checkpoints.saver;
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
      if (!tuple) throw notFound(`Thread ${threadId} has no checkpoint yet, so there is no state metadata to patch`);
      // Writing the same checkpoint again under its parent replaces the row with the merged metadata;
      // no channel versions change, so no values are rewritten.
      const parent = tuple.parentConfig ?? { configurable: { thread_id: threadId, checkpoint_ns: "" } };
      await saver.put(parent, tuple.checkpoint, { ...tuple.metadata, ...metadata } as typeof tuple.metadata & object, {});
    },

    async applySupersteps(threadId, graphId, supersteps) {
      const thread = await threads.get(threadId);
      if (!thread) throw notFound(`Thread ${threadId} not found`);
      const graph = await graphFor(graphId, threadId);
      const bulk = (graph as { bulkUpdateState?: (config: unknown, steps: unknown) => Promise<unknown> }).bulkUpdateState;
      if (typeof bulk !== "function") throw invalid(`Graph '${graphId}' cannot apply supersteps (its LangGraph version has no bulkUpdateState)`);
      try {
        await bulk.call(
          graph,
          configOf(threadId),
          supersteps.map((step) => ({
            updates: step.updates.map((u) => ({ values: toWire(u.values), asNode: u.as_node })),
          })),
        );
      } catch (err) {
        throw invalid(`Field 'supersteps' was refused by the graph: ${(err as Error).message}`);
      }
      return record(thread, graph);
    },
  };
}
