import { describe, it, expect } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { Annotation, ReducedValue, StateGraph, StateSchema } from "@langchain/langgraph";
import { withLangGraph } from "@langchain/langgraph/zod";
import { GantryError } from "../errors.js";
import type { CompiledGraphLike } from "./graph-like.js";
import { describeGraphSchemas, describeSubgraphs, drawGraph, type JsonSchema } from "./graph-info.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

function propertiesOf(schema: JsonSchema | null | undefined): Record<string, Record<string, unknown>> {
  expect(schema).toBeTruthy();
  return (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
}

function asGraphLike(graph: unknown): CompiledGraphLike {
  return graph as CompiledGraphLike;
}

function roundTrips(value: unknown): void {
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

const ZodState = z.object({ messages: z.array(z.string()), count: z.number() });

function zodGraph() {
  return new StateGraph(ZodState)
    .addNode("agent", () => ({ count: 1 }))
    .addEdge("__start__", "agent")
    .addEdge("agent", "__end__")
    .compile();
}

function parentWithSubgraph() {
  const Inner = Annotation.Root({ topic: Annotation<string> });
  // Two nodes: xray leaves a one-node subgraph collapsed.
  const grandchild = new StateGraph(Inner)
    .addNode("deep", () => ({}))
    .addNode("deeper", () => ({}))
    .addEdge("__start__", "deep")
    .addEdge("deep", "deeper")
    .compile();
  const child = new StateGraph(ZodState)
    .addNode("inner1", () => ({}))
    .addNode("nested", grandchild)
    .addEdge("__start__", "inner1")
    .addEdge("inner1", "nested")
    .compile();
  return new StateGraph(ZodState)
    .addNode("pre", () => ({}))
    .addNode("child", child)
    .addEdge("__start__", "pre")
    .addConditionalEdges("pre", () => "child", ["child", "__end__"])
    .compile();
}

describe("describeGraphSchemas", () => {
  it("gives a zod v4 state its property types, with every key optional in the state and input schemas", async () => {
    const schemas = await describeGraphSchemas("agent", asGraphLike(zodGraph()));

    expect(schemas.graph_id).toBe("agent");
    expect(schemas.state_schema?.$schema).toBe(DRAFT_07);
    expect(propertiesOf(schemas.state_schema)).toEqual({
      messages: { type: "array", items: { type: "string" } },
      count: { type: "number" },
    });
    expect(schemas.state_schema?.required).toBeUndefined();
    expect(propertiesOf(schemas.input_schema).count).toEqual({ type: "number" });
    expect(schemas.input_schema?.required).toBeUndefined();
    expect(propertiesOf(schemas.output_schema).messages).toEqual({ type: "array", items: { type: "string" } });
    expect(schemas.output_schema?.required).toEqual(["messages", "count"]);
    roundTrips(schemas);
  });

  it("converts a zod v3 state schema too", async () => {
    const State = z3.object({ topic: z3.string(), tries: z3.number() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge("__start__", "a")
      .compile();

    const schemas = await describeGraphSchemas("v3", asGraphLike(graph));

    expect(propertiesOf(schemas.state_schema)).toEqual({ topic: { type: "string" }, tries: { type: "number" } });
    expect(schemas.output_schema?.required).toEqual(["topic", "tries"]);
  });

  it("uses a withLangGraph reducer's schema for updates and lifts its jsonSchemaExtra into the schema", async () => {
    const State = z.object({
      messages: withLangGraph(z.array(z.string()), {
        reducer: { fn: (a: string[], b: string | string[]) => a.concat(b), schema: z.union([z.string(), z.array(z.string())]) },
        default: () => [],
        jsonSchemaExtra: { langgraph_type: "messages" },
      }),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge("__start__", "a")
      .compile();

    const schemas = await describeGraphSchemas("meta", asGraphLike(graph));

    const update = propertiesOf(schemas.state_schema).messages;
    expect(update?.anyOf).toEqual([{ type: "string" }, { type: "array", items: { type: "string" } }]);
    expect(update?.langgraph_type).toBe("messages");
    expect(update).not.toHaveProperty("description");
    expect(propertiesOf(schemas.output_schema).messages).toMatchObject({ type: "array", langgraph_type: "messages" });
  });

  it("reads a StateSchema's value and input types without nested $schema keys", async () => {
    const State = new StateSchema({
      items: new ReducedValue(
        z.array(z.string()).default(() => []),
        {
          inputSchema: z.string(),
          reducer: (all: string[], item: string) => [...all, item],
        },
      ),
      total: z.number(),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge("__start__", "a")
      .compile();

    const schemas = await describeGraphSchemas("state-schema", asGraphLike(graph));

    expect(propertiesOf(schemas.state_schema)).toEqual({ items: { type: "string" }, total: { type: "number" } });
    expect(propertiesOf(schemas.output_schema).items).toMatchObject({ type: "array", items: { type: "string" } });
    expect(schemas.output_schema?.required).toEqual(["total"]);
  });

  it("lists an Annotation graph's channels untyped, with separate input and output keys", async () => {
    const Input = Annotation.Root({ question: Annotation<string> });
    const Output = Annotation.Root({ answer: Annotation<string> });
    const State = Annotation.Root({ question: Annotation<string>, answer: Annotation<string>, notes: Annotation<string[]> });
    const graph = new StateGraph({ input: Input, output: Output, stateSchema: State })
      .addNode("respond", () => ({ answer: "42" }))
      .addEdge("__start__", "respond")
      .compile();

    const schemas = await describeGraphSchemas("annotated", asGraphLike(graph));

    expect(schemas.state_schema).toEqual({
      title: "annotated",
      type: "object",
      properties: { question: {}, answer: {}, notes: {} },
    });
    expect(Object.keys(propertiesOf(schemas.input_schema))).toEqual(["question"]);
    expect(Object.keys(propertiesOf(schemas.output_schema))).toEqual(["answer"]);
    expect(schemas.context_schema).toBeNull();
    expect(schemas.config_schema).toBeNull();
  });

  it("takes an Annotation graph's schemas from its TypeScript types when they were read, and lists missing channels", async () => {
    const State = Annotation.Root({ tone: Annotation<"formal" | "friendly">, notes: Annotation<string[]> });
    const graph = new StateGraph(State)
      .addNode("respond", () => ({}))
      .addEdge("__start__", "respond")
      .compile();
    const tone = { type: "string", enum: ["formal", "friendly"] };
    const typed = { type: "object", properties: { tone }, $schema: DRAFT_07 };
    const config = { type: "object", properties: { model: { type: "string" } }, $schema: DRAFT_07 };

    const schemas = await describeGraphSchemas("typed", asGraphLike(graph), async () => ({
      "": { state: typed, input: typed, output: typed, config },
    }));

    expect(schemas.state_schema).toEqual({ type: "object", properties: { tone, notes: {} }, $schema: DRAFT_07 });
    expect(propertiesOf(schemas.input_schema).tone).toEqual(tone);
    expect(propertiesOf(schemas.output_schema).tone).toEqual(tone);
    expect(schemas.config_schema).toEqual(config);
    expect(schemas.context_schema).toEqual(config);
  });

  it("does not ask for TypeScript types when the state has a runtime schema", async () => {
    let asked = 0;
    const schemas = await describeGraphSchemas("echo", asGraphLike(zodGraph()), async () => {
      asked += 1;
      return undefined;
    });
    expect(asked).toBe(0);
    expect(propertiesOf(schemas.state_schema).count).toEqual({ type: "number" });
  });

  it("describes separate zod input and output schemas with their own keys", async () => {
    const State = z.object({ question: z.string(), answer: z.string(), notes: z.array(z.string()) });
    const graph = new StateGraph({
      state: State,
      input: State.pick({ question: true }),
      output: State.pick({ answer: true }),
    })
      .addNode("respond", () => ({}))
      .addEdge("__start__", "respond")
      .compile();

    const schemas = await describeGraphSchemas("zod-io", asGraphLike(graph));

    expect(propertiesOf(schemas.input_schema)).toEqual({ question: { type: "string" } });
    expect(propertiesOf(schemas.output_schema)).toEqual({ answer: { type: "string" } });
    expect(Object.keys(propertiesOf(schemas.state_schema))).toEqual(["question", "answer", "notes"]);
  });

  it("keeps an Annotation input's and output's own keys when the state is zod", async () => {
    const State = z.object({ question: z.string(), answer: z.string(), notes: z.array(z.string()) });
    const graph = new StateGraph({
      state: State,
      input: Annotation.Root({ question: Annotation<string> }),
      output: Annotation.Root({ answer: Annotation<string> }),
    })
      .addNode("respond", () => ({}))
      .addEdge("__start__", "respond")
      .compile();

    const schemas = await describeGraphSchemas("mixed", asGraphLike(graph));

    expect(propertiesOf(schemas.input_schema)).toEqual({ question: {} });
    expect(propertiesOf(schemas.output_schema)).toEqual({ answer: {} });
    expect(propertiesOf(schemas.state_schema).notes).toEqual({ type: "array", items: { type: "string" } });
  });

  it("reports a zod context schema as both context_schema and config_schema", async () => {
    const Context = z.object({ model: z.string().default("small"), temperature: z.number() });
    const graph = new StateGraph(ZodState, Context)
      .addNode("a", () => ({}))
      .addEdge("__start__", "a")
      .compile();

    const schemas = await describeGraphSchemas("ctx", asGraphLike(graph));

    expect(propertiesOf(schemas.context_schema)).toEqual({
      model: { type: "string", default: "small" },
      temperature: { type: "number" },
    });
    expect(schemas.config_schema).toEqual(schemas.context_schema);
  });

  it("answers {} for a field JSON Schema cannot express instead of failing the whole schema", async () => {
    const State = z.object({ at: z.date(), label: z.string() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge("__start__", "a")
      .compile();

    const schemas = await describeGraphSchemas("dates", asGraphLike(graph));

    expect(propertiesOf(schemas.state_schema)).toEqual({ at: {}, label: { type: "string" } });
  });

  it("answers null for a schema whose extraction throws and still describes the others", async () => {
    const channels = { topic: {} };
    const graph = asGraphLike({
      getGraphAsync: async () => ({ toJSON: () => ({ nodes: [], edges: [] }) }),
      builder: {
        _schemaDefinition: channels,
        _inputDefinition: channels,
        _outputDefinition: channels,
        _schemaRuntimeDefinition: {
          getJsonSchema: () => ({ type: "object", properties: { topic: { type: "string" } } }),
          getInputJsonSchema: () => {
            throw new Error("boom");
          },
        },
        _inputRuntimeDefinition: Symbol.for("langgraph.state.partial"),
        _outputRuntimeDefinition: undefined,
      },
    });

    const schemas = await describeGraphSchemas("broken", graph);

    expect(schemas.state_schema).toBeNull();
    expect(schemas.input_schema).toBeNull();
    expect(propertiesOf(schemas.output_schema)).toEqual({ topic: {} });
  });

  it("answers null everywhere for a graph that has no builder", async () => {
    const graph = asGraphLike({ getGraphAsync: async () => ({ toJSON: () => ({ nodes: [], edges: [] }) }) });

    expect(await describeGraphSchemas("bare", graph)).toEqual({
      graph_id: "bare",
      state_schema: null,
      input_schema: null,
      output_schema: null,
      config_schema: null,
      context_schema: null,
    });
  });
});

describe("drawGraph", () => {
  it("draws start, end and named nodes with the edges between them", async () => {
    const drawn = await drawGraph(asGraphLike(zodGraph()), false);

    expect(drawn.nodes.map((node) => node.id)).toEqual(["__start__", "agent", "__end__"]);
    expect(drawn.nodes.find((node) => node.id === "agent")).toMatchObject({
      type: "runnable",
      data: { name: "agent" },
    });
    expect(drawn.edges).toEqual([
      { source: "__start__", target: "agent", conditional: false },
      { source: "agent", target: "__end__", conditional: false },
    ]);
    roundTrips(drawn);
  });

  it("marks conditional edges", async () => {
    const drawn = await drawGraph(asGraphLike(parentWithSubgraph()), false);

    expect(drawn.edges).toContainEqual({ source: "pre", target: "child", conditional: true });
    expect(drawn.edges).toContainEqual({ source: "pre", target: "__end__", conditional: true });
  });

  it("shows subgraph nodes, prefixed with the subgraph's node name, only with xray", async () => {
    const graph = asGraphLike(parentWithSubgraph());

    const flat = (await drawGraph(graph, false)).nodes.map((node) => node.id);
    const xray = (await drawGraph(graph, true)).nodes.map((node) => node.id);
    const oneLevel = (await drawGraph(graph, 1)).nodes.map((node) => node.id);

    expect(flat).toContain("child");
    expect(flat).not.toContain("child:inner1");
    expect(xray).toContain("child:inner1");
    expect(xray).toContain("child:nested:deep");
    expect(oneLevel).toContain("child:inner1");
    expect(oneLevel).not.toContain("child:nested:deep");
  });

  it("drops functions and cycles from node metadata so the drawing serialises", async () => {
    const metadata: Record<string, unknown> = { owner: "team-a", format: () => "x" };
    metadata.self = metadata;
    const graph = new StateGraph(ZodState)
      .addNode("agent", () => ({}), { metadata })
      .addEdge("__start__", "agent")
      .compile();

    const drawn = await drawGraph(asGraphLike(graph), false);

    const drawnMetadata = drawn.nodes.find((node) => node.id === "agent")?.metadata;
    expect(drawnMetadata).toMatchObject({ owner: "team-a" });
    expect(drawnMetadata).not.toHaveProperty("format");
    roundTrips(drawn);
  });

  it("refuses a negative or fractional xray depth", async () => {
    const graph = asGraphLike(zodGraph());

    await expect(drawGraph(graph, -1)).rejects.toBeInstanceOf(GantryError);
    await expect(drawGraph(graph, 1.5)).rejects.toMatchObject({ kind: "invalid" });
  });
});

describe("describeSubgraphs", () => {
  it("maps each direct subgraph's namespace to its schemas", async () => {
    const subgraphs = await describeSubgraphs(asGraphLike(parentWithSubgraph()), { recurse: false });

    expect(Object.keys(subgraphs)).toEqual(["child"]);
    expect(propertiesOf(subgraphs.child?.state_schema).count).toEqual({ type: "number" });
    expect(subgraphs.child?.context_schema).toBeNull();
    roundTrips(subgraphs);
  });

  it("includes nested subgraphs under pipe-joined namespaces when recursing", async () => {
    const subgraphs = await describeSubgraphs(asGraphLike(parentWithSubgraph()), { recurse: true });

    expect(Object.keys(subgraphs).sort()).toEqual(["child", "child|nested"]);
    expect(Object.keys(propertiesOf(subgraphs["child|nested"]?.state_schema))).toEqual(["topic"]);
  });

  it("keeps only the namespace asked for", async () => {
    const graph = asGraphLike(parentWithSubgraph());

    expect(Object.keys(await describeSubgraphs(graph, { namespace: "child", recurse: true }))).toEqual(["child"]);
    expect(Object.keys(await describeSubgraphs(graph, { namespace: "child|nested", recurse: false }))).toEqual(["child|nested"]);
    expect(await describeSubgraphs(graph, { namespace: "missing", recurse: true })).toEqual({});
  });

  it("gives each subgraph namespace the types read for it, and the others their channels untyped", async () => {
    const nestedState = { type: "object", properties: { topic: { type: "string" } } };
    const subgraphs = await describeSubgraphs(asGraphLike(parentWithSubgraph()), { recurse: true }, async () => ({
      "child|nested": { state: nestedState, input: nestedState, output: nestedState, config: null },
    }));

    expect(subgraphs["child|nested"]?.state_schema).toEqual(nestedState);
    expect(subgraphs["child|nested"]?.config_schema).toBeNull();
    expect(propertiesOf(subgraphs.child?.state_schema).count).toEqual({ type: "number" });
  });

  it("answers {} for a graph without subgraphs", async () => {
    expect(await describeSubgraphs(asGraphLike(zodGraph()), { recurse: true })).toEqual({});
  });
});
