// What the assistant introspection routes (/graph, /schemas, /subgraphs) report about a compiled
// graph: JSON Schemas read from the StateGraph it was built from, and its drawable form. The graph
// may come from another copy of @langchain/langgraph, so everything is read by duck typing.
import type { RunnableConfig } from "@langchain/core/runnables";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { interopZodObjectPartial, isInteropZodObject } from "@langchain/core/utils/types";
import { invalid } from "../errors.js";
import type { CompiledGraphLike } from "./graph-like.js";
import type { TypedSchemas } from "./typed-schemas/extract.js";

export type JsonSchema = Record<string, unknown>;

export interface SubgraphSchema {
  input_schema?: JsonSchema | null;
  output_schema?: JsonSchema | null;
  state_schema?: JsonSchema | null;
  config_schema?: JsonSchema | null;
  context_schema?: JsonSchema | null;
}

/**
 * A subgraph as /subgraphs answers it: the SDK's keys (`state_schema`, ...), which the Python
 * server sends, and the same schemas under the keys the JS reference server sends (`state`,
 * `input`, `output`, `config`), so clients written against either find theirs.
 */
export interface DescribedSubgraph extends SubgraphSchema {
  state: JsonSchema | null;
  input: JsonSchema | null;
  output: JsonSchema | null;
  config: JsonSchema | null;
}

export interface GraphSchema {
  graph_id: string;
  input_schema?: JsonSchema | null;
  output_schema?: JsonSchema | null;
  state_schema: JsonSchema | null;
  config_schema?: JsonSchema | null;
  context_schema?: JsonSchema | null;
}

export interface DrawnGraph {
  nodes: Array<{ id: string | number; name?: string; type?: string; data?: unknown; metadata?: unknown }>;
  edges: Array<{ source: string; target: string; data?: unknown; conditional?: boolean }>;
}

/** The StateGraph internals that carry its state definitions; any of them may be missing. */
interface BuilderLike {
  _schemaDefinition?: unknown;
  _inputDefinition?: unknown;
  _outputDefinition?: unknown;
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
  _metaRegistry?: unknown;
}

interface StateSchemaLike {
  getJsonSchema(): unknown;
  getInputJsonSchema(): unknown;
}

interface MetaRegistryLike {
  getExtendedChannelSchemas(schema: unknown, effects: Record<string, boolean>): unknown;
}

/**
 * "update" is what a node or client may write (reducer input types, every key optional); "value"
 * is what the state holds. state_schema uses "update", as the JS reference server does
 * (getUpdateTypeSchema), since state is edited through updates.
 */
type Shape = "update" | "value";

// langgraph's marker for "input is the state schema, made partial"; Symbol.for, so shared by copies.
const PARTIAL_STATE = Symbol.for("langgraph.state.partial");
// withLangGraph() smuggles jsonSchemaExtra through zod as a description with this prefix.
const META_EXTRAS_PREFIX = "lg:";

/**
 * Schemas read from the graph's TypeScript types (typed-schemas/), by namespace: "" for the graph
 * itself. Asked for only when a graph's state has no runtime schema (Annotation.Root), since
 * reading them costs seconds the first time.
 */
export type TypedSchemasLookup = () => Promise<Record<string, TypedSchemas> | undefined>;

export async function describeGraphSchemas(graphId: string, graph: CompiledGraphLike, typed?: TypedSchemasLookup): Promise<GraphSchema> {
  const types = typed && needsTypes(graph.builder) ? (await typed())?.[""] : undefined;
  return { graph_id: graphId, ...describeBuilder(graph.builder, graphId, types) };
}

export async function describeSubgraphs(
  graph: CompiledGraphLike,
  options: { namespace?: string; recurse: boolean },
  typed?: TypedSchemasLookup,
): Promise<Record<string, DescribedSubgraph>> {
  const { namespace } = options;
  // langgraph only descends into nested subgraphs when recursing, so a nested namespace
  // ("parent|child") asked for without recurse could never match.
  const recurse = options.recurse || (namespace?.includes("|") ?? false);
  const subgraphs = listSubgraphs(graph, namespace, recurse);
  const result: Record<string, DescribedSubgraph> = {};
  for await (const [ns, subgraph] of subgraphs) {
    if (namespace !== undefined && ns !== namespace) continue;
    const builder = isObject(subgraph) ? subgraph.builder : undefined;
    const types = typed && needsTypes(builder) ? (await typed())?.[ns] : undefined;
    const schemas = describeBuilder(builder, ns, types);
    result[ns] = { ...schemas, state: schemas.state_schema, input: schemas.input_schema, output: schemas.output_schema, config: schemas.config_schema };
  }
  return result;
}

