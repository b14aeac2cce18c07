import { randomUUID } from "node:crypto";
import { describe, it, expect } from "vitest";
import { AIMessage } from "@langchain/core/messages";
import { Annotation, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { checkpointOf, toThreadState, type ThreadState } from "./thread-state.js";

const LogState = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

function interruptingChild() {
  return new StateGraph(LogState)
    .addNode("inner", () => ({ log: [`inner:${interrupt({ question: "deep?" }) as string}`] }))
    .addEdge(START, "inner")
    .compile();
}

function parentGraph() {
  return new StateGraph(LogState)
    .addNode("outer", () => ({ log: ["outer"] }))
    .addNode("child", interruptingChild())
    .addEdge(START, "outer")
    .addEdge("outer", "child")
    .addEdge("child", END)
    .compile({ checkpointer: new MemorySaver() });
}

function roundTrips(state: ThreadState): void {
  expect(JSON.parse(JSON.stringify(state))).toEqual(state);
}

describe("toThreadState", () => {
  it("describes an interrupted thread: next, task interrupts, aggregated interrupts and checkpoints", async () => {
    const graph = new StateGraph(LogState)
      .addNode("ask", () => ({ log: ["asked"] }))
      .addNode("review", () => ({ log: [interrupt({ question: "ok?" }) as string] }))
      .addEdge(START, "ask")
      .addEdge("ask", "review")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: randomUUID() } };
    await graph.invoke({ log: [] }, config);
    const snapshot = await graph.getState(config);

    const state = toThreadState(snapshot);
    roundTrips(state);
    const interrupts = [{ value: { question: "ok?" }, id: expect.any(String) }];
    expect(state).toMatchObject({ values: { log: ["asked"] }, next: ["review"], interrupts });
    expect(state.tasks).toEqual([
      { id: expect.any(String), name: "review", path: ["__pregel_pull", "review"], error: null, interrupts, checkpoint: null, state: null, result: null },
    ]);
    expect(state.checkpoint).toEqual({
      thread_id: config.configurable.thread_id,
      checkpoint_ns: "",
      checkpoint_id: snapshot.config.configurable?.checkpoint_id,
      checkpoint_map: null,
    });
    expect(state.parent_checkpoint?.checkpoint_id).toBe(snapshot.parentConfig?.configurable?.checkpoint_id);
    expect(state.metadata).toMatchObject({ source: "loop", step: 1 });
    expect(state.created_at).toBe(snapshot.createdAt);
  });

  it("has no parent checkpoint at the root of the history", async () => {
    const graph = new StateGraph(LogState)
      .addNode("a", () => ({ log: ["a"] }))
      .addEdge(START, "a")
      .compile({
        checkpointer: new MemorySaver(),
      });
    const config = { configurable: { thread_id: randomUUID() } };
    await graph.invoke({ log: [] }, config);
    const history: ThreadState[] = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(toThreadState(snapshot));
    expect(history.map((s) => s.metadata.source)).toEqual(["loop", "loop", "input"]);
    expect(history.at(-1)!.parent_checkpoint).toBeNull();
    expect(history[0]!.parent_checkpoint).toEqual(history[1]!.checkpoint);
    expect(history[0]).toMatchObject({ values: { log: ["a"] }, next: [], tasks: [], interrupts: [] });
  });

  it("points an interrupted subgraph task at the subgraph's checkpoint namespace", async () => {
    const graph = parentGraph();
    const config = { configurable: { thread_id: randomUUID() } };
    await graph.invoke({ log: [] }, config);

    const state = toThreadState(await graph.getState(config));
    expect(state.next).toEqual(["child"]);
    const [task] = state.tasks;
    expect(task).toMatchObject({ name: "child", state: null, interrupts: [{ value: { question: "deep?" } }] });
    // Only the keys the subgraph's config has, as the reference's "human in the loop" tests read them.
    expect(task!.checkpoint).toEqual({ thread_id: config.configurable.thread_id, checkpoint_ns: `child:${task!.id}` });
    expect(state.interrupts).toEqual(task!.interrupts);
  });

  it("nests the subgraph's own state when read with subgraphs", async () => {
    const graph = parentGraph();
    const config = { configurable: { thread_id: randomUUID() } };
    await graph.invoke({ log: [] }, config);

    const state = toThreadState(await graph.getState(config, { subgraphs: true }));
    roundTrips(state);
    const [task] = state.tasks;
    expect(task!.state).toMatchObject({ values: { log: ["outer"] }, next: ["inner"] });
    expect(task!.state!.tasks).toEqual([expect.objectContaining({ name: "inner", interrupts: [expect.objectContaining({ value: { question: "deep?" } })] })]);
    // The subgraph's checkpoint is its state's; the task's own is null then, as on both official servers.
    expect(task!.state!.checkpoint).toMatchObject({ checkpoint_ns: expect.stringMatching(/^child:/), checkpoint_id: expect.any(String) });
    expect(task!.checkpoint).toBeNull();
  });

  it("reports a failed task's error as its message and serialises message values", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("reply", () => ({ messages: [new AIMessage({ content: "hello", id: "ai-1" })] }))
      .addNode("explode", () => {
        throw new RangeError("out of range");
      })
      .addEdge(START, "reply")
      .addEdge("reply", "explode")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: randomUUID() } };
    await expect(graph.invoke({ messages: [] }, config)).rejects.toThrow("out of range");

    const state = toThreadState(await graph.getState(config));
    roundTrips(state);
    expect(state.values).toEqual({ messages: [expect.objectContaining({ type: "ai", content: "hello", id: "ai-1" })] });
    expect(state.tasks).toEqual([expect.objectContaining({ name: "explode", error: "out of range" })]);
  });
});

describe("checkpointOf", () => {
  it("reads the checkpoint a config points at, defaulting the namespace and map", () => {
    expect(checkpointOf({ configurable: { thread_id: "t", checkpoint_id: "c", extra: 1 } })).toEqual({
      thread_id: "t",
      checkpoint_ns: "",
      checkpoint_id: "c",
      checkpoint_map: null,
    });
    expect(checkpointOf({ configurable: { thread_id: "t", checkpoint_ns: "a:1", checkpoint_map: { "": "p" } } })).toEqual({
      thread_id: "t",
      checkpoint_ns: "a:1",
      checkpoint_id: null,
      checkpoint_map: { "": "p" },
    });
  });

  it("is null without a thread", () => {
    expect(checkpointOf(undefined)).toBeNull();
    expect(checkpointOf({ configurable: { checkpoint_id: "c" } })).toBeNull();
  });
});
