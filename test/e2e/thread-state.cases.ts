// Thread state through the official SDK: reading the latest and past checkpoints, history, state
// updates as a node, metadata patches, supersteps, copy/prune/delete taking the checkpoints along,
// and following a thread's runs on GET /threads/{id}/stream. Written once, run on each backend.
import { randomUUID } from "node:crypto";
import { Client, type Checkpoint, type ThreadState } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { detailOf, eventually, request } from "./http.js";
import { framesNamed, names, RUNS_ENV, runReaches, threadReaches, type Frame } from "./runs-support.js";

/** echo, chain, interrupt and slow from test/fixtures/runs, plus nested_interrupt (a subgraph that pauses). */
const THREAD_STATE_CONFIG = fixture("thread-state", "langgraph.json");

const ALL_STEPS = Array.from({ length: 10 }, (_, i) => `step_${i}`);

/**
 * A follower of GET /threads/{id}/stream through the SDK. `attached` settles when the server has
 * answered the request, i.e. once it has opened the thread's log: runs created after that are seen.
 */
interface Follower {
  frames: Frame[];
  attached: Promise<void>;
  /** Polls until `done(frames)` holds; returns the frames. Fails at once if the stream failed. */
  until(what: string, done: (frames: Frame[]) => boolean, deadlineMs?: number): Promise<Frame[]>;
  stop(): Promise<void>;
}

function follow(
  url: string,
  threadId: string,
  options: { streamMode?: Array<"run_modes" | "lifecycle" | "state_update">; lastEventId?: string } = {},
): Follower {
  let markAttached!: () => void;
  const attached = new Promise<void>((resolve) => (markAttached = resolve));
  const client = new Client({
    apiUrl: url,
    callerOptions: {
      maxRetries: 0,
      fetch: async (input: string, init?: RequestInit) => {
        const response = await fetch(input, init);
        markAttached();
        return response;
      },
    },
  });
  const frames: Frame[] = [];
  const controller = new AbortController();
  let failure: unknown;
  const reading = (async () => {
    try {
      for await (const frame of client.threads.joinStream(threadId, { ...options, signal: controller.signal })) frames.push(frame as Frame);
    } catch (err) {
      // A refused request (a 404) fails the next until(), and must not leave `attached` pending.
      if (!controller.signal.aborted) failure = err;
      markAttached();
    }
  })();
  return {
    frames,
    attached,
    until: (what, done, deadlineMs) =>
      eventually(
        what,
        async () => {
          if (failure !== undefined) throw failure;
          return done(frames) ? frames : undefined;
        },
        deadlineMs,
      ),
    async stop() {
      controller.abort();
      await reading;
    },
  };
}

