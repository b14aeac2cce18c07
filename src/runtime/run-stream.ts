// Runs a compiled graph for one run and turns what LangGraph streams into the wire events of spec
// §4.2, in order. The fast path is graph.stream(); streamEvents() (callbacks on every runnable,
// several times slower) is used only for the modes that need it: `events` and legacy `messages`.
// Emitting `metadata` first and turning a thrown error into an `error` event are the caller's job.
import { unsupported } from "../errors.js";
import type { RunEvent } from "../events/run-event-log.js";
import type { StreamMode } from "../storage/records.js";
import type { CompiledGraphLike } from "./graph-like.js";
import { toLangGraphCommand, type CommandInput } from "./run-command.js";
import { lifecycleTracker, type LifecycleTracker } from "./lifecycle.js";
import { checkpointPayload, debugPayload, taskPayload } from "./run-stream-payloads.js";
import { toWire } from "./wire-serde.js";

export interface GraphRunOptions {
  /** null/undefined with no command continues the thread from its current state. */
  input: unknown;
  command?: CommandInput;
  config: {
    configurable: Record<string, unknown>;
    tags?: string[];
    recursion_limit?: number;
    max_concurrency?: number;
    metadata?: Record<string, unknown>;
    [key: string]: unknown;
  };
  context?: Record<string, unknown>;
  streamMode: StreamMode[];
  /** stream_subgraphs: subgraph events are emitted, named `<mode>|<ns1>|<ns2>…`. */
  subgraphs: boolean;
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  durability?: "sync" | "async" | "exit";
  signal: AbortSignal;
  runId: string;
}

interface StreamingGraph {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  streamEvents(input: unknown, options: Record<string, unknown>): AsyncIterable<StreamEventLike>;
}

/** A LangChain `streamEvents` v2 event. */
interface StreamEventLike {
  event: string;
  run_id: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  data?: { chunk?: unknown };
}

interface MessageChunkLike {
  id?: unknown;
  concat?: (other: unknown) => unknown;
}

const INTERRUPT = "__interrupt__";

/**
 * Yields the run's wire events. Throws what the graph throws (an AbortError once `signal` fires).
 *
 * The run's output, as `/wait` and `/join` return it, is the data of the last event named exactly
 * `values` (see `finalValues`); when the run stopped on an interrupt it carries `__interrupt__`.
 * Without `values` among the stream modes there is no such event and the thread's state stands in.
 */
export async function* streamGraphRun(graph: CompiledGraphLike, options: GraphRunOptions): AsyncGenerator<RunEvent> {
  const streaming = asStreamingGraph(graph);
  const input = options.command != null ? toLangGraphCommand(options.command) : (options.input ?? null);
  const requested = new Set(options.streamMode);
  // `lifecycle` needs every namespace's task events, whether or not the client asked for subgraphs.
  const lifecycle = requested.has("lifecycle") ? lifecycleTracker() : undefined;
  const mapper = eventMapper(requested, options.subgraphs, lifecycle);
  const libraryOptions = toLibraryOptions({ ...options, subgraphs: options.subgraphs || lifecycle !== undefined }, libraryModes(requested));
  // One generator, no delegation: a per-event hop through another generator costs on every run.
  try {
    if (!requested.has("events") && !requested.has("messages")) {
      for await (const chunk of await pullStream(graph, streaming)(input, libraryOptions)) yield* mapper.chunk(chunk);
    } else {
      const events = streaming.streamEvents(input, { ...libraryOptions, version: "v2" });
      for await (const event of events) {
        if (event.tags?.includes("langsmith:hidden")) continue;
        // The graph's own stream output reaches streamEvents as on_chain_stream events of the root run.
        if (event.event === "on_chain_stream" && event.run_id === options.runId) {
          yield* mapper.chunk(event.data?.chunk);
          continue;
        }
        if (requested.has("events")) yield { event: "events", data: toWire(event) };
        if (requested.has("messages") && event.event === "on_chat_model_stream" && !event.tags?.includes("nostream")) {
          yield* mapper.token(event);
        }
      }
    }
  } catch (err) {
    if (lifecycle !== undefined) yield* lifecycle.end(err);
    throw err;
  }
  if (lifecycle !== undefined) yield* lifecycle.end();
}

/**
 * Watches a run's events for where its thread ends up, so a run that simply finished needs no
 * state read afterwards: its last root `values` are the thread's values (the same channels
 * getState reads) and nothing is next. When an interrupt showed, in the root or in a subgraph, or
 * there were no root `values` (a resumed run with nothing left to do), only the checkpoint can say.
 */
