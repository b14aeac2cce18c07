import { randomUUID } from "node:crypto";
import { describe, it, expect } from "vitest";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  Annotation,
  Command,
  END,
  interrupt,
  MemorySaver,
  MessagesAnnotation,
  Send,
  START,
  StateGraph,
  type LangGraphRunnableConfig,
} from "@langchain/langgraph";
import { z } from "zod";
import type { CompiledGraphLike } from "./graph-like.js";
import { toLangGraphCommand } from "./run-command.js";
import type { RunEvent } from "../events/run-event-log.js";
import { finalValues, streamGraphRun, type GraphRunOptions } from "./run-stream.js";

const LogState = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

type Overrides = Partial<Omit<GraphRunOptions, "config">> & { threadId?: string; config?: Partial<GraphRunOptions["config"]> };

async function collect(graph: unknown, overrides: Overrides = {}): Promise<RunEvent[]> {
  const { threadId = randomUUID(), config, ...rest } = overrides;
  const events: RunEvent[] = [];
  const options: GraphRunOptions = {
    input: null,
    streamMode: ["values"],
    subgraphs: false,
    signal: new AbortController().signal,
    runId: randomUUID(),
    ...rest,
    config: { ...config, configurable: { thread_id: threadId, ...config?.configurable } },
  };
  for await (const event of streamGraphRun(graph as CompiledGraphLike, options)) {
    // Everything streamed must survive JSON unchanged: it goes straight onto the wire.
    expect(JSON.parse(JSON.stringify(event.data))).toEqual(event.data);
    events.push(event);
  }
  return events;
}

function names(events: RunEvent[]): string[] {
  return events.map((e) => e.event);
}

function dataOf(events: RunEvent[], name: string): unknown[] {
  return events.filter((e) => e.event === name).map((e) => e.data);
}

function twoStepGraph() {
  return new StateGraph(LogState)
    .addNode("first", () => ({ log: ["first"] }))
    .addNode("second", () => ({ log: ["second"] }))
    .addEdge(START, "first")
    .addEdge("first", "second")
    .addEdge("second", END)
    .compile({ checkpointer: new MemorySaver() });
}

function graphWithSubgraph() {
  const child = new StateGraph(LogState)
    .addNode("inner", () => ({ log: ["inner"] }))
    .addEdge(START, "inner")
    .compile();
  return new StateGraph(LogState)
    .addNode("outer", () => ({ log: ["outer"] }))
    .addNode("child", child)
    .addEdge(START, "outer")
    .addEdge("outer", "child")
    .addEdge("child", END)
    .compile({ checkpointer: new MemorySaver() });
}

function interruptingGraph() {
  return new StateGraph(LogState)
    .addNode("ask", () => ({ log: ["asked"] }))
    .addNode("review", () => ({ log: [`answer:${interrupt({ question: "ok?" }) as string}`] }))
    .addEdge(START, "ask")
    .addEdge("ask", "review")
    .addEdge("review", END)
    .compile({ checkpointer: new MemorySaver() });
}

function chatGraph(reply: string) {
  const model = new FakeListChatModel({ responses: [reply] });
  return new StateGraph(MessagesAnnotation)
    .addNode("llm", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, "llm")
    .compile({ checkpointer: new MemorySaver() });
}

const userSays = (content: string) => ({ messages: [{ role: "user", content, id: "human-1" }] });

