// CheckpointStore cases, driven by real LangGraph graphs checkpointing through the storage's saver:
// the latest checkpoint id, the run recorded in checkpoint metadata (and history filters on it),
// copying a thread (checkpoints and pending writes), rolling a run back (to the state before it,
// or to nothing), and deleting a thread's checkpoints.
import { Annotation, Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import { expect } from "vitest";
import type { Storage } from "../../../src/storage/ports.js";
import { newId } from "./builders.js";
import type { CaseContext } from "./harness.js";

const Steps = Annotation.Root({
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

/** Two nodes, so one invoke writes an input checkpoint and one per step. */
function countingGraph(storage: Storage) {
  return new StateGraph(Steps)
    .addNode("first", (state) => ({ steps: [`first after ${state.steps.length}`] }))
    .addNode("second", () => ({ steps: ["second"] }))
    .addEdge(START, "first")
    .addEdge("first", "second")
    .addEdge("second", END)
    .compile({ checkpointer: storage.checkpoints.saver });
}

/** Stops on an interrupt, leaving the interrupt as a pending write on its checkpoint. */
function askingGraph(storage: Storage) {
  return new StateGraph(Steps)
    .addNode("ask", () => ({ steps: [`answer: ${interrupt("name?") as string}`] }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer: storage.checkpoints.saver });
}

const on = (threadId: string) => ({ configurable: { thread_id: threadId } });
const asRun = (threadId: string, runId: string) => ({ configurable: { thread_id: threadId, run_id: runId } });

export function checkpointCases({ storage, test }: CaseContext): void {
  const store = () => storage().checkpoints;

  async function history(graph: ReturnType<typeof countingGraph>, threadId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const snapshot of graph.getStateHistory(on(threadId))) ids.push(snapshot.config.configurable?.checkpoint_id as string);
    return ids;
  }

  /**
   * A thread run twice through the counting graph, as two runs (the saver records each run's id on
   * its checkpoints), with what the first run left behind.
   */
  async function twoRuns() {
    const graph = countingGraph(storage());
    const threadId = newId();
    const runIds = [newId(), newId()] as const;
    await graph.invoke({ steps: ["input 1"] }, asRun(threadId, runIds[0]));
    const afterFirst = {
      checkpointId: await store().latestCheckpointId(threadId),
      values: (await graph.getState(on(threadId))).values,
      history: await history(graph, threadId),
    };
    await graph.invoke({ steps: ["input 2"] }, asRun(threadId, runIds[1]));
    return { graph, threadId, runIds, afterFirst };
  }

  test("finds the latest root checkpoint, the one the graph reads its state from", async () => {
    const { graph, threadId, afterFirst } = await twoRuns();
    const state = await graph.getState(on(threadId));

    expect(await store().latestCheckpointId(threadId)).toBe(state.config.configurable?.checkpoint_id);
    expect(afterFirst.checkpointId).toBe(afterFirst.history[0]);
    expect((await history(graph, threadId)).length).toBeGreaterThan(afterFirst.history.length);
    expect(await store().latestCheckpointId(newId())).toBeNull();
  });

  test("copies every checkpoint of a thread to another, leaving the source as it was", async () => {
    const { graph, threadId } = await twoRuns();
    const copyId = newId();
    await store().copyThread(threadId, copyId);

    const source = await graph.getState(on(threadId));
    const copy = await graph.getState(on(copyId));
    expect(copy.values).toEqual(source.values);
    expect(source.values.steps).toEqual(["input 1", "first after 1", "second", "input 2", "first after 4", "second"]);
    expect(await history(graph, copyId)).toEqual(await history(graph, threadId));
    expect(await store().latestCheckpointId(copyId)).toBe(await store().latestCheckpointId(threadId));

    await graph.invoke({ steps: ["input 3"] }, on(copyId));
    expect((await graph.getState(on(copyId))).values.steps).toHaveLength(9);
    expect((await graph.getState(on(threadId))).values).toEqual(source.values);
  });

  test("records the writing run in its checkpoints' metadata, which a history filters on, and a copy names the copy", async () => {
    const graph = countingGraph(storage());
    const threadId = newId();
    const runId = newId();
    await graph.invoke({ steps: ["input 1"] }, { ...asRun(threadId, runId), metadata: { batch: "nightly", tags: { team: "x" } } });
    await graph.invoke({ steps: ["input 2"] }, asRun(threadId, newId()));
    const runOf = async (id: string, filter: Record<string, unknown>) => {
      const out: Array<Record<string, unknown>> = [];
      for await (const snapshot of graph.getStateHistory(on(id), { filter })) out.push(snapshot.metadata as Record<string, unknown>);
      return out;
    };

    const written = await runOf(threadId, { batch: "nightly", run_id: runId });
    expect(written.map((m) => m.step)).toEqual([2, 1, 0, -1]);
    expect(written[0]).toMatchObject({ run_id: runId, thread_id: threadId, batch: "nightly", tags: { team: "x" }, source: "loop" });
    expect(await runOf(threadId, { tags: { team: "x" } })).toHaveLength(4);

    const copyId = newId();
    await store().copyThread(threadId, copyId);
    const copied = await runOf(copyId, { run_id: runId });
    expect(copied.map((m) => m.thread_id)).toEqual([copyId, copyId, copyId, copyId]);
    expect((await runOf(threadId, { run_id: runId })).map((m) => m.thread_id)).toEqual([threadId, threadId, threadId, threadId]);
  });

  test("copies pending writes, so a copy of an interrupted thread waits on the same interrupt", async () => {
    const graph = askingGraph(storage());
    const threadId = newId();
    await graph.invoke({ steps: [] }, on(threadId));
    const copyId = newId();
    await store().copyThread(threadId, copyId);

    const copy = await graph.getState(on(copyId));
    expect(copy.next).toEqual(["ask"]);
    expect(copy.tasks.flatMap((t) => t.interrupts.map((i) => i.value))).toEqual(["name?"]);
    await graph.invoke(new Command({ resume: "ann" }), on(copyId));
    expect((await graph.getState(on(copyId))).values.steps).toEqual(["answer: ann"]);
    expect((await graph.getState(on(threadId))).next).toEqual(["ask"]);
  });

  test("rolls a run back, deleting its checkpoints and leaving the state from before it", async () => {
    const { graph, threadId, runIds, afterFirst } = await twoRuns();
    await store().deleteRun(threadId, runIds[1]);

    expect((await graph.getState(on(threadId))).values).toEqual(afterFirst.values);
    expect(await history(graph, threadId)).toEqual(afterFirst.history);
    expect(await store().latestCheckpointId(threadId)).toBe(afterFirst.checkpointId);

    await graph.invoke({ steps: ["input 2 again"] }, asRun(threadId, newId()));
    expect((await graph.getState(on(threadId))).values.steps).toEqual(["input 1", "first after 1", "second", "input 2 again", "first after 4", "second"]);
  });

  test("rolls back a thread's first run, leaving it without state", async () => {
    const { graph, threadId, runIds } = await twoRuns();
    await store().deleteRun(threadId, runIds[0]);

    expect(await history(graph, threadId)).toEqual([]);
    expect(await store().latestCheckpointId(threadId)).toBeNull();
    expect((await graph.getState(on(threadId))).values).toEqual({});
  });

  test("rolls back an interrupted run with its pending writes, and leaves alone a run that wrote nothing", async () => {
    const { graph, threadId, afterFirst } = await twoRuns();
    const before = await history(graph, threadId);
    await store().deleteRun(threadId, newId());
    await store().deleteRun(newId(), afterFirst.checkpointId!);
    expect(await history(graph, threadId)).toEqual(before);

    const asking = askingGraph(storage());
    const askingThread = newId();
    const runId = newId();
    await asking.invoke({ steps: [] }, asRun(askingThread, runId));
    expect((await asking.getState(on(askingThread))).next).toEqual(["ask"]);
    await store().deleteRun(askingThread, runId);
    const state = await asking.getState(on(askingThread));
    expect(state.next).toEqual([]);
    expect(state.tasks).toEqual([]);
  });

  test("deletes a thread's checkpoints and pending writes, and no other thread's", async () => {
    const { graph, threadId } = await twoRuns();
    const { threadId: otherId } = await twoRuns();
    const asking = askingGraph(storage());
    const interruptedId = newId();
    await asking.invoke({ steps: [] }, on(interruptedId));

    await store().deleteThread(threadId);
    await store().deleteThread(interruptedId);
    expect(await history(graph, threadId)).toEqual([]);
    expect(await store().latestCheckpointId(threadId)).toBeNull();
    expect((await asking.getState(on(interruptedId))).tasks).toEqual([]);
    expect(await history(graph, otherId)).toHaveLength(8);
  });
}