export function finalStateWatcher(): { see(event: RunEvent): void; settled(): { values: unknown } | undefined } {
  let values: unknown;
  let seen = false;
  let interrupted = false;
  return {
    see({ event, data }) {
      if (event !== "values" && !event.startsWith("values|")) return;
      if (isRecord(data) && INTERRUPT in data) interrupted = true;
      else if (event === "values") {
        values = data;
        seen = true;
      }
    },
    settled: () => (seen && !interrupted ? { values: values ?? null } : undefined),
  };
}

/** The run's output: the data of its last root `values` event, undefined when there was none. */
export function finalValues(events: Iterable<RunEvent>): unknown {
  let last: unknown;
  for (const { event, data } of events) if (event === "values") last = data;
  return last;
}

/**
 * What to ask LangGraph for: `messages-tuple` is its `messages`; legacy `messages` is built from
 * token events plus root `values` (for the finished messages); `lifecycle` from `tasks`; `events`
 * is not a stream mode.
 */
function libraryModes(requested: Set<StreamMode>): string[] {
  const modes = new Set<string>();
  for (const mode of requested) {
    if (mode === "messages-tuple") modes.add("messages");
    else if (mode === "messages") modes.add("values");
    else if (mode === "lifecycle") modes.add("tasks");
    else if (mode !== "events") modes.add(mode);
  }
  return [...modes];
}

export function toLibraryOptions(options: GraphRunOptions, streamMode: string[]): Record<string, unknown> {
  const { config } = options;
  const all: Record<string, unknown> = {
    configurable: config.configurable,
    tags: config.tags,
    metadata: config.metadata,
    callbacks: config.callbacks,
    recursionLimit: config.recursion_limit,
    maxConcurrency: config.max_concurrency,
    context: options.context,
    interruptBefore: options.interruptBefore,
    interruptAfter: options.interruptAfter,
    durability: options.durability,
    signal: options.signal,
    runId: options.runId,
    // Always a list, so chunks are always [mode, payload] or [namespace, mode, payload].
    streamMode,
    subgraphs: options.subgraphs,
  };
  // An explicit undefined would override the graph's own defaults (its recursionLimit, say).
  const defined: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(all)) if (value !== undefined) defined[key] = value;
  return defined;
}

/**
 * The graph's stream, read only as fast as it is consumed. A compiled graph's `stream()` wraps
 * LangChain's pull-based `Runnable.stream` in a stream that copies each chunk ahead the moment it
 * exists, through a dozen promise hops per chunk: a node that emits thousands of events before it
 * yields had them all copied in one run of the microtask queue (100-500 ms for 5,000 here), and no
 * socket write, timer or Redis reply could happen meanwhile, so a run's first event left with its
 * last. The base class's `stream` gives the same chunks on demand; it is used when the graph's
 * class chain is LangGraph's (the class that overrides `stream` also defines `_streamIterator`,
 * which the base one drives), else the graph's own `stream()`. What the override adds is an
 * abort controller (the run's signal is passed either way) and the graph's own recursion limit
 * as the default, applied here.
 */
function pullStream(graph: CompiledGraphLike, streaming: StreamingGraph): StreamingGraph["stream"] {
  let owner: object | null = Object.getPrototypeOf(graph) as object | null;
  while (owner !== null && !Object.hasOwn(owner, "stream")) owner = Object.getPrototypeOf(owner) as object | null;
  const base = owner !== null && Object.hasOwn(owner, "_streamIterator") ? (Object.getPrototypeOf(owner) as { stream?: unknown } | null)?.stream : undefined;
  if (typeof base !== "function" || base === streaming.stream) return (input, options) => streaming.stream(input, options);
  const recursionLimit = (graph.config as { recursionLimit?: unknown } | undefined)?.recursionLimit;
  return (input, options) => (base as StreamingGraph["stream"]).call(graph, input, { ...(recursionLimit !== undefined ? { recursionLimit } : {}), ...options });
}

function asStreamingGraph(graph: CompiledGraphLike): StreamingGraph {
  if (typeof graph.stream !== "function" || typeof graph.streamEvents !== "function") {
    throw unsupported(`Graph '${graph.name ?? "unnamed"}' cannot be streamed: it lacks stream() or streamEvents()`);
  }
  return graph as unknown as StreamingGraph;
}

interface EventMapper {
  /** A chunk of the graph's own stream: `[mode, payload]`, or `[namespace, mode, payload]`. */
  chunk(chunk: unknown): Generator<RunEvent>;
  /** Legacy `messages` mode: a chat model token, as `messages/metadata` and `messages/partial`. */
  token(event: StreamEventLike): Generator<RunEvent>;
}