describe("streamGraphRun stream modes", () => {
  it("emits the full state after each step as values, the last being the run's output", async () => {
    const events = await collect(twoStepGraph(), { input: { log: ["in"] } });
    expect(names(events)).toEqual(["values", "values", "values"]);
    expect(dataOf(events, "values")).toEqual([{ log: ["in"] }, { log: ["in", "first"] }, { log: ["in", "first", "second"] }]);
    expect(finalValues(events)).toEqual({ log: ["in", "first", "second"] });
  });

  it("emits each node's update under its name, and nothing for modes not asked for", async () => {
    const events = await collect(twoStepGraph(), { input: { log: [] }, streamMode: ["updates"] });
    expect(events).toEqual([
      { event: "updates", data: { first: { log: ["first"] } } },
      { event: "updates", data: { second: { log: ["second"] } } },
    ]);
    expect(finalValues(events)).toBeUndefined();
  });

  it("emits what nodes write to the stream writer as custom events", async () => {
    const graph = new StateGraph(LogState)
      .addNode("work", (_state: typeof LogState.State, config: LangGraphRunnableConfig) => {
        config.writer?.({ progress: 0.5 });
        config.writer?.("done");
        return {};
      })
      .addEdge(START, "work")
      .compile({ checkpointer: new MemorySaver() });
    const events = await collect(graph, { input: { log: [] }, streamMode: ["custom"] });
    expect(events).toEqual([
      { event: "custom", data: { progress: 0.5 } },
      { event: "custom", data: "done" },
    ]);
  });

  it("emits task starts and results in tasks mode", async () => {
    const events = await collect(twoStepGraph(), { input: { log: [] }, streamMode: ["tasks"] });
    expect(names(events)).toEqual(["tasks", "tasks", "tasks", "tasks"]);
    const [start, result] = events.map((e) => e.data as Record<string, unknown>);
    expect(start).toMatchObject({ name: "first", input: { log: [] }, triggers: ["branch:to:first"], interrupts: [] });
    expect(typeof start!.id).toBe("string");
    expect(result).toMatchObject({ id: start!.id, name: "first", result: { log: ["first"] }, interrupts: [], error: null });
  });

  it("emits checkpoints with public configs and checkpoint ids, the first without a parent", async () => {
    const threadId = randomUUID();
    const events = await collect(twoStepGraph(), { threadId, input: { log: [] }, streamMode: ["checkpoints"] });
    expect(names(events)).toEqual(["checkpoints", "checkpoints", "checkpoints", "checkpoints"]);
    // biome-ignore lint/suspicious/noExplicitAny: LangGraph's payloads, read loosely in assertions
    const checkpoints = events.map((e) => e.data as Record<string, any>);
    const [input, , , last] = checkpoints;
    expect(input).toMatchObject({ values: {}, next: ["__start__"], parent_config: null, parent_checkpoint: null });
    expect(last).toMatchObject({ values: { log: ["first", "second"] }, next: [], tasks: [] });
    expect(last!.metadata).toMatchObject({ source: "loop", step: 2 });
    expect(last!.checkpoint).toEqual({
      thread_id: threadId,
      checkpoint_ns: "",
      checkpoint_id: last!.config.configurable.checkpoint_id,
      checkpoint_map: null,
    });
    expect(last!.parent_checkpoint.checkpoint_id).toBe(checkpoints[2]!.checkpoint.checkpoint_id);
    expect(last!).not.toHaveProperty("parentConfig");
    for (const { config } of checkpoints) {
      expect(config).not.toHaveProperty("callbacks");
      expect(Object.keys(config.configurable).filter((key) => key.startsWith("__"))).toEqual([]);
    }
    expect(checkpoints[1]!.tasks).toEqual([expect.objectContaining({ name: "first", interrupts: [] })]);
  });

  it("emits debug events for checkpoints, tasks and task results", async () => {
    const events = await collect(twoStepGraph(), { input: { log: [] }, streamMode: ["debug"] });
    // biome-ignore lint/suspicious/noExplicitAny: LangGraph's payloads, read loosely in assertions
    const debug = events.map((e) => e.data as Record<string, any>);
    expect(new Set(debug.map((d) => d.type))).toEqual(new Set(["checkpoint", "task", "task_result"]));
    for (const entry of debug) {
      expect(typeof entry.timestamp).toBe("string");
      expect(typeof entry.step).toBe("number");
    }
    const checkpoint = debug.find((d) => d.type === "checkpoint" && d.step === 2)!;
    expect(checkpoint.payload).toMatchObject({ values: { log: ["first", "second"] }, next: [] });
    expect(checkpoint.payload.checkpoint.checkpoint_id).toBe(checkpoint.payload.config.configurable.checkpoint_id);
    const result = debug.find((d) => d.type === "task_result")!;
    expect(result.payload).toMatchObject({ name: "first", result: { log: ["first"] } });
  });

  it("emits message chunks as [message, metadata] tuples in messages-tuple mode", async () => {
    const events = await collect(chatGraph("hey"), { input: userSays("hi"), streamMode: ["messages-tuple"] });
    expect(new Set(names(events))).toEqual(new Set(["messages"]));
    const tuples = events.map((e) => e.data as [Record<string, unknown>, Record<string, unknown>]);
    expect(tuples.map(([message]) => message.content).join("")).toBe("hey");
    const [message, metadata] = tuples[0]!;
    expect(message).toMatchObject({ type: "ai" });
    expect(typeof message.id).toBe("string");
    expect(metadata).toMatchObject({ langgraph_node: "llm", tags: [] });
  });

  it("emits legacy messages mode as metadata once, accumulated partials and completed messages", async () => {
    const events = await collect(chatGraph("hey"), { input: userSays("hi"), streamMode: ["messages"] });
    expect(new Set(names(events))).toEqual(new Set(["messages/metadata", "messages/partial", "messages/complete"]));
    expect(names(events).filter((n) => n === "messages/metadata")).toHaveLength(1);
    const partials = dataOf(events, "messages/partial") as Array<Array<{ content: string; type: string }>>;
    expect(partials.map(([message]) => message!.content)).toEqual(["h", "he", "hey"]);
    const [metadata] = dataOf(events, "messages/metadata") as Array<Record<string, { metadata: Record<string, unknown> }>>;
    expect(Object.values(metadata!)[0]!.metadata).toMatchObject({ langgraph_node: "llm" });
    const completed = (dataOf(events, "messages/complete") as Array<Array<Record<string, unknown>>>).flat();
    expect(completed.map((m) => [m.type, m.content])).toEqual([
      ["human", "hi"],
      ["ai", "hey"],
    ]);
  });

  it("emits astream_events v2 objects in events mode alongside the other modes asked for", async () => {
    const runId = randomUUID();
    const events = await collect(chatGraph("yo"), { input: userSays("hi"), streamMode: ["events", "values"], runId });
    const streamed = dataOf(events, "events") as Array<Record<string, unknown>>;
    expect(streamed.length).toBeGreaterThan(0);
    // The root run's own stream chunks become the mode events, not `events`.
    expect(streamed.filter((e) => e.event === "on_chain_stream" && e.run_id === runId)).toEqual([]);
    for (const event of streamed) {
      expect(event).toEqual(expect.objectContaining({ event: expect.any(String), name: expect.any(String), run_id: expect.any(String) }));
    }
    const kinds = new Set(streamed.map((e) => e.event));
    expect(kinds).toContain("on_chain_start");
    expect(kinds).toContain("on_chat_model_stream");
    const token = streamed.find((e) => e.event === "on_chat_model_stream") as { data: { chunk: Record<string, unknown> } };
    expect(token.data.chunk).toMatchObject({ type: "ai" });
    const values = dataOf(events, "values") as Array<{ messages: Array<{ content: string }> }>;
    expect(values.at(-1)!.messages.map((m) => m.content)).toEqual(["hi", "yo"]);
  });

  it("emits tool lifecycle events in tools mode", async () => {
    const add = tool(({ a, b }: { a: number; b: number }) => String(a + b), {
      name: "add",
      description: "Adds two numbers",
      schema: z.object({ a: z.number(), b: z.number() }),
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("tools", async () => ({
        messages: [await add.invoke({ name: "add", args: { a: 1, b: 2 }, id: "call-1", type: "tool_call" })],
      }))
      .addEdge(START, "tools")
      .compile({ checkpointer: new MemorySaver() });
    const events = await collect(graph, { input: { messages: [] }, streamMode: ["tools"] });
    // biome-ignore lint/suspicious/noExplicitAny: LangGraph's payloads, read loosely in assertions
    const tools = dataOf(events, "tools") as Array<Record<string, any>>;
    expect(tools.map((t) => t.event)).toEqual(["on_tool_start", "on_tool_end"]);
    expect(tools[0]).toMatchObject({ name: "add", toolCallId: "call-1" });
    expect(tools[1]!.output).toMatchObject({ type: "tool", content: "3", tool_call_id: "call-1" });
  });
});

describe("streamGraphRun subgraphs", () => {
  it("names subgraph events <mode>|<namespace> when subgraphs are streamed", async () => {
    const events = await collect(graphWithSubgraph(), { input: { log: [] }, streamMode: ["updates", "values"], subgraphs: true });
    const nested = names(events).filter((n) => n.includes("|"));
    expect(nested.length).toBeGreaterThan(0);
    for (const name of nested) expect(name).toMatch(/^(updates|values)\|child:[0-9a-f-]+$/);
    expect(events).toContainEqual({ event: expect.stringMatching(/^updates\|child:/), data: { inner: { log: ["inner"] } } });
    expect(finalValues(events)).toEqual({ log: ["outer", "outer", "inner"] });
  });

  it("names message tuples from a subgraph's chat model by the subgraph's namespace", async () => {
    const model = new FakeListChatModel({ responses: ["ok"] });
    const child = new StateGraph(MessagesAnnotation)
      .addNode("llm", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addEdge(START, "llm")
      .compile();
    const graph = new StateGraph(MessagesAnnotation).addNode("child", child).addEdge(START, "child").compile({ checkpointer: new MemorySaver() });
    const nested = await collect(graph, { input: userSays("hi"), streamMode: ["messages-tuple"], subgraphs: true });
    expect(nested.length).toBeGreaterThan(0);
    for (const name of names(nested)) expect(name).toMatch(/^messages\|child:[0-9a-f-]+$/);
    const flat = await collect(graph, { input: userSays("hi"), streamMode: ["messages-tuple"] });
    expect(new Set(names(flat))).toEqual(new Set(["messages"]));
  });

  it("keeps subgraph events out when subgraphs are not streamed", async () => {
    const events = await collect(graphWithSubgraph(), { input: { log: [] }, streamMode: ["updates", "values"] });
    expect(names(events).every((n) => n === "updates" || n === "values")).toBe(true);
    expect(dataOf(events, "updates")).toEqual([{ outer: { log: ["outer"] } }, { child: { log: ["outer", "inner"] } }]);
  });

  it("namespaces subgraph events on the streamEvents path too", async () => {
    const events = await collect(graphWithSubgraph(), { input: { log: [] }, streamMode: ["updates", "events"], subgraphs: true });
    expect(names(events)).toContain("events");
    expect(names(events).some((n) => /^updates\|child:/.test(n))).toBe(true);
    expect(names(events).some((n) => n.startsWith("checkpoints"))).toBe(false);
  });
});

describe("streamGraphRun interrupts and commands", () => {
  it("carries __interrupt__ in values and updates, then finishes when resumed on the same thread", async () => {
    const graph = interruptingGraph();
    const threadId = randomUUID();
    const first = await collect(graph, { threadId, input: { log: [] }, streamMode: ["values", "updates"] });
    const interrupts = [{ value: { question: "ok?" }, id: expect.any(String) }];
    expect(first.at(-1)).toEqual({ event: "values", data: { log: ["asked"], __interrupt__: interrupts } });
    expect(dataOf(first, "updates")).toContainEqual({ __interrupt__: interrupts });
    expect(finalValues(first)).toHaveProperty("__interrupt__");

    const resumed = await collect(graph, { threadId, command: { resume: "yes" }, streamMode: ["values"] });
    expect(finalValues(resumed)).toEqual({ log: ["asked", "answer:yes"] });
  });

  it("keeps __interrupt__ on the state applied after an interrupt by tasks that ran beside it", async () => {
    const graph = new StateGraph(LogState)
      .addNode("fork", () => ({ log: ["fork"] }))
      .addNode("ask", () => ({ log: [interrupt("ask?") as string] }))
      .addNode("work", async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { log: ["work"] };
      })
      .addEdge(START, "fork")
      .addEdge("fork", "ask")
      .addEdge("fork", "work")
      .compile({ checkpointer: new MemorySaver() });
    const events = await collect(graph, { input: { log: [] } });
    expect(finalValues(events)).toEqual({ log: ["fork", "work"], __interrupt__: [{ value: "ask?", id: expect.any(String) }] });
  });

  it("carries a subgraph's interrupt in the root values and in the subgraph's own values", async () => {
    const child = new StateGraph(LogState)
      .addNode("inner", () => ({ log: [interrupt("deep?") as string] }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(LogState)
      .addNode("outer", () => ({ log: ["outer"] }))
      .addNode("child", child)
      .addEdge(START, "outer")
      .addEdge("outer", "child")
      .compile({ checkpointer: new MemorySaver() });
    const events = await collect(graph, { input: { log: [] }, subgraphs: true });
    const interrupts = [{ value: "deep?", id: expect.any(String) }];
    expect(finalValues(events)).toEqual({ log: ["outer"], __interrupt__: interrupts });
    const nested = events.filter((e) => e.event.startsWith("values|child:"));
    expect(nested.at(-1)!.data).toEqual({ log: ["outer"], __interrupt__: interrupts });
  });

  it("resumes with a Command built by toLangGraphCommand given as the input", async () => {
    const graph = interruptingGraph();
    const threadId = randomUUID();
    await collect(graph, { threadId, input: { log: [] } });
    const resumed = await collect(graph, { threadId, input: toLangGraphCommand({ resume: "x" }) });
    expect(finalValues(resumed)).toEqual({ log: ["asked", "answer:x"] });
  });

  it("routes with goto and a Send, applying an update given as an object or as pairs", async () => {
    const WorkState = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
      note: Annotation<string>(),
    });
    const graph = new StateGraph(WorkState)
      .addNode("start", () => ({ log: ["start"] }))
      .addNode("worker", (input: { job?: string }) => ({ log: [`worker:${input.job ?? "state"}`] }))
      .addEdge(START, "start")
      // Only commands route to the worker; the conditional edge just declares it reachable.
      .addConditionalEdges("start", () => END, ["worker", END])
      .addEdge("worker", END)
      .compile({ checkpointer: new MemorySaver() });
    const threadId = randomUUID();
    await collect(graph, { threadId, input: { log: [] } });

    const sent = await collect(graph, {
      threadId,
      command: { update: { note: "object" }, goto: { node: "worker", input: { job: "sent" } } },
    });
    expect(finalValues(sent)).toEqual({ log: ["start", "worker:sent"], note: "object" });

    const named = await collect(graph, { threadId, command: { update: [["note", "pairs"]], goto: "worker" } });
    expect(finalValues(named)).toEqual({ log: ["start", "worker:sent", "worker:state"], note: "pairs" });
  });

  it("streams a node's Command with its Sends as plain data", async () => {
    const graph = new StateGraph(LogState)
      .addNode("route", () => new Command({ update: { log: ["routed"] }, goto: new Send("worker", { log: [] }) }), {
        ends: ["worker"],
      })
      .addNode("worker", () => ({ log: ["worked"] }))
      .addEdge(START, "route")
      .compile({ checkpointer: new MemorySaver() });
    const events = await collect(graph, { input: { log: [] }, streamMode: ["updates", "events"] });
    expect(dataOf(events, "updates")).toEqual([{ route: { log: ["routed"] } }, { worker: { log: ["worked"] } }]);
    // biome-ignore lint/suspicious/noExplicitAny: LangGraph's payloads, read loosely in assertions
    const ended = (dataOf(events, "events") as Array<Record<string, any>>).find((e) => e.event === "on_chain_end" && e.name === "route");
    expect(ended!.data.output).toEqual({ update: { log: ["routed"] }, goto: [{ node: "worker", input: { log: [] } }] });
  });

  it("stops before a node named in interruptBefore, with an empty __interrupt__ list after the state", async () => {
    const threadId = randomUUID();
    const graph = twoStepGraph();
    const events = await collect(graph, { threadId, input: { log: [] }, interruptBefore: ["second"] });
    expect(dataOf(events, "values").slice(-2)).toEqual([{ log: ["first"] }, { __interrupt__: [] }]);
    const state = await graph.getState({ configurable: { thread_id: threadId } });
    expect(state.next).toEqual(["second"]);
  });

  it("passes tags, metadata and context through to the nodes", async () => {
    const seen: unknown[] = [];
    const graph = new StateGraph(LogState)
      .addNode("look", (_state: typeof LogState.State, config: LangGraphRunnableConfig) => {
        seen.push(config.tags, config.metadata?.origin, config.context, config.configurable?.user_key);
        return {};
      })
      .addEdge(START, "look")
      .compile({ checkpointer: new MemorySaver() });
    await collect(graph, {
      input: { log: [] },
      config: { tags: ["t1"], metadata: { origin: "test" }, recursion_limit: 5, configurable: { user_key: "u" } },
      context: { tenant: "acme" },
    });
    expect(seen[0]).toContain("t1");
    expect(seen.slice(1)).toEqual(["test", { tenant: "acme" }, "u"]);
  });

  it("fails with the recursion limit it was given", async () => {
    const loop = new StateGraph(LogState)
      .addNode("spin", () => ({ log: ["spin"] }))
      .addEdge(START, "spin")
      .addEdge("spin", "spin")
      .compile({ checkpointer: new MemorySaver() });
    await expect(collect(loop, { input: { log: [] }, config: { recursion_limit: 3 } })).rejects.toMatchObject({
      name: "GraphRecursionError",
    });
  });

  // The stream is read through LangChain's base `stream`, which knows nothing of the graph's own config.
  it("fails with the graph's own recursion limit when the run gives none", async () => {
    const steps: string[] = [];
    const loop = new StateGraph(LogState)
      .addNode("spin", () => {
        steps.push("spin");
        return { log: ["spin"] };
      })
      .addEdge(START, "spin")
      .addEdge("spin", "spin")
      .compile({ checkpointer: new MemorySaver() })
      .withConfig({ recursionLimit: 4 });
    await expect(collect(loop, { input: { log: [] } })).rejects.toMatchObject({ name: "GraphRecursionError" });
    expect(steps).toHaveLength(4);
  });
});

describe("streamGraphRun cancellation", () => {
  function slowGraph(started: () => void) {
    return new StateGraph(LogState)
      .addNode("slow", async () => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
        return { log: ["slow"] };
      })
      .addEdge(START, "slow")
      .compile({ checkpointer: new MemorySaver() });
  }

  for (const streamMode of [["values"], ["events"]] as const) {
    it(`stops a running graph with an abort error when the signal fires (${streamMode[0]})`, async () => {
      const controller = new AbortController();
      const run = collect(
        slowGraph(() => controller.abort()),
        { input: { log: [] }, streamMode: [...streamMode], signal: controller.signal },
      );
      const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error("run did not stop")), 5_000).unref());
      await expect(Promise.race([run, deadline])).rejects.toMatchObject({ name: "AbortError" });
    });
  }
});