export function describeThreadStateE2E(label: string, open: OpenStore): void {
  describe(`thread state through the SDK (${label})`, () => {
    const gantry = useGantry(open, THREAD_STATE_CONFIG, RUNS_ENV);

    /** A thread on which echo ran with "one", then with "two": six checkpoints. */
    const echoedTwice = async () => {
      const { thread_id } = await gantry.client.threads.create();
      await gantry.client.runs.wait(thread_id, "echo", { input: { text: "one" } });
      await gantry.client.runs.wait(thread_id, "echo", { input: { text: "two" } });
      return thread_id;
    };

    const raw = (method: string, path: string, body?: unknown) => request(gantry.server.url, method, path, body === undefined ? {} : { body });
    /** The SDK types the answer as a config; the wire (spec §1.2) and the platform answer `{checkpoint}`. */
    const updateState = async (threadId: string, options: Parameters<Client["threads"]["updateState"]>[1]) =>
      (await gantry.client.threads.updateState(threadId, options)) as unknown as { checkpoint: Checkpoint };
    const checkpointIds = (states: ThreadState[]) => states.map((s) => s.checkpoint.checkpoint_id);

    describe("reading the latest state", () => {
      it("answers an empty state for a thread that has no graph yet", async () => {
        const { thread_id } = await gantry.client.threads.create();
        expect(await gantry.client.threads.getState(thread_id)).toEqual({
          values: {},
          next: [],
          tasks: [],
          // The SDK types `checkpoint` as never null; clients read checkpoint.checkpoint_id from it.
          checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
          parent_checkpoint: null,
          metadata: {},
          created_at: null,
          interrupts: [],
        });
        expect(await gantry.client.threads.getHistory(thread_id)).toEqual([]);
      });

      it("answers an empty state for a thread created with a graph but never run", async () => {
        const { thread_id } = await gantry.client.threads.create({ graphId: "echo" });
        expect(await gantry.client.threads.getState(thread_id)).toEqual({
          values: {},
          next: [],
          tasks: [],
          checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
          parent_checkpoint: null,
          metadata: {},
          created_at: null,
          interrupts: [],
        });
        expect(await gantry.client.threads.getHistory(thread_id)).toEqual([]);
      });

      it("shows the values, checkpoints and metadata of the last step after a run", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "echo", { input: { text: "hi" } });
        const state = await gantry.client.threads.getState(thread_id);
        const history = await gantry.client.threads.getHistory(thread_id);

        expect(state).toMatchObject({ values: { text: "hi", reply: "echo: hi" }, next: [], tasks: [] });
        expect(state.checkpoint).toMatchObject({ thread_id, checkpoint_ns: "", checkpoint_id: history[0]!.checkpoint.checkpoint_id });
        expect(state.parent_checkpoint).toMatchObject({ thread_id, checkpoint_ns: "", checkpoint_id: history[1]!.checkpoint.checkpoint_id });
        expect(state.metadata).toMatchObject({ source: "loop", step: 1 });
        expect(Number.isNaN(Date.parse(state.created_at!))).toBe(false);
      });

      it("shows the pending node, its interrupt and the aggregated interrupts of an interrupted thread", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "interrupt", { input: { text: "q" } });
        const state = (await gantry.client.threads.getState(thread_id)) as ThreadState & { interrupts: unknown[] };

        expect(state.values).toEqual({ text: "q" });
        expect(state.next).toEqual(["ask"]);
        expect(state.tasks).toHaveLength(1);
        const task = state.tasks[0]!;
        expect(task).toMatchObject({ name: "ask", error: null, interrupts: [{ value: "question" }] });
        expect(typeof task.interrupts[0]!.id).toBe("string");
        expect(state.interrupts).toEqual(task.interrupts);

        const thread = await gantry.client.threads.get(thread_id);
        expect(thread.status).toBe("interrupted");
        expect(thread.interrupts).toEqual({ [task.id]: task.interrupts });
      });

      it("fills a task's state with the subgraph's own state only when asked for subgraphs", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "nested_interrupt", { input: {} });

        const flat = await gantry.client.threads.getState(thread_id);
        expect(flat).toMatchObject({ values: { trail: ["before"] }, next: ["child"] });
        expect(flat.tasks[0]).toMatchObject({ name: "child", state: null, interrupts: [{ value: "inner question" }] });

        const deep = await gantry.client.threads.getState(thread_id, undefined, { subgraphs: true });
        const inner = deep.tasks[0]!.state as ThreadState;
        expect(inner).toMatchObject({ values: { trail: ["before"] }, next: ["ask"], tasks: [{ name: "ask", interrupts: [{ value: "inner question" }] }] });
        expect(inner.checkpoint.checkpoint_ns).toMatch(/^child:/);
        expect(deep.tasks[0]!.checkpoint).toBeNull();

        const deepById = await gantry.client.threads.getState(thread_id, deep.checkpoint.checkpoint_id!, { subgraphs: true });
        expect(deepById.tasks[0]!.state).toEqual(inner);

        // The subgraph's checkpoint reads its state and, as the history's `checkpoint`, its history.
        expect(await gantry.client.threads.getState(thread_id, inner.checkpoint)).toMatchObject({ next: ["ask"], checkpoint: inner.checkpoint });
        const innerHistory = await gantry.client.threads.getHistory(thread_id, { checkpoint: { checkpoint_ns: inner.checkpoint.checkpoint_ns } });
        expect(innerHistory.length).toBeGreaterThan(0);
        expect(innerHistory.every((s) => s.checkpoint.checkpoint_ns === inner.checkpoint.checkpoint_ns)).toBe(true);
        expect(innerHistory[0]!.checkpoint.checkpoint_id).toBe(inner.checkpoint.checkpoint_id);
      });
    });

    describe("past checkpoints", () => {
      it("reads a past checkpoint by id through GET /state/{id} and as an object through POST /state/checkpoint", async () => {
        const threadId = await echoedTwice();
        const past = (await gantry.client.threads.getHistory(threadId)).find((s) => s.metadata?.source === "loop" && s.metadata.step === 1)!;
        expect(past.values).toEqual({ text: "one", reply: "echo: one" });

        for (const state of [
          await gantry.client.threads.getState(threadId, past.checkpoint.checkpoint_id!),
          await gantry.client.threads.getState(threadId, past.checkpoint),
        ]) {
          expect(state).toMatchObject({ values: past.values, next: past.next, checkpoint: past.checkpoint, metadata: past.metadata });
          expect(state.parent_checkpoint).toEqual(past.parent_checkpoint);
        }
      });

      it("answers HTTP 404 for a checkpoint the thread does not have, by id and as an object", async () => {
        const threadId = await echoedTwice();
        const elsewhere = (await gantry.client.threads.getState(await echoedTwice())).checkpoint.checkpoint_id!;
        await expect(gantry.client.threads.getState(threadId, elsewhere)).rejects.toThrow(/HTTP 404/);
        await expect(
          gantry.client.threads.getState(threadId, { thread_id: threadId, checkpoint_ns: "", checkpoint_id: elsewhere, checkpoint_map: null }),
        ).rejects.toThrow(/HTTP 404/);
        const { thread_id: graphless } = await gantry.client.threads.create();
        await expect(gantry.client.threads.getState(graphless, elsewhere)).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("history", () => {
      it("lists the history newest first and honours limit", async () => {
        const threadId = await echoedTwice();
        const history = await gantry.client.threads.getHistory(threadId);
        expect(history.map((s) => s.metadata?.step)).toEqual([4, 3, 2, 1, 0, -1]);
        expect(history[0]!.checkpoint.checkpoint_id).toBe((await gantry.client.threads.getState(threadId)).checkpoint.checkpoint_id);
        expect(history.at(-1)!.parent_checkpoint).toBeNull();
        for (let i = 0; i + 1 < history.length; i++) expect(history[i]!.parent_checkpoint?.checkpoint_id).toBe(history[i + 1]!.checkpoint.checkpoint_id);

        expect(checkpointIds(await gantry.client.threads.getHistory(threadId, { limit: 2 }))).toEqual(checkpointIds(history.slice(0, 2)));
      });

      it("pages back with before given as the SDK's config, as a raw checkpoint id and as a Checkpoint", async () => {
        const threadId = await echoedTwice();
        const history = await gantry.client.threads.getHistory(threadId);
        const cut = history[1]!.checkpoint.checkpoint_id!;
        const older = checkpointIds(history.slice(2));

        expect(checkpointIds(await gantry.client.threads.getHistory(threadId, { before: { configurable: { checkpoint_id: cut } } }))).toEqual(older);
        const byId = await raw("POST", `/threads/${threadId}/history`, { limit: 10, before: cut });
        expect(byId.status).toBe(200);
        expect(checkpointIds(byId.json as ThreadState[])).toEqual(older);
        expect(checkpointIds(await gantry.client.threads.getHistory(threadId, { before: { configurable: { checkpoint_id: cut } }, limit: 1 }))).toEqual(
          older.slice(0, 1),
        );
        // The Python SDK sends a Checkpoint as it got it from a state.
        const byCheckpoint = await raw("POST", `/threads/${threadId}/history`, { limit: 10, before: { ...history[1]!.checkpoint, checkpoint_map: null } });
        expect(byCheckpoint.status).toBe(200);
        expect(checkpointIds(byCheckpoint.json as ThreadState[])).toEqual(older);
        const byQuery = await raw("GET", `/threads/${threadId}/history?limit=2&before=${cut}`);
        expect(checkpointIds(byQuery.json as ThreadState[])).toEqual(older.slice(0, 2));
      });

      it("filters the history by checkpoint metadata", async () => {
        const threadId = await echoedTwice();
        const history = await gantry.client.threads.getHistory(threadId);
        const inputs = await gantry.client.threads.getHistory(threadId, { metadata: { source: "input" } });
        expect(inputs).toHaveLength(2);
        expect(checkpointIds(inputs)).toEqual(checkpointIds(history.filter((s) => s.metadata?.source === "input")));
        expect(await gantry.client.threads.getHistory(threadId, { metadata: { source: "nowhere" } })).toEqual([]);
        // The filter applies before the limit: the newest matching checkpoint, not the newest one.
        expect(checkpointIds(await gantry.client.threads.getHistory(threadId, { metadata: { source: "input" }, limit: 1 }))).toEqual(
          checkpointIds(inputs.slice(0, 1)),
        );
      });

      it("answers only the latest state to a history request that sets no limit", async () => {
        const threadId = await echoedTwice();
        const latest = (await gantry.client.threads.getState(threadId)).checkpoint.checkpoint_id;
        for (const response of [await raw("POST", `/threads/${threadId}/history`, {}), await raw("POST", `/threads/${threadId}/history`)]) {
          expect(response.status).toBe(200);
          expect(checkpointIds(response.json as ThreadState[])).toEqual([latest]);
        }
      });

      it("answers HTTP 404 for the history of an unknown thread", async () => {
        await expect(gantry.client.threads.getHistory(randomUUID())).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("updating the state", () => {
      it("writes values as a node and returns the new checkpoint, which getState, the thread and the next run follow", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "echo", { input: { text: "one" } });

        const { checkpoint } = await updateState(thread_id, { values: { text: "edited" }, asNode: "echo" });
        expect(checkpoint).toMatchObject({ thread_id, checkpoint_ns: "" });
        const state = await gantry.client.threads.getState(thread_id);
        expect(state.checkpoint.checkpoint_id).toBe(checkpoint.checkpoint_id);
        expect(state.values).toEqual({ text: "edited", reply: "echo: one" });
        expect(state.metadata).toMatchObject({ source: "update" });
        expect((await gantry.client.threads.get(thread_id)).values).toEqual({ text: "edited", reply: "echo: one" });

        // echo reads `text` from the state, so a run with no new text answers the edited one.
        expect(await gantry.client.runs.wait(thread_id, "echo", { input: {} })).toEqual({ text: "edited", reply: "echo: edited" });
      });

      it("forks from a past checkpoint given as checkpointId", async () => {
        const threadId = await echoedTwice();
        const past = (await gantry.client.threads.getHistory(threadId)).find((s) => s.metadata?.source === "loop" && s.metadata.step === 1)!;
        const { checkpoint } = await updateState(threadId, { values: { text: "fork" }, asNode: "echo", checkpointId: past.checkpoint.checkpoint_id! });

        const state = await gantry.client.threads.getState(threadId);
        expect(state.checkpoint.checkpoint_id).toBe(checkpoint.checkpoint_id);
        expect(state.parent_checkpoint?.checkpoint_id).toBe(past.checkpoint.checkpoint_id);
        expect(state.values).toEqual({ text: "fork", reply: "echo: one" });
      });

      it("answers HTTP 404 to an update from a checkpoint the thread does not have, and leaves the state alone", async () => {
        const threadId = await echoedTwice();
        const before = await gantry.client.threads.getState(threadId);
        const elsewhere = (await gantry.client.threads.getState(await echoedTwice())).checkpoint.checkpoint_id!;

        await expect(updateState(threadId, { values: { text: "lost" }, asNode: "echo", checkpointId: elsewhere })).rejects.toThrow(/HTTP 404/);
        await expect(
          updateState(threadId, { values: { text: "lost" }, asNode: "echo", checkpoint: { ...before.checkpoint, checkpoint_id: elsewhere } }),
        ).rejects.toThrow(/HTTP 404/);
        expect(await gantry.client.threads.getState(threadId)).toMatchObject({ values: before.values, checkpoint: before.checkpoint });
        expect((await gantry.client.threads.get(threadId)).values).toEqual(before.values);
      });

      it("completes an interrupted node when the update is written as that node, leaving the thread idle", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "interrupt", { input: { text: "q" } });
        await threadReaches(gantry.client, thread_id, "interrupted");

        await gantry.client.threads.updateState(thread_id, { values: { answer: "typed" }, asNode: "ask" });
        expect(await gantry.client.threads.getState(thread_id)).toMatchObject({ values: { text: "q", answer: "typed" }, next: [], tasks: [] });
        expect(await gantry.client.threads.get(thread_id)).toMatchObject({ status: "idle", values: { text: "q", answer: "typed" }, interrupts: {} });
      });

      it("refuses a state update on a busy thread with HTTP 409", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const run = await gantry.client.runs.create(thread_id, "slow", { input: { ms: 60_000, label: "busy" } });
        await runReaches(gantry.client, thread_id, run.run_id, "running");
        await expect(gantry.client.threads.updateState(thread_id, { values: { label: "x" }, asNode: "wait" })).rejects.toThrow(/HTTP 409/);
        await gantry.client.runs.cancel(thread_id, run.run_id, true);
      });

      it("refuses a state update on a thread without a graph with HTTP 422", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await expect(gantry.client.threads.updateState(thread_id, { values: { text: "x" } })).rejects.toThrow(/HTTP 422/);
        expect(await gantry.client.threads.getHistory(thread_id)).toEqual([]);
      });

      it("refuses a state update as a node the graph does not have, naming the node", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "echo", { input: { text: "one" } });
        const before = (await gantry.client.threads.getState(thread_id)).checkpoint.checkpoint_id;

        const response = await raw("POST", `/threads/${thread_id}/state`, { values: { text: "x" }, as_node: "nope" });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(detailOf(response)).toMatch(/nope/);
        expect((await gantry.client.threads.getState(thread_id)).checkpoint.checkpoint_id).toBe(before);
      });

      it("merges patchState metadata into the latest checkpoint, keeping its values and id", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "echo", { input: { text: "one" } });
        const before = await gantry.client.threads.getState(thread_id);

        await gantry.client.threads.patchState(thread_id, { reviewed: true });
        await gantry.client.threads.patchState(thread_id, { reviewer: "ada" });
        const after = await gantry.client.threads.getState(thread_id);
        expect(after.metadata).toEqual({ ...before.metadata, reviewed: true, reviewer: "ada" });
        expect(after.checkpoint).toEqual(before.checkpoint);
        expect(after.values).toEqual(before.values);
        expect(await gantry.client.threads.getHistory(thread_id, { metadata: { reviewed: true } })).toHaveLength(1);
      });

      it("keeps a paused thread's values, pending node and interrupt through patchState, and it still resumes", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "nested_interrupt", { input: {} });
        const before = await gantry.client.threads.getState(thread_id);

        await gantry.client.threads.patchState(thread_id, { reviewed: true });
        const after = await gantry.client.threads.getState(thread_id);
        expect(after).toMatchObject({ values: before.values, next: before.next, checkpoint: before.checkpoint, metadata: { reviewed: true } });
        expect(after.tasks.map((t) => t.interrupts)).toEqual(before.tasks.map((t) => t.interrupts));

        const resumed = (await gantry.client.runs.wait(thread_id, "nested_interrupt", { command: { resume: "yes" } })) as { trail: string[] };
        expect(resumed.trail.at(-1)).toBe("answered yes");
        expect((await gantry.client.threads.get(thread_id)).status).toBe("idle");
      });

      it("answers HTTP 404 to patchState on an unknown thread", async () => {
        await expect(gantry.client.threads.patchState(randomUUID(), { reviewed: true })).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("supersteps on create", () => {
      it("refuses supersteps naming a node the graph does not have with HTTP 422, naming it, and keeps no thread", async () => {
        const threadId = randomUUID();
        const before = await gantry.client.threads.count();
        const response = await raw("POST", "/threads", {
          thread_id: threadId,
          metadata: { graph_id: "echo" },
          supersteps: [{ updates: [{ values: { text: "x" }, as_node: "nope" }] }],
        });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toMatch(/nope/);
        expect(await gantry.client.threads.count()).toBe(before);
        await expect(gantry.client.threads.getState(threadId)).rejects.toThrow(/HTTP 404/);
      });

      it("pre-populates a new thread's state from supersteps, and a run continues from it", async () => {
        const thread = await gantry.client.threads.create({
          graphId: "chain",
          supersteps: [{ updates: [{ values: { steps: ["seeded"] }, asNode: "step_9" }] }, { updates: [{ values: { steps: ["more"] }, asNode: "step_9" }] }],
        });
        expect(thread).toMatchObject({ status: "idle", values: { steps: ["seeded", "more"] } });
        const state = await gantry.client.threads.getState(thread.thread_id);
        expect(state).toMatchObject({ values: { steps: ["seeded", "more"] }, next: [], metadata: { source: "update" } });
        expect(await gantry.client.threads.getHistory(thread.thread_id)).toHaveLength(2);

        expect(await gantry.client.runs.wait(thread.thread_id, "chain", { input: {} })).toEqual({ steps: ["seeded", "more", ...ALL_STEPS] });
      });

      it("refuses supersteps without a graph id with HTTP 422 and writes nothing", async () => {
        const threadId = randomUUID();
        const before = await gantry.client.threads.count();
        await expect(gantry.client.threads.create({ threadId, supersteps: [{ updates: [{ values: { text: "x" }, asNode: "echo" }] }] })).rejects.toThrow(
          /HTTP 422/,
        );
        expect(await gantry.client.threads.count()).toBe(before);
        await expect(gantry.client.threads.get(threadId)).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("copy, prune and delete", () => {
      it("copies a thread with its checkpoints, and a run on the copy leaves the source alone", async () => {
        const source = await echoedTwice();
        const sourceState = await gantry.client.threads.getState(source);
        const sourceHistory = await gantry.client.threads.getHistory(source);

        const copy = (await gantry.client.threads.copy(source)).thread_id;
        expect(copy).not.toBe(source);
        const copyState = await gantry.client.threads.getState(copy);
        expect(copyState.values).toEqual(sourceState.values);
        expect(copyState.checkpoint).toMatchObject({ thread_id: copy, checkpoint_id: sourceState.checkpoint.checkpoint_id });
        const copyHistory = await gantry.client.threads.getHistory(copy);
        expect(copyHistory.map((s) => s.values)).toEqual(sourceHistory.map((s) => s.values));

        expect(await gantry.client.runs.wait(copy, "echo", { input: { text: "copy" } })).toEqual({ text: "copy", reply: "echo: copy" });
        expect((await gantry.client.threads.getState(source)).values).toEqual(sourceState.values);
        expect(checkpointIds(await gantry.client.threads.getHistory(source))).toEqual(checkpointIds(sourceHistory));
        expect((await gantry.client.threads.get(source)).values).toEqual(sourceState.values);
      });

      it("copies a paused thread still paused, and resuming the copy leaves the source paused", async () => {
        const { thread_id: source } = await gantry.client.threads.create();
        await gantry.client.runs.wait(source, "interrupt", { input: { text: "q" } });
        const sourceInterrupts = (await gantry.client.threads.get(source)).interrupts;

        const copy = await gantry.client.threads.copy(source);
        expect(copy).toMatchObject({ status: "interrupted", values: { text: "q" }, interrupts: sourceInterrupts });
        expect((await gantry.client.threads.getState(copy.thread_id)).next).toEqual(["ask"]);

        expect(await gantry.client.runs.wait(copy.thread_id, "interrupt", { command: { resume: "yes" } })).toEqual({ text: "q", answer: "got yes" });
        expect(await gantry.client.threads.get(source)).toMatchObject({ status: "interrupted", values: { text: "q" } });
        expect((await gantry.client.threads.getState(source)).next).toEqual(["ask"]);
      });

      it("prunes with keep_latest down to one history entry and the same state, which a run continues from", async () => {
        const threadId = await echoedTwice();
        const before = await gantry.client.threads.getState(threadId);

        const pruned = await raw("POST", "/threads/prune", { thread_ids: [threadId], strategy: "keep_latest" });
        expect(pruned.json).toEqual({ pruned_count: 1 });
        const history = await gantry.client.threads.getHistory(threadId);
        expect(checkpointIds(history)).toEqual([before.checkpoint.checkpoint_id]);
        expect(await gantry.client.threads.getState(threadId)).toMatchObject({ values: before.values, next: [], checkpoint: before.checkpoint });

        expect(await gantry.client.runs.wait(threadId, "echo", { input: {} })).toEqual({ text: "two", reply: "echo: two" });
      });

      it("prunes with delete, taking the thread's state with it", async () => {
        const threadId = await echoedTwice();
        const pruned = await raw("POST", "/threads/prune", { thread_ids: [threadId], strategy: "delete" });
        expect(pruned.json).toEqual({ pruned_count: 1 });
        await expect(gantry.client.threads.getState(threadId)).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.threads.getHistory(threadId)).rejects.toThrow(/HTTP 404/);
      });

      it("deletes a thread's checkpoints with it, so a thread created again with the same id starts empty", async () => {
        const threadId = await echoedTwice();
        await gantry.client.threads.delete(threadId);
        await expect(gantry.client.threads.getState(threadId)).rejects.toThrow(/HTTP 404/);

        await gantry.client.threads.create({ threadId, graphId: "echo" });
        expect(await gantry.client.threads.getState(threadId)).toMatchObject({ values: {}, next: [], created_at: null });
        expect(await gantry.client.threads.getHistory(threadId)).toEqual([]);
        expect(await gantry.client.runs.wait(threadId, "echo", { input: { text: "fresh" } })).toEqual({ text: "fresh", reply: "echo: fresh" });
      });
    });

    describe("following a thread", () => {
      it("sees each run in order: lifecycle running, the run's events, lifecycle with its status, then the state update", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const follower = follow(gantry.server.url, thread_id, { streamMode: ["run_modes", "state_update"] });
        try {
          await follower.attached;
          const first = await gantry.client.runs.create(thread_id, "echo", { input: { text: "a" } });
          await gantry.client.runs.join(thread_id, first.run_id);
          const second = await gantry.client.runs.create(thread_id, "echo", { input: { text: "b" } });
          await gantry.client.runs.join(thread_id, second.run_id);
          const frames = await follower.until("two state updates", (f) => framesNamed(f, "state_update").length >= 2);

          const oneRun = ["lifecycle", "metadata", "values", "values", "lifecycle", "state_update"];
          expect(names(frames)).toEqual([...oneRun, ...oneRun]);
          expect(framesNamed(frames, "lifecycle").map((f) => f.data)).toEqual([
            { run_id: first.run_id, status: "running" },
            { run_id: first.run_id, status: "success" },
            { run_id: second.run_id, status: "running" },
            { run_id: second.run_id, status: "success" },
          ]);
          expect(framesNamed(frames, "metadata").map((f) => (f.data as { run_id: string }).run_id)).toEqual([first.run_id, second.run_id]);
          expect(framesNamed(frames, "values").at(-1)!.data).toEqual({ text: "b", reply: "echo: b" });
          expect(framesNamed(frames, "state_update").map((f) => f.data)).toEqual([
            expect.objectContaining({ run_id: first.run_id, values: { text: "a", reply: "echo: a" } }),
            expect.objectContaining({ run_id: second.run_id, values: { text: "b", reply: "echo: b" } }),
          ]);
          expect(frames.every((f) => typeof f.id === "string" && f.id !== "")).toBe(true);
        } finally {
          await follower.stop();
        }
      });

      it("tells a follower that a run left the thread interrupted, and that resuming it made the thread idle", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const follower = follow(gantry.server.url, thread_id, { streamMode: ["state_update"] });
        try {
          await follower.attached;
          await gantry.client.runs.wait(thread_id, "interrupt", { input: { text: "q" } });
          await gantry.client.runs.wait(thread_id, "interrupt", { command: { resume: "yes" } });
          const frames = await follower.until("two state updates", (f) => f.length >= 2);

          expect(names(frames)).toEqual(["state_update", "state_update"]);
          const [paused, resumed] = frames.map((f) => f.data as { status: string; values: unknown; interrupts: Record<string, Array<{ value: unknown }>> });
          expect(paused).toMatchObject({ status: "interrupted", values: { text: "q" } });
          expect(Object.values(paused!.interrupts).flat()).toMatchObject([{ value: "question" }]);
          expect(resumed).toMatchObject({ status: "idle", values: { text: "q", answer: "got yes" }, interrupts: {} });
        } finally {
          await follower.stop();
        }
      });

      it("sends only lifecycle events with stream_mode lifecycle, and no state update by default", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const lifecycle = follow(gantry.server.url, thread_id, { streamMode: ["lifecycle"] });
        const byDefault = follow(gantry.server.url, thread_id);
        try {
          await Promise.all([lifecycle.attached, byDefault.attached]);
          await gantry.client.runs.wait(thread_id, "echo", { input: { text: "a" } });
          const done = (f: Frame[]) => f.filter((x) => x.event === "lifecycle").length >= 2;
          expect(names(await lifecycle.until("two lifecycle events", done))).toEqual(["lifecycle", "lifecycle"]);
          expect(names(await byDefault.until("two lifecycle events", done))).toEqual(["lifecycle", "metadata", "values", "values", "lifecycle"]);
        } finally {
          await Promise.all([lifecycle.stop(), byDefault.stop()]);
        }
      });

      it("replays what the thread's log retained to a follower that sends Last-Event-ID -", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const live = follow(gantry.server.url, thread_id, { streamMode: ["run_modes", "state_update"] });
        let replay: Follower | undefined;
        let resumed: Follower | undefined;
        try {
          await live.attached;
          await gantry.client.runs.wait(thread_id, "echo", { input: { text: "a" } });
          const seen = [...(await live.until("a state update", (f) => framesNamed(f, "state_update").length >= 1))];

          replay = follow(gantry.server.url, thread_id, { streamMode: ["run_modes", "state_update"], lastEventId: "-" });
          const replayed = await replay.until("the replayed events", (f) => f.length >= seen.length);
          expect(replayed).toEqual(seen);

          // A real event id resumes strictly after it.
          const cut = 2;
          resumed = follow(gantry.server.url, thread_id, { streamMode: ["run_modes", "state_update"], lastEventId: seen[cut]!.id! });
          expect(await resumed.until("the events after the cut", (f) => f.length >= seen.length - cut - 1)).toEqual(seen.slice(cut + 1));
        } finally {
          await Promise.all([live.stop(), replay?.stop(), resumed?.stop()]);
        }
      });

      it("tells a follower who attached during a run how that run ended", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const run = await gantry.client.runs.create(thread_id, "slow", { input: { ms: 60_000, label: "long" } });
        await runReaches(gantry.client, thread_id, run.run_id, "running");
        const follower = follow(gantry.server.url, thread_id, { streamMode: ["lifecycle", "state_update"] });
        try {
          await follower.attached;
          await gantry.client.runs.cancel(thread_id, run.run_id, true);
          const frames = await follower.until("the run's end", (f) => framesNamed(f, "state_update").length >= 1, 3_000);
          expect(framesNamed(frames, "lifecycle").at(-1)!.data).toEqual({ run_id: run.run_id, status: "interrupted" });
          expect(framesNamed(frames, "state_update")[0]!.data).toMatchObject({ run_id: run.run_id, status: "idle" });
        } finally {
          await follower.stop();
        }
      });

      it("answers HTTP 404 to following an unknown thread, and 422 to an unknown stream mode", async () => {
        const follower = follow(gantry.server.url, randomUUID());
        await expect(follower.until("never", () => false)).rejects.toThrow(/HTTP 404/);

        const { thread_id } = await gantry.client.threads.create();
        const refused = await raw("GET", `/threads/${thread_id}/stream?stream_mode=everything`);
        expect(refused.status).toBe(422);
        expect(detailOf(refused)).toMatch(/stream_mode/);
      });
    });
  });
}