/**
 * Turns one run's library output into wire events; holds what must be remembered across chunks.
 * With a lifecycle tracker, LangGraph streams every namespace and `tasks` whatever was asked; the
 * chunks the client did not ask for feed the tracker only.
 */
function eventMapper(requested: Set<StreamMode>, subgraphs: boolean, lifecycle?: LifecycleTracker): EventMapper {
  const chunksHaveNamespace = subgraphs || lifecycle !== undefined;
  // Per `values` event name (so per namespace), the last state and the interrupts seen: LangGraph
  // streams an interrupt as a separate `{__interrupt__}` chunk, and clients expect it alongside
  // the state it interrupted.
  const latest = new Map<string, { values: unknown; interrupts?: unknown[] }>();
  // Legacy `messages` mode: the accumulated chunks per message id, and the ids already completed.
  const partials = new Map<string, MessageChunkLike>();
  const completed = new Set<string>();

  function withInterrupts(event: string, payload: unknown): unknown {
    let seen = latest.get(event);
    if (seen === undefined) latest.set(event, (seen = { values: undefined }));
    if (isRecord(payload) && INTERRUPT in payload) {
      const interrupts = Array.isArray(payload[INTERRUPT]) ? payload[INTERRUPT] : [];
      seen.interrupts = [...(seen.interrupts ?? []), ...interrupts];
      // A static breakpoint has no interrupt values: sent as LangGraph streams it, `{__interrupt__: []}`,
      // as the reference server does. interrupt() calls come with the state they stopped, as the
      // Python server sends them.
      if (seen.interrupts.length === 0) return { [INTERRUPT]: [] };
      return isRecord(seen.values) ? { ...seen.values, [INTERRUPT]: seen.interrupts } : { [INTERRUPT]: seen.interrupts };
    }
    seen.values = payload;
    // Tasks that finished beside an interrupted one are applied after it: state still interrupted.
    return seen.interrupts && isRecord(payload) ? { ...payload, [INTERRUPT]: seen.interrupts } : payload;
  }

  function* completeMessages(values: unknown): Generator<RunEvent> {
    if (!isRecord(values) || !("messages" in values) || INTERRUPT in values) return;
    const messages = Array.isArray(values.messages) ? values.messages : [values.messages];
    const fresh: unknown[] = [];
    for (const message of messages) {
      const id = isRecord(message) ? message.id : undefined;
      if (typeof id !== "string" || id === "" || completed.has(id)) continue;
      completed.add(id);
      fresh.push(message);
    }
    if (fresh.length > 0) yield { event: "messages/complete", data: toWire(fresh) };
  }

  return {
    *chunk(chunk) {
      if (!Array.isArray(chunk)) return;
      const [namespace, mode, payload] = (chunksHaveNamespace ? chunk : [[], ...chunk]) as [string[], string, unknown];
      const isRoot = namespace.length === 0;
      if (lifecycle !== undefined) {
        yield* lifecycle.see(namespace, mode, payload);
        if ((!isRoot && !subgraphs) || (mode === "tasks" && !requested.has("tasks"))) return;
      }
      const name = (event: string) => (isRoot ? event : `${event}|${namespace.join("|")}`);
      switch (mode) {
        case "values":
          if (requested.has("values")) {
            const event = name("values");
            yield { event, data: toWire(withInterrupts(event, payload)) };
          }
          if (isRoot && requested.has("messages")) yield* completeMessages(payload);
          return;
        case "messages":
          yield { event: name("messages"), data: toWire(payload) };
          return;
        // streamEvents adds bare checkpoint markers of its own here when checkpoints weren't asked for.
        case "checkpoints":
          if (requested.has("checkpoints")) yield { event: name(mode), data: checkpointPayload(payload) };
          return;
        case "tasks":
          yield { event: name(mode), data: taskPayload(payload) };
          return;
        case "debug":
          yield { event: name(mode), data: debugPayload(payload) };
          return;
        case "updates":
        case "custom":
        case "tools":
          yield { event: name(mode), data: toWire(payload) };
          return;
      }
    },

    *token(event) {
      const chunk = event.data?.chunk as MessageChunkLike | undefined;
      if (chunk === undefined || typeof chunk.id !== "string" || chunk.id === "") return;
      const id = chunk.id;
      const previous = partials.get(id);
      let accumulated = chunk;
      if (previous === undefined) {
        yield { event: "messages/metadata", data: { [id]: { metadata: toWire(event.metadata ?? {}) } } };
      } else if (typeof previous.concat === "function") {
        accumulated = previous.concat(chunk) as MessageChunkLike;
      }
      partials.set(id, accumulated);
      yield { event: "messages/partial", data: [toWire(accumulated)] };
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
