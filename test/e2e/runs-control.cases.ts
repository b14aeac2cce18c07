// Steering runs through the official SDK: human in the loop (interrupt and resume, breakpoints),
// commands and checkpoints, multitask strategies, and bad input. Written once and run on each
// storage backend against one server.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { useGantry } from "./fixture.js";
import { detailOf, request } from "./http.js";
import { collect, RUNS_CONFIG, RUNS_ENV, runIsGone, runReaches } from "./runs-support.js";

const ALL_STEPS = Array.from({ length: 10 }, (_, i) => `step_${i}`);

export function describeRunControlE2E(label: string, open: OpenStore): void {
  describe(`steering runs through the SDK (${label})`, () => {
    const gantry = useGantry(open, RUNS_CONFIG, RUNS_ENV);

    const newThread = async () => (await gantry.client.threads.create()).thread_id;

    /** A `slow` run that waits a minute unless cancelled, seen running before this returns. */
    const runningSlowRun = async (threadId: string, label = "first") => {
      const run = await gantry.client.runs.create(threadId, "slow", { input: { ms: 60_000, label } });
      await runReaches(gantry.client, threadId, run.run_id, "running");
      return run;
    };

    describe("human in the loop", () => {
      it("stops at interrupt(), shows the interrupt on the thread, and continues with command resume", async () => {
        const threadId = await newThread();
        const paused = (await gantry.client.runs.wait(threadId, "interrupt", { input: { text: "q" } })) as Record<string, unknown>;
        expect(paused).toMatchObject({ text: "q", __interrupt__: [{ value: "question" }] });

        const thread = await gantry.client.threads.get(threadId);
        expect(thread.status).toBe("interrupted");
        expect(Object.values(thread.interrupts).flat()).toMatchObject([{ value: "question" }]);
        const [run] = await gantry.client.runs.list(threadId);
        expect(run!.status).toBe("success");

        expect(await gantry.client.runs.wait(threadId, "interrupt", { command: { resume: "yes" } })).toEqual({ text: "q", answer: "got yes" });
        const resumed = await gantry.client.threads.get(threadId);
        expect(resumed.status).toBe("idle");
        expect(Object.values(resumed.interrupts).flat()).toEqual([]);
      });

      it("streams the interrupt as an updates event and in the last values event", async () => {
        const frames = await collect(gantry.client.runs.stream(await newThread(), "interrupt", { input: { text: "q" }, streamMode: ["values", "updates"] }));
        const updates = frames.filter((f) => f.event === "updates").map((f) => f.data as Record<string, unknown>);
        expect(updates.at(-1)).toMatchObject({ __interrupt__: [{ value: "question" }] });
        const values = frames.filter((f) => f.event === "values");
        expect(values.at(-1)!.data).toMatchObject({ __interrupt__: [{ value: "question" }] });
      });

      it("stops before a node named in interrupt_before and continues with input null", async () => {
        const threadId = await newThread();
        // A static breakpoint has no interrupt value: __interrupt__ may be there, but empty.
        const paused = (await gantry.client.runs.wait(threadId, "chain", { input: {}, interruptBefore: ["step_5"] })) as Record<string, unknown>;
        expect(paused.steps).toEqual(ALL_STEPS.slice(0, 5));
        expect(paused.__interrupt__ ?? []).toEqual([]);
        expect((await gantry.client.threads.get(threadId)).status).toBe("interrupted");

        expect(await gantry.client.runs.wait(threadId, "chain", { input: null })).toEqual({ steps: ALL_STEPS });
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
      });

      it("stops after a node named in interrupt_after", async () => {
        const threadId = await newThread();
        const paused = (await gantry.client.runs.wait(threadId, "chain", { input: {}, interruptAfter: ["step_2"] })) as Record<string, unknown>;
        expect(paused.steps).toEqual(ALL_STEPS.slice(0, 3));
        expect((await gantry.client.threads.get(threadId)).status).toBe("interrupted");
      });

      it("accepts interrupt_before naming a node the graph lacks, as the reference does, and never stops there", async () => {
        const threadId = await newThread();
        expect(await gantry.client.runs.wait(threadId, "chain", { input: {}, interruptBefore: ["no_such_node"] })).toEqual({ steps: ALL_STEPS });
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
      });
    });

    describe("commands and checkpoints", () => {
      it("applies a command's update and goto, and a goto with a Send", async () => {
        expect(await gantry.client.runs.wait(await newThread(), "echo", { command: { update: { text: "via goto" }, goto: "echo" } })).toEqual({
          text: "via goto",
          reply: "echo: via goto",
        });
        // A Send gives the node its own input; the thread's text channel stays unset.
        expect(await gantry.client.runs.wait(await newThread(), "echo", { command: { goto: { node: "echo", input: { text: "sent" } } } })).toEqual({
          reply: "echo: sent",
        });
      });

      it("answers HTTP 422 naming the node when a command's goto names a node the graph lacks", async () => {
        const threadId = await newThread();
        const response = await request(gantry.server.url, "POST", `/threads/${threadId}/runs`, {
          body: { assistant_id: "echo", command: { goto: "no_such_node" } },
        });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toContain("no_such_node");
      });

      it("ignores an unknown field of a command, as the official server does", async () => {
        const body = { assistant_id: "echo", command: { goto: { node: "echo", input: { text: "sent" } }, bogus: 2 } };
        const response = await request(gantry.server.url, "POST", `/threads/${await newThread()}/runs/wait`, { body });
        expect(response.status, response.text).toBe(200);
        expect(response.json).toEqual({ reply: "echo: sent" });
      });

      it("forks a thread from a past checkpoint given by checkpoint_id", async () => {
        const threadId = await newThread();
        const frames = await collect(gantry.client.runs.stream(threadId, "chain", { input: {}, streamMode: "checkpoints" }));
        const before5 = frames
          .filter((f) => f.event === "checkpoints")
          .map((f) => f.data as { next: string[]; config: { configurable: { checkpoint_id: string } } })
          .find((c) => c.next.includes("step_5"))!;
        expect((await gantry.client.threads.get(threadId)).values).toEqual({ steps: ALL_STEPS });

        // Replaying from before step_5 runs step_5 … step_9 again on top of step_0 … step_4.
        expect(await gantry.client.runs.wait(threadId, "chain", { input: null, checkpointId: before5.config.configurable.checkpoint_id })).toEqual({
          steps: ALL_STEPS,
        });
      });

      it("forks from a past checkpoint given as a checkpoint object", async () => {
        const threadId = await newThread();
        await gantry.client.runs.wait(threadId, "chain", { input: {}, interruptBefore: ["step_3"] });
        const paused = await gantry.client.threads.getState(threadId);
        expect(paused.next).toEqual(["step_3"]);
        await gantry.client.runs.wait(threadId, "chain", { input: null });
        expect((await gantry.client.threads.get(threadId)).values).toEqual({ steps: ALL_STEPS });

        const forked = await gantry.client.runs.wait(threadId, "chain", {
          input: null,
          checkpoint: { checkpoint_id: paused.checkpoint.checkpoint_id!, checkpoint_ns: "", checkpoint_map: null },
        });
        expect(forked).toEqual({ steps: ALL_STEPS });
        const state = await gantry.client.threads.getState(threadId);
        expect(state.parent_checkpoint).not.toBeNull();
        // The fork's branch starts at the paused checkpoint: walking its parents reaches it.
        const branch = await gantry.client.threads.getHistory(threadId, {
          limit: 100,
          before: { configurable: { checkpoint_id: state.checkpoint.checkpoint_id! } },
        });
        const ids = [state.checkpoint.checkpoint_id, ...branch.map((s) => s.checkpoint.checkpoint_id)];
        expect(ids).toContain(paused.checkpoint.checkpoint_id);
      });

      // Only the SDK's stream sends feedbackKeys. No LangSmith here, so no feedback event follows.
      it("runs with each durability and accepts feedback_keys, keeping them on the run", async () => {
        for (const durability of ["sync", "async", "exit"] as const) {
          const threadId = await newThread();
          let runId = "";
          const frames = await collect(
            gantry.client.runs.stream(threadId, "chain", { input: {}, durability, feedbackKeys: ["helpful"], onRunCreated: ({ run_id }) => (runId = run_id) }),
          );
          expect(frames.at(-1)).toMatchObject({ event: "values", data: { steps: ALL_STEPS } });
          const stored = (await gantry.client.runs.get(threadId, runId)) as unknown as { kwargs: { feedback_keys: string[] } };
          expect(stored.kwargs.feedback_keys).toEqual(["helpful"]);
          expect((await gantry.client.threads.getState(threadId)).values).toEqual({ steps: ALL_STEPS });
        }
      });

      // A mistyped checkpoint id should not silently run from somewhere else.
      it("answers a 4xx to a checkpoint_id the thread does not have", async () => {
        const threadId = await newThread();
        await gantry.client.runs.wait(threadId, "chain", { input: {} });
        const response = await request(gantry.server.url, "POST", `/threads/${threadId}/runs/wait`, {
          body: { assistant_id: "chain", input: null, checkpoint_id: "no-such-checkpoint" },
        });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      });
    });

    describe("multitask strategies", () => {
      it("answers HTTP 409 to a second run on a busy thread with reject, leaving the first running", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId);
        await expect(gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "second" }, multitaskStrategy: "reject" })).rejects.toThrow(
          /HTTP 409/,
        );
        expect((await gantry.client.runs.get(threadId, first.run_id)).status).toBe("running");
        expect(await gantry.client.runs.list(threadId)).toHaveLength(1);
        await gantry.client.runs.cancel(threadId, first.run_id, true);
      });

      it("queues a second run with enqueue and runs the two in order", async () => {
        const threadId = await newThread();
        const first = await gantry.client.runs.create(threadId, "slow", { input: { ms: 500, label: "first" } });
        await runReaches(gantry.client, threadId, first.run_id, "running");
        const second = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "second" }, multitaskStrategy: "enqueue" });
        expect((await gantry.client.runs.get(threadId, second.run_id)).status).toBe("pending");

        expect(await gantry.client.runs.join(threadId, second.run_id)).toMatchObject({ log: ["first", "second"] });
        expect((await gantry.client.runs.get(threadId, first.run_id)).status).toBe("success");
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
      });

      it("queues by default when no strategy is given", async () => {
        const threadId = await newThread();
        const first = await gantry.client.runs.create(threadId, "slow", { input: { ms: 300, label: "first" } });
        const second = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "second" } });
        expect(await gantry.client.runs.join(threadId, second.run_id)).toMatchObject({ log: ["first", "second"] });
        expect((await gantry.client.runs.get(threadId, first.run_id)).status).toBe("success");
      });

      it("interrupts the running run with interrupt and runs the new one", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId);
        const second = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "second" }, multitaskStrategy: "interrupt" });
        expect(await gantry.client.runs.join(threadId, second.run_id)).toMatchObject({ log: ["second"] });
        expect((await gantry.client.runs.get(threadId, first.run_id)).status).toBe("interrupted");
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
      });

      it("deletes the running run with rollback and runs the new one", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId);
        const second = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "second" }, multitaskStrategy: "rollback" });
        expect(await gantry.client.runs.join(threadId, second.run_id)).toMatchObject({ log: ["second"] });
        await runIsGone(gantry.client, threadId, first.run_id);
        expect((await gantry.client.runs.list(threadId)).map((r) => r.run_id)).toEqual([second.run_id]);
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
        // The first run's checkpoints went with it: no state in the history ever held its input.
        const labels = (await gantry.client.threads.getHistory<{ label?: string }>(threadId, { limit: 100 })).map((s) => s.values.label);
        expect(labels).not.toContain("first");
        expect(labels).toContain("second");
      });

      it("keeps the interrupted run's checkpoints with interrupt, so the history still holds its input", async () => {
        const threadId = await newThread();
        await runningSlowRun(threadId);
        const second = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "second" }, multitaskStrategy: "interrupt" });
        await gantry.client.runs.join(threadId, second.run_id);
        const labels = (await gantry.client.threads.getHistory<{ label?: string }>(threadId, { limit: 100 })).map((s) => s.values.label);
        expect(labels).toEqual(expect.arrayContaining(["first", "second"]));
      });
    });

    describe("bad input", () => {
      it("ignores an unknown field but answers HTTP 422 naming a known one of the wrong type beside it", async () => {
        const threadId = await newThread();
        const ignored = await request(gantry.server.url, "POST", `/threads/${threadId}/runs/wait`, {
          body: { assistant_id: "echo", input: { text: "hi" }, bogus_field: 1 },
        });
        expect(ignored.status, ignored.text).toBe(200);
        expect(ignored.json).toEqual({ text: "hi", reply: "echo: hi" });
        const refused = await request(gantry.server.url, "POST", `/threads/${threadId}/runs`, {
          body: { assistant_id: "echo", input: {}, bogus_field: 1, stream_subgraphs: "yes" },
        });
        expect(refused.status).toBe(422);
        expect(detailOf(refused)).toContain("stream_subgraphs");
      });

      it("answers HTTP 422 to an unknown stream mode", async () => {
        const response = await request(gantry.server.url, "POST", "/runs/stream", {
          body: { assistant_id: "echo", input: {}, stream_mode: ["values", "telepathy"] },
        });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toContain("stream_mode");
      });

      it("answers HTTP 404 to an unknown assistant and an unknown thread", async () => {
        const threadId = await newThread();
        await expect(gantry.client.runs.create(threadId, randomUUID(), { input: {} })).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.runs.wait(null, randomUUID(), { input: {} })).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.runs.create(randomUUID(), "echo", { input: {} })).rejects.toThrow(/HTTP 404/);
        expect(await gantry.client.runs.list(threadId)).toEqual([]);
      });

      it("answers HTTP 422 listing the graphs to an assistant id that is neither a UUID nor a graph", async () => {
        const response = await request(gantry.server.url, "POST", "/runs/wait", { body: { assistant_id: "no-such-graph", input: {} } });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toContain("chain");
      });

      it("creates the thread with if_not_exists create", async () => {
        const threadId = randomUUID();
        expect(await gantry.client.runs.wait(threadId, "echo", { input: { text: "new" }, ifNotExists: "create" })).toEqual({ text: "new", reply: "echo: new" });
        const thread = await gantry.client.threads.get(threadId);
        expect(thread.status).toBe("idle");
        expect(thread.metadata).toMatchObject({ graph_id: "echo" });
      });

      it("answers HTTP 422 to a thread id that is not a UUID", async () => {
        const response = await request(gantry.server.url, "POST", "/threads/not-a-uuid/runs", { body: { assistant_id: "echo", input: {} } });
        expect(response.status).toBe(422);
        detailOf(response);
      });

      it("answers HTTP 422 to a run of another graph's assistant on a thread", async () => {
        const threadId = await newThread();
        await gantry.client.runs.wait(threadId, "echo", { input: { text: "mine" } });
        const response = await request(gantry.server.url, "POST", `/threads/${threadId}/runs`, { body: { assistant_id: "chain", input: {} } });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toContain("echo");
      });
    });
  });
}