export async function drawGraph(graph: CompiledGraphLike, xray: boolean | number, config: RunnableConfig = {}): Promise<DrawnGraph> {
  if (typeof xray === "number" && !(Number.isInteger(xray) && xray >= 0)) {
    throw invalid(`Parameter 'xray' must be a boolean or a non-negative integer, got ${xray}`);
  }
  const drawable = await graph.getGraphAsync({ ...config, xray });
  const { nodes, edges } = drawable.toJSON();
  return { nodes: nodes.filter(isObject).map(drawnNode), edges: edges.filter(isObject).map(drawnEdge) };
}

/** A state without a runtime schema (Annotation.Root) has its types only in the source. */
function needsTypes(builder: unknown): boolean {
  const runtime = isObject(builder) ? builder._schemaRuntimeDefinition : undefined;
  return !isStateSchemaLike(runtime) && !isInteropZodObject(runtime);
}

function describeBuilder(builder: unknown, title: string, types: TypedSchemas | undefined): Required<SubgraphSchema> {
  const b: BuilderLike = isObject(builder) ? builder : {};
  return {
    input_schema: attempt(() => inputSchema(b, title, types?.input)),
    output_schema: attempt(() => outputSchema(b, title, types?.output)),
    state_schema: attempt(() => definitionSchema(b, b._schemaRuntimeDefinition, b._schemaDefinition, "update", title, types?.state)),
    // A JS graph has one schema for both, so the reference server reports it under both keys.
    config_schema: attempt(() => contextSchema(b) ?? types?.config ?? null),
    context_schema: attempt(() => contextSchema(b) ?? types?.config ?? null),
  };
}

function inputSchema(b: BuilderLike, title: string, typed: JsonSchema | null | undefined): JsonSchema | null {
  let runtime = b._inputRuntimeDefinition;
  if (runtime === PARTIAL_STATE) {
    // langgraph also sets the marker when `input` was an Annotation with keys of its own.
    runtime = sameKeys(b._inputDefinition, b._schemaDefinition) ? b._schemaRuntimeDefinition : undefined;
  }
  return definitionSchema(b, runtime, b._inputDefinition, "update", title, typed);
}

function outputSchema(b: BuilderLike, title: string, typed: JsonSchema | null | undefined): JsonSchema | null {
  let runtime = b._outputRuntimeDefinition;
  // A non-zod `output` leaves the state's runtime definition in place; its keys tell them apart.
  if (runtime === b._schemaRuntimeDefinition && !sameKeys(b._outputDefinition, b._schemaDefinition)) {
    runtime = undefined;
  }
  return definitionSchema(b, runtime, b._outputDefinition, "value", title, typed);
}

function contextSchema(b: BuilderLike): JsonSchema | null {
  return isInteropZodObject(b._configRuntimeSchema) ? zodObjectSchema(b, b._configRuntimeSchema, "value") : null;
}

/**
 * A typed schema from a StateSchema or zod object when there is one, else the one read from the
 * TypeScript types; failing both, an object listing every channel untyped.
 */
function definitionSchema(
  b: BuilderLike,
  runtime: unknown,
  channels: unknown,
  shape: Shape,
  title: string,
  typed: JsonSchema | null | undefined,
): JsonSchema | null {
  let schema: JsonSchema;
  if (isStateSchemaLike(runtime)) {
    schema = asJsonSchema(shape === "update" ? runtime.getInputJsonSchema() : runtime.getJsonSchema());
  } else if (isInteropZodObject(runtime)) {
    schema = zodObjectSchema(b, runtime, shape);
  } else if (typed) {
    schema = typed;
  } else if (isObject(channels)) {
    schema = { title, type: "object", properties: {} };
  } else {
    return null;
  }
  return listEveryChannel(schema, channels);
}

function zodObjectSchema(b: BuilderLike, schema: unknown, shape: Shape): JsonSchema {
  const registry = isMetaRegistryLike(b._metaRegistry) ? b._metaRegistry : undefined;
  const effects: Record<string, boolean> =
    shape === "update" ? { withReducerSchema: true, withJsonSchemaExtrasAsDescription: true, asPartial: true } : { withJsonSchemaExtrasAsDescription: true };
  let extended = schema as Parameters<typeof interopZodObjectPartial>[0];
  if (registry) extended = registry.getExtendedChannelSchemas(schema, effects) as typeof extended;
  else if (shape === "update") extended = interopZodObjectPartial(extended);
  // "any" turns types JSON Schema cannot express (z.date(), z.custom()) into {} instead of failing
  // the whole schema. draft-07 is the dialect zod v3 and StateSchema fields already come out in.
  return applyMetaExtras(asJsonSchema(toJsonSchema(extended, { target: "draft-7", unrepresentable: "any" })));
}

