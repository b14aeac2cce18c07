// The shape Gantry relies on in a user's graph. The user's project brings its own copy of
// @langchain/langgraph, so nothing here may depend on `instanceof` against our copy: graphs are
// recognised by the methods they expose.
import type { RunnableConfig } from "@langchain/core/runnables";

/** A compiled LangGraph graph (`StateGraph.compile()` result), from any supported version. */
export interface CompiledGraphLike {
  getGraphAsync(config?: RunnableConfig & { xray?: boolean | number }): Promise<DrawableGraphLike>;
  getSubgraphsAsync?(namespace?: string, recurse?: boolean): AsyncIterable<[string, CompiledGraphLike]>;
  /** The StateGraph the graph was compiled from; carries the state/input/output definitions. */
  builder?: unknown;
  stream?: (...args: unknown[]) => unknown;
  getState?: (config: RunnableConfig, options?: { subgraphs?: boolean }) => Promise<unknown>;
  getStateHistory?: (config: RunnableConfig, options?: Record<string, unknown>) => AsyncIterable<unknown>;
  updateState?: (config: RunnableConfig, values: unknown, asNode?: string) => Promise<RunnableConfig>;
  invoke?: (...args: unknown[]) => unknown;
  name?: string;
  [key: string]: unknown;
}

export interface DrawableGraphLike {
  toJSON(): { nodes: unknown[]; edges: unknown[] };
}

/** An uncompiled StateGraph: compiled once on load. */
export interface StateGraphLike {
  compile(options?: Record<string, unknown>): CompiledGraphLike;
}

export type GraphFactory = (config: RunnableConfig) => unknown;

export function isCompiledGraph(value: unknown): value is CompiledGraphLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as CompiledGraphLike).getGraphAsync === "function" &&
    (typeof (value as CompiledGraphLike).stream === "function" || typeof (value as CompiledGraphLike).invoke === "function")
  );
}

export function isStateGraph(value: unknown): value is StateGraphLike {
  return typeof value === "object" && value !== null && typeof (value as StateGraphLike).compile === "function" && !isCompiledGraph(value);
}
