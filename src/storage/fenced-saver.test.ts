import { BaseCheckpointSaver, emptyCheckpoint, MemorySaver, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { fencedSaver, runCheckpointMetadata } from "./fenced-saver.js";

/** A MemorySaver whose puts wait for the test to let them land, like a write to a busy database. */
class GatedSaver extends MemorySaver {
  private gates: Array<() => void> = [];
  override async put(...args: Parameters<MemorySaver["put"]>) {
    await new Promise<void>((open) => this.gates.push(open));
    return super.put(...args);
  }
  openAll(): void {
    for (const open of this.gates.splice(0)) open();
  }
  get waiting(): number {
    return this.gates.length;
  }
}

const configFor = (runId: string) => ({ configurable: { thread_id: "t1", checkpoint_ns: "", run_id: runId } });
const checkpoint = (): Checkpoint => ({ ...emptyCheckpoint(), id: crypto.randomUUID() });

/** A MemorySaver that counts the reads reaching it. */
class CountingSaver extends MemorySaver {
  reads = 0;
  override async getTuple(...args: Parameters<MemorySaver["getTuple"]>) {
    this.reads += 1;
    return super.getTuple(...args);
  }
}

describe("fencedSaver", () => {
  it("answers a run that starts empty without reading, once, and every other read as its saver does", async () => {
    const inner = new CountingSaver();
    const { saver, startsEmpty } = fencedSaver(inner);
    const graph = new StateGraph(Annotation.Root({ n: Annotation<number> }))
      .addNode("step", (state) => ({ n: state.n + 1 }))
      .addEdge(START, "step")
      .compile({ checkpointer: saver });
    const run = (runId: string, input: { n: number } | null) => graph.invoke(input, { configurable: { thread_id: "fresh", run_id: runId } });

    expect(await run("run-a", { n: 1 })).toEqual({ n: 2 });
    const unmarked = inner.reads;
    startsEmpty("run-b");
    expect(await graph.invoke({ n: 1 }, { configurable: { thread_id: "also-fresh", run_id: "run-b" } })).toEqual({ n: 2 });
    expect(inner.reads - unmarked).toBe(unmarked - 1);
    // Only the first read: the run's later reads (here a second invoke on the same thread) see its checkpoints.
    expect(await graph.invoke(null, { configurable: { thread_id: "also-fresh", run_id: "run-b" } })).toEqual({ n: 2 });
    expect((await saver.getTuple({ configurable: { thread_id: "also-fresh", run_id: "run-b" } }))?.checkpoint.channel_values).toMatchObject({ n: 2 });
  });

  it("waits for a fenced run's write in flight, then drops its later writes and keeps other runs'", async () => {
    const inner = new GatedSaver();
    const { saver, fence } = fencedSaver(inner);
    const first = checkpoint();
    const landing = saver.put(configFor("run-a"), first, { source: "input", step: -1, parents: {} }, {});

    let fenced = false;
    const fencing = fence("run-a").then(() => (fenced = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fenced).toBe(false);
    inner.openAll();
    await landing;
    await fencing;
    expect((await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: first.id } }))?.checkpoint.id).toBe(first.id);

    const late = checkpoint();
    await saver.put(configFor("run-a"), late, { source: "loop", step: 0, parents: {} }, {});
    await saver.putWrites(configFor("run-a"), [["x", 1]], "task-1");
    expect(inner.waiting).toBe(0);
    expect(await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: late.id } })).toBeUndefined();

    const other = checkpoint();
    const otherWrite = saver.put(configFor("run-b"), other, { source: "loop", step: 1, parents: {} }, {});
    inner.openAll();
    await otherWrite;
    expect((await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: other.id } }))?.checkpoint.id).toBe(other.id);
  });

  it("records the writing run in each checkpoint's metadata, and nothing for writes outside a run", async () => {
    const { saver } = fencedSaver(new MemorySaver());
    const byRun = checkpoint();
    await saver.put(configFor("run-a"), byRun, { source: "loop", step: 0, parents: {} }, {});
    const byUpdate = checkpoint();
    await saver.put({ configurable: { thread_id: "t1", checkpoint_ns: "" } }, byUpdate, { source: "update", step: 1, parents: {} }, {});

    const read = async (id: string) => (await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: id } }))?.metadata;
    expect(await read(byRun.id)).toEqual({ source: "loop", step: 0, parents: {}, run_id: "run-a", thread_id: "t1" });
    expect(await read(byUpdate.id)).toEqual({ source: "update", step: 1, parents: {} });
  });

  it("takes the configurable's plain values, then the run's metadata, then LangGraph's own keys, and the run id over all", () => {
    const config = {
      configurable: {
        run_id: "run-a",
        thread_id: "t1",
        graph_id: "agent",
        user_id: "ann",
        attempt: 2,
        stream: true,
        langgraph_auth_user: { identity: "ann" },
        langgraph_auth_permissions: ["read"],
        checkpoint_ns: "",
        checkpoint_id: "c1",
        __pregel_scratchpad: "internal",
        tier: "configurable",
      },
      metadata: { tier: "metadata", tags: { team: "x" }, run_id: "forged", step: 99 },
    };
    expect(runCheckpointMetadata(config, { source: "loop", step: 3, parents: {} }, "run-a")).toEqual({
      run_id: "run-a",
      thread_id: "t1",
      graph_id: "agent",
      user_id: "ann",
      attempt: 2,
      stream: true,
      tier: "metadata",
      tags: { team: "x" },
      source: "loop",
      step: 3,
      parents: {},
    });
  });

  it("lets a graph's history be filtered on the metadata of the run that wrote it", async () => {
    const { saver } = fencedSaver(new MemorySaver());
    const State = Annotation.Root({ n: Annotation<number> });
    const graph = new StateGraph(State)
      .addNode("inc", (s: typeof State.State) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .addEdge("inc", END)
      .compile({ checkpointer: saver });
    await graph.invoke({ n: 1 }, { configurable: { thread_id: "h1", run_id: "run-1" }, metadata: { batch: "first" } });
    await graph.invoke({ n: 5 }, { configurable: { thread_id: "h1", run_id: "run-2" }, metadata: { batch: "second" } });
    const steps = async (filter: Record<string, unknown>) => {
      const out: Array<[unknown, unknown]> = [];
      for await (const { metadata } of graph.getStateHistory({ configurable: { thread_id: "h1" } }, { filter }))
        out.push([(metadata as Record<string, unknown> | undefined)?.run_id, metadata?.step]);
      return out;
    };
    expect(await steps({ batch: "first" })).toEqual([
      ["run-1", 1],
      ["run-1", 0],
      ["run-1", -1],
    ]);
    expect(await steps({ run_id: "run-2", thread_id: "h1" })).toHaveLength(3);
  });

  it("stays a checkpoint saver a compiled graph runs with", async () => {
    const { saver } = fencedSaver(new MemorySaver());
    expect(saver).toBeInstanceOf(BaseCheckpointSaver);
    const State = Annotation.Root({ n: Annotation<number> });
    const graph = new StateGraph(State)
      .addNode("inc", (s: typeof State.State) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .addEdge("inc", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "g1", run_id: "run-g" } };
    expect(await graph.invoke({ n: 1 }, config)).toEqual({ n: 2 });
    expect((await graph.getState(config)).values).toEqual({ n: 2 });
  });
});