function applyMetaExtras(schema: JsonSchema): JsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = walk(child);
    const description = out.description;
    if (typeof description === "string" && description.startsWith(META_EXTRAS_PREFIX)) {
      try {
        const extras: unknown = JSON.parse(description.slice(META_EXTRAS_PREFIX.length));
        if (isObject(extras)) {
          delete out.description;
          Object.assign(out, extras);
        }
      } catch {
        // Not ours after all: a user description that happens to start with "lg:" stays as written.
      }
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/** Every channel appears, even one whose type could not be expressed; $schema only at the root. */
function listEveryChannel(schema: JsonSchema, channels: unknown): JsonSchema {
  const properties: Record<string, unknown> = isObject(schema.properties) ? { ...schema.properties } : {};
  for (const [key, property] of Object.entries(properties)) {
    if (isObject(property) && "$schema" in property) {
      const rest = { ...property };
      delete rest.$schema;
      properties[key] = rest;
    }
  }
  if (isObject(channels)) {
    for (const key of Object.keys(channels)) if (!(key in properties)) properties[key] = {};
  }
  return { ...schema, properties };
}

/**
 * The names of the graph's nodes and of every node of its subgraphs, at any depth: what
 * interrupt_before/interrupt_after may name (the official server takes any name).
 */
export async function nodeNamesWithSubgraphs(graph: CompiledGraphLike): Promise<Set<string>> {
  const names = new Set(nodeNamesOf(graph));
  for await (const [, subgraph] of listSubgraphs(graph, undefined, true)) {
    if (isObject(subgraph)) for (const name of nodeNamesOf(subgraph)) names.add(name);
  }
  return names;
}

function nodeNamesOf(graph: Record<string, unknown>): string[] {
  return Object.keys(isObject(graph.nodes) ? graph.nodes : {}).filter((name) => name !== "__start__");
}

function listSubgraphs(
  graph: CompiledGraphLike,
  namespace: string | undefined,
  recurse: boolean,
): AsyncIterable<[string, unknown]> | Iterable<[string, unknown]> {
  if (typeof graph.getSubgraphsAsync === "function") return graph.getSubgraphsAsync(namespace, recurse);
  // Older langgraph releases only have the synchronous generator.
  const getSubgraphs = graph.getSubgraphs;
  if (typeof getSubgraphs === "function") {
    return getSubgraphs.call(graph, namespace, recurse) as Iterable<[string, unknown]>;
  }
  return [];
}

function drawnNode(node: Record<string, unknown>): DrawnGraph["nodes"][number] {
  const drawn: DrawnGraph["nodes"][number] = { id: nodeId(node.id) };
  if (typeof node.name === "string") drawn.name = node.name;
  if (typeof node.type === "string") drawn.type = node.type;
  if (node.data !== undefined) drawn.data = toJsonValue(node.data);
  if (node.metadata !== undefined) drawn.metadata = toJsonValue(node.metadata);
  return drawn;
}

function drawnEdge(edge: Record<string, unknown>): DrawnGraph["edges"][number] {
  const drawn: DrawnGraph["edges"][number] = { source: nodeId(edge.source), target: nodeId(edge.target) };
  if (edge.data !== undefined) drawn.data = toJsonValue(edge.data);
  if (typeof edge.conditional === "boolean") drawn.conditional = edge.conditional;
  return drawn;
}

// toJSON numbers the nodes whose id is a UUID. DrawnGraph edges carry strings, so node ids are
// stringified the same way and edges still match their nodes.
function nodeId(id: unknown): string {
  return String(id);
}

/**
 * A copy that JSON.stringify accepts and that holds no functions or class instances: toJSON() is
 * honoured, functions and symbols are dropped, bigints become strings, and a cycle is cut where it
 * closes (shared, non-cyclic references are kept).
 */
function toJsonValue(value: unknown, ancestors: Set<object> = new Set()): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || ancestors.has(value)) return undefined;
  ancestors.add(value);
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return toJsonValue(toJSON.call(value), ancestors);
    if (Array.isArray(value)) return value.map((item) => toJsonValue(item, ancestors) ?? null);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const converted = toJsonValue(child, ancestors);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

function attempt(build: () => JsonSchema | null): JsonSchema | null {
  try {
    const schema = build();
    return schema === null ? null : asJsonSchema(toJsonValue(schema));
  } catch {
    return null;
  }
}

function asJsonSchema(value: unknown): JsonSchema {
  if (!isObject(value)) throw new Error("Schema conversion did not produce an object");
  return value;
}

function sameKeys(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isObject(a) || !isObject(b)) return false;
  const keysA = Object.keys(a);
  const keysB = new Set(Object.keys(b));
  return keysA.length === keysB.size && keysA.every((key) => keysB.has(key));
}

function isStateSchemaLike(value: unknown): value is StateSchemaLike {
  return isObject(value) && typeof value.getJsonSchema === "function" && typeof value.getInputJsonSchema === "function";
}

function isMetaRegistryLike(value: unknown): value is MetaRegistryLike {
  return isObject(value) && typeof value.getExtendedChannelSchemas === "function";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
