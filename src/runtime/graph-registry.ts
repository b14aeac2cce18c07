// The graphs named in langgraph.json, imported once at start-up. A module that fails to import, or an
// export that is not a graph, stops start-up with one message naming the file, the graph and the cause.
import type { RunnableConfig } from "@langchain/core/runnables";
import type { GraphSpec } from "../config/langgraph-config.js";
import { GantryError, StartupError } from "../errors.js";
import { describeCause, importExport } from "./load-module.js";
import { type CompiledGraphLike, type GraphFactory, isCompiledGraph, isStateGraph } from "./graph-like.js";

export interface GraphEntry {
  spec: GraphSpec;
  /** Resolves the graph for one use; factories are called per use with the run's config. */
  resolve(config: RunnableConfig): Promise<CompiledGraphLike>;
  /** The export is a factory of the config ("dynamic graph"): its shape may depend on the config. */
  factory: boolean;
}

export interface GraphRegistry {
  ids(): string[];
  has(graphId: string): boolean;
  get(graphId: string): GraphEntry;
}

export async function loadGraphRegistry(specs: GraphSpec[]): Promise<GraphRegistry> {
  const entries = new Map<string, GraphEntry>();
  for (const spec of specs) {
    const what = `Graph '${spec.graphId}'`;
    const exported = await awaitExport(await importExport(spec, what), spec, what);
    const factory = typeof exported === "function" && !isCompiledGraph(exported) && !isStateGraph(exported);
    entries.set(spec.graphId, { spec, resolve: resolverFor(exported, spec, what), factory });
  }
  return {
    ids: () => [...entries.keys()],
    has: (graphId) => entries.has(graphId),
    get(graphId) {
      const entry = entries.get(graphId);
      if (!entry) throw new GantryError("not_found", `Graph '${graphId}' not found. Graphs in langgraph.json: ${[...entries.keys()].join(", ")}`);
      return entry;
    },
  };
}

async function awaitExport(value: unknown, spec: GraphSpec, what: string): Promise<unknown> {
  if (value && typeof (value as PromiseLike<unknown>).then === "function") {
    try {
      return await value;
    } catch (err) {
      throw new StartupError(`${what}: the promise exported as '${spec.exportName}' from ${spec.file} rejected: ${describeCause(err)}`);
    }
  }
  return value;
}

function resolverFor(exported: unknown, spec: GraphSpec, what: string): GraphEntry["resolve"] {
  if (isCompiledGraph(exported)) return async () => exported;
  if (isStateGraph(exported)) {
    let compiled: CompiledGraphLike;
    try {
      compiled = exported.compile();
    } catch (err) {
      throw new StartupError(`${what}: compiling the StateGraph exported as '${spec.exportName}' from ${spec.file} failed: ${describeCause(err)}`);
    }
    return async () => compiled;
  }
  if (typeof exported === "function") {
    const factory = exported as GraphFactory;
    return async (config) => {
      const made = await factory(config);
      if (isCompiledGraph(made)) return made;
      if (isStateGraph(made)) return made.compile();
      throw new GantryError("invalid", `${what}: the factory '${spec.exportName}' in ${spec.file} did not return a graph.`);
    };
  }
  throw new StartupError(
    `${what}: '${spec.exportName}' exported from ${spec.file} is not a graph (expected a compiled graph, a StateGraph, or a function returning one; got ${typeof exported}).`,
  );
}