describe("streamGraphRun lifecycle mode", () => {
  /** parent: before -> child (a subgraph: inner -> grandchild (a subgraph: deep)) -> after. */
  function nestedGraph(deep: () => Record<string, unknown>) {
    const grandchild = new StateGraph(LogState).addNode("deep", deep).addEdge(START, "deep").addEdge("deep", END).compile();
    const child = new StateGraph(LogState)
      .addNode("inner", () => ({ log: ["inner"] }))
      .addNode("grandchild", grandchild)
      .addEdge(START, "inner")
      .addEdge("inner", "grandchild")
      .addEdge("grandchild", END)
      .compile();
    return new StateGraph(LogState)
      .addNode("before", () => ({ log: ["before"] }))
      .addNode("child", child)
      .addEdge(START, "before")
      .addEdge("before", "child")
      .addEdge("child", END)
      .compile({ checkpointer: new MemorySaver() });
  }

  const lifecycle = (events: RunEvent[]) =>
    events.filter((e) => e.event.startsWith("lifecycle|")).map((e) => e.data as { event: string; namespace: string[]; error?: unknown });

  it("says when each subgraph starts and completes, innermost completing first, named after its namespace", async () => {
    const events = await collect(
      nestedGraph(() => ({ log: ["deep"] })),
      {
        input: { log: [] },
        streamMode: ["values", "lifecycle"],
        subgraphs: true,
      },
    );
    const seen = lifecycle(events);
    expect(seen.map((d) => [d.event, d.namespace.map((s) => s.split(":")[0])])).toEqual([
      ["started", ["child"]],
      ["started", ["child", "grandchild"]],
      ["completed", ["child", "grandchild"]],
      ["completed", ["child"]],
    ]);
    for (const event of events.filter((e) => e.event.startsWith("lifecycle|"))) {
      expect(event.event).toBe(`lifecycle|${(event.data as { namespace: string[] }).namespace.join("|")}`);
    }
    // The subgraph's start comes before its own events; the root graph has no lifecycle events.
    const firstChildEvent = names(events).findIndex((n) => n.startsWith("values|child:"));
    expect(names(events).findIndex((n) => n.startsWith("lifecycle|child:"))).toBeLessThan(firstChildEvent);
    expect(names(events)).not.toContain("lifecycle|");
    expect(names(events).some((n) => n.startsWith("tasks"))).toBe(false);
  });

  it("reports subgraphs without streaming their other events when subgraphs were not asked for", async () => {
    const events = await collect(
      nestedGraph(() => ({ log: ["deep"] })),
      { input: { log: [] }, streamMode: ["values", "lifecycle"] },
    );
    expect(lifecycle(events)).toHaveLength(4);
    expect(
      names(events)
        .filter((n) => !n.startsWith("lifecycle|"))
        .every((n) => n === "values"),
    ).toBe(true);
    const plain = await collect(
      nestedGraph(() => ({ log: ["deep"] })),
      { input: { log: [] }, streamMode: ["values"] },
    );
    expect(names(events).filter((n) => !n.startsWith("lifecycle|"))).toEqual(names(plain));
    expect(finalValues(events)).toEqual(finalValues(plain));
  });

  it("marks the subgraphs an interrupt stopped as interrupted", async () => {
    const events = await collect(
      nestedGraph(() => ({ log: [String(interrupt("deep question"))] })),
      { input: { log: [] }, streamMode: ["lifecycle"], subgraphs: true },
    );
    expect(lifecycle(events).map((d) => d.event)).toEqual(["started", "started", "interrupted", "interrupted"]);
  });

  it("marks a subgraph stopped at a breakpoint compiled into it as interrupted", async () => {
    const gated = new StateGraph(LogState)
      .addNode("draft", () => ({ log: ["draft"] }))
      .addNode("publish", () => ({ log: ["publish"] }))
      .addEdge(START, "draft")
      .addEdge("draft", "publish")
      .addEdge("publish", END)
      .compile({ interruptBefore: ["publish"] });
    const graph = new StateGraph(LogState).addNode("gated", gated).addEdge(START, "gated").addEdge("gated", END).compile({ checkpointer: new MemorySaver() });
    const threadId = randomUUID();
    const first = await collect(graph, { threadId, input: { log: [] }, streamMode: ["lifecycle"] });
    expect(lifecycle(first).map((d) => d.event)).toEqual(["started", "interrupted"]);
    const resumed = await collect(graph, { threadId, input: null, streamMode: ["lifecycle"] });
    expect(lifecycle(resumed).map((d) => d.event)).toEqual(["started", "completed"]);
    expect(lifecycle(resumed)[0]!.namespace).toEqual(lifecycle(first)[0]!.namespace);
  });

  it("marks the subgraphs an error went through as failed, with the error", async () => {
    const events: RunEvent[] = [];
    const graph = nestedGraph(() => {
      throw new RangeError("deep trouble");
    });
    const run = async () => {
      for await (const event of streamGraphRun(graph as unknown as CompiledGraphLike, {
        input: { log: [] },
        streamMode: ["lifecycle"],
        subgraphs: false,
        signal: new AbortController().signal,
        runId: randomUUID(),
        config: { configurable: { thread_id: randomUUID() } },
      }))
        events.push(event);
    };
    await expect(run()).rejects.toMatchObject({ message: "deep trouble" });
    expect(lifecycle(events)).toMatchObject([
      { event: "started" },
      { event: "started" },
      { event: "failed", error: { error: "RangeError", message: "deep trouble" } },
      { event: "failed", error: { error: "RangeError", message: "deep trouble" } },
    ]);
  });

  it("names the tool call that started a subgraph, for a task sent one tool call", async () => {
    const research = new StateGraph(LogState)
      .addNode("look", () => ({ log: ["looked"] }))
      .addEdge(START, "look")
      .addEdge("look", END)
      .compile();
    const graph = new StateGraph(LogState)
      .addNode("agent", () => ({ log: ["agent"] }))
      // A tool node running one call (ToolNode's `tool_call_with_context` input) that runs a subagent.
      .addNode("tools", async () => ({ log: (await research.invoke({ log: [] })).log }))
      .addConditionalEdges("agent", () => [
        new Send("tools", { __type: "tool_call_with_context", tool_call: { id: "call_42", name: "research", args: {} }, state: {} }),
      ])
      .addEdge(START, "agent")
      .addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
    const events = await collect(graph, { input: { log: [] }, streamMode: ["lifecycle"] });
    expect(lifecycle(events).map((d) => [d.event, (d as { tool_call_id?: string }).tool_call_id])).toEqual([
      ["started", "call_42"],
      ["completed", undefined],
    ]);
  });

  it("derives the same events on the streamEvents path, beside the events mode", async () => {
    const events = await collect(
      nestedGraph(() => ({ log: ["deep"] })),
      { input: { log: [] }, streamMode: ["events", "lifecycle"] },
    );
    expect(lifecycle(events).map((d) => d.event)).toEqual(["started", "started", "completed", "completed"]);
    expect(names(events).some((n) => n === "events")).toBe(true);
  });

  it("still streams tasks when they were asked for beside lifecycle", async () => {
    const events = await collect(
      nestedGraph(() => ({ log: ["deep"] })),
      { input: { log: [] }, streamMode: ["tasks", "lifecycle"] },
    );
    expect(names(events).filter((n) => n === "tasks").length).toBeGreaterThan(0);
    expect(names(events).some((n) => n.startsWith("tasks|"))).toBe(false);
  });
});
