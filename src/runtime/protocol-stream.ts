// Runs a compiled graph for a protocol (v2) run: core LangGraph's `streamEvents(..., {version:
// "v3"})` yields protocol events (lifecycle, messages as content-block deltas, tools, …) and runs
// the graph's own stream transformers. A graph compiled with a LangGraph that predates v3 is
// streamed with the classic modes instead, converted by core's own converter (what the
// reference server does too).
import { convertToProtocolEvent, STREAM_EVENTS_V3_MODES } from "@langchain/langgraph/stream";
import { unsupported } from "../errors.js";
import type { CompiledGraphLike } from "./graph-like.js";
import { toLangGraphCommand } from "./run-command.js";
import { type GraphRunOptions, toLibraryOptions } from "./run-stream.js";

/** One event of core's v3 stream, read structurally (the graph's LangGraph may be another copy). */
export interface CoreProtocolEvent {
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

interface V3Graph {
  streamEvents(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<CoreProtocolEvent>> | AsyncIterable<CoreProtocolEvent>;
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
}

/** Throws what the graph throws (an AbortError once `signal` fires). */
export async function* streamProtocolRun(
  graph: CompiledGraphLike,
  options: Omit<GraphRunOptions, "streamMode" | "subgraphs">,
): AsyncGenerator<CoreProtocolEvent> {
  if (typeof graph.stream !== "function" || typeof graph.streamEvents !== "function") {
    throw unsupported(`Graph '${graph.name ?? "unnamed"}' cannot be streamed: it lacks stream() or streamEvents()`);
  }
  const streaming = graph as unknown as V3Graph;
  const input = options.command != null ? toLangGraphCommand(options.command) : (options.input ?? null);
  const {
    streamMode: _modes,
    subgraphs: _subgraphs,
    ...libraryOptions
  } = toLibraryOptions({ ...options, streamMode: [], subgraphs: true }, [...STREAM_EVENTS_V3_MODES]);
  let iterator: AsyncIterator<CoreProtocolEvent>;
  let first: IteratorResult<CoreProtocolEvent>;
  try {
    iterator = (await streaming.streamEvents(input, { ...libraryOptions, version: "v3" }))[Symbol.asyncIterator]();
    first = await iterator.next();
  } catch (err) {
    if (!(err instanceof Error && err.message.includes('Only versions "v1" and "v2"'))) throw err;
    yield* fromClassicStream(streaming, input, libraryOptions);
    return;
  }
  if (first.done) return;
  yield first.value;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
}

async function* fromClassicStream(graph: V3Graph, input: unknown, libraryOptions: Record<string, unknown>): AsyncGenerator<CoreProtocolEvent> {
  let seq = 0;
  for await (const chunk of await graph.stream(input, { ...libraryOptions, streamMode: [...STREAM_EVENTS_V3_MODES], subgraphs: true })) {
    const [namespace, mode, payload] = chunk as [string[], string, unknown];
    const events = convertToProtocolEvent({ namespace: namespace ?? [], mode: mode as never, payload, seq });
    seq += events.length;
    yield* events as unknown as CoreProtocolEvent[];
  }
}
