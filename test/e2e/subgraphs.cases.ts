// Subgraphs, dynamic graphs and the SDK 1.15 additions through the official SDK: a subgraph that
// pauses (interrupt() in it, and a breakpoint compiled into it), breakpoints naming subgraph nodes,
// state updates on a graph built by a factory of the config, every ThreadTask field, the
// `lifecycle` stream mode and strict resume. Written once, run on each backend.
import type { Interrupt, ThreadState, ThreadTask } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { detailOf, request } from "./http.js";
import { collect, framesNamed, names, RUNS_ENV, type Frame } from "./runs-support.js";

/** editorial (a review subgraph that pauses twice), expenses (two parallel interrupts), greeter (a factory). */
const SUBGRAPHS_CONFIG = fixture("subgraphs", "langgraph.json");

/** The SDK's ThreadTask fields, plus `path` as the official server sends it; `result` is null until the task finished. */
const TASK_FIELDS = ["checkpoint", "error", "id", "interrupts", "name", "path", "result", "state"];

interface LifecycleData {
  event: string;
  namespace: string[];
  error?: { error: string; message: string };
}

const lifecycleOf = (frames: Frame[]) => frames.filter((f) => f.event.startsWith("lifecycle|")).map((f) => ({ name: f.event, ...(f.data as LifecycleData) }));

export function describeSubgraphsE2E(label: string, open: OpenStore): void {
  describe(`subgraphs, dynamic graphs, lifecycle and strict resume through the SDK (${label})`, () => {
    const gantry = useGantry(open, SUBGRAPHS_CONFIG, RUNS_ENV);

    /** A thread whose editorial run waits in the review subgraph for the editor's verdict. */
    const awaitingVerdict = async () => {
      const { thread_id } = await gantry.client.threads.create();
      await gantry.client.runs.wait(thread_id, "editorial", { input: { topic: "otters" } });
      const state = await gantry.client.threads.getState(thread_id);
      return { thread_id, interruptId: state.tasks[0]!.interrupts[0]!.id! };
    };

    describe("a subgraph that pauses", () => {
      it("shows every ThreadTask field for a task interrupted inside its subgraph, and the subgraph's state when asked", async () => {
        const { thread_id } = await awaitingVerdict();

        const flat = await gantry.client.threads.getState(thread_id);
        expect(flat.next).toEqual(["review"]);
        const task = flat.tasks[0]!;
        expect(Object.keys(task).sort()).toEqual(TASK_FIELDS);
        expect(task).toMatchObject({
          name: "review",
          path: ["__pregel_pull", "review"],
          error: null,
          result: null,
          state: null,
          interrupts: [{ value: { question: "Publish this draft?", draft: "All about otters." } }],
        });
        expect(task.checkpoint).toMatchObject({ thread_id, checkpoint_ns: expect.stringMatching(/^review:/) });

        const deep = await gantry.client.threads.getState(thread_id, undefined, { subgraphs: true });
        const review = deep.tasks[0]!.state as ThreadState;
        expect(review).toMatchObject({ values: { draft: "All about otters.", notes: ["17 characters"] }, next: ["approve"] });
        expect(review.checkpoint.checkpoint_ns).toBe(task.checkpoint!.checkpoint_ns);
        // The SDK's ThreadState fields only, as the reference's "subgraphs › human in the loop –
        // no modification" compares them: the subgraph's interrupts are on its tasks.
        expect(Object.keys(review).sort()).toEqual(["checkpoint", "created_at", "metadata", "next", "parent_checkpoint", "tasks", "values"]);
        // Its checkpoint is the state's, and the task's own is null then, as on both official servers.
        expect(deep.tasks[0]!.checkpoint).toBeNull();
        const approve = review.tasks[0]!;
        expect(Object.keys(approve).sort()).toEqual(TASK_FIELDS);
        expect(approve).toMatchObject({ name: "approve", error: null, state: null, checkpoint: null });
        expect(approve.interrupts).toEqual(task.interrupts);

        const thread = await gantry.client.threads.get(thread_id);
        expect(thread.status).toBe("interrupted");
        expect(thread.interrupts).toEqual({ [task.id]: task.interrupts });
      });

      it("stops at the breakpoint compiled into the subgraph after the verdict, then publishes", async () => {
        const { thread_id, interruptId } = await awaitingVerdict();
        await gantry.client.runs.wait(thread_id, "editorial", { command: { resume: { [interruptId]: "approve" } } });

        const gated = await gantry.client.threads.getState(thread_id, undefined, { subgraphs: true });
        expect(gated.next).toEqual(["review"]);
        const review = gated.tasks[0]!.state as ThreadState;
        expect(review).toMatchObject({ values: { verdict: "approve" }, next: ["publish"], tasks: [{ name: "publish", error: null, interrupts: [] }] });
        expect((await gantry.client.threads.get(thread_id)).status).toBe("interrupted");

        const done = await gantry.client.runs.wait(thread_id, "editorial", { input: null });
        expect(done).toMatchObject({ topic: "otters", verdict: "approve", published: true });
        expect((await gantry.client.threads.get(thread_id)).status).toBe("idle");
      });

      it("carries a finished task's result beside the task still waiting in the same step", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "expenses", { input: { amount: 120 } });
        const waiting = await gantry.client.threads.getState(thread_id);
        const manager = waiting.tasks.find((t) => t.name === "manager")!;
        await gantry.client.runs.wait(thread_id, "expenses", { command: { resume: { [manager.interrupts[0]!.id!]: "yes" } } });

        const state = await gantry.client.threads.getState(thread_id);
        const byName = Object.fromEntries(state.tasks.map((t) => [t.name, t])) as Record<string, ThreadTask>;
        expect(byName.manager).toMatchObject({ error: null, result: { approvals: ["manager: yes"] } });
        expect(byName.finance).toMatchObject({ error: null, interrupts: [{ value: { role: "finance" } }] });
        expect(byName.finance!.result).toBeNull();
      });
    });

    describe("breakpoints naming subgraph nodes", () => {
      it("accepts interrupt_before and interrupt_after naming a node inside a subgraph, as the official server does", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const run = await gantry.client.runs.create(thread_id, "editorial", {
          input: { topic: "owls" },
          interruptBefore: ["approve"],
          interruptAfter: ["check"],
        });
        const output = await gantry.client.runs.join(thread_id, run.run_id);
        expect(output).toMatchObject({ draft: "All about owls." });
        expect((await gantry.client.runs.get(thread_id, run.run_id)).status).toBe("success");
        expect((await gantry.client.threads.get(thread_id)).status).toBe("interrupted");
      });

      // The reference's "subgraphs › human in the loop" tests run with interruptBefore: ["tool"] on a
      // graph that has no node "tool": accepted, it never interrupts, and the run pauses where the
      // graph itself pauses; the waiting task's checkpoint has only the keys its config has.
      it("human in the loop: accepts a breakpoint on a node no graph has, which never interrupts", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const frames = await collect(
          gantry.client.runs.stream(thread_id, "editorial", { input: { topic: "owls" }, interruptBefore: ["tool"], streamMode: ["values"] }),
        );
        expect(framesNamed(frames, "error")).toEqual([]);
        const state = await gantry.client.threads.getState(thread_id);
        expect(state.next).toEqual(["review"]);
        expect(state.tasks).toEqual([
          {
            id: expect.any(String),
            name: "review",
            path: ["__pregel_pull", "review"],
            error: null,
            interrupts: [expect.objectContaining({ value: { question: "Publish this draft?", draft: "All about owls." } })],
            checkpoint: { thread_id, checkpoint_ns: expect.stringMatching(/^review:/) },
            state: null,
            result: null,
          },
        ]);
      });
    });

    describe("a dynamic graph (a factory of the config)", () => {
      it("updates the state as a node of the graph the factory built for the thread's runs", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const out = await gantry.client.runs.wait(thread_id, "greeter", { input: { name: "Ada" }, config: { configurable: { tone: "formal" } } });
        expect(out).toMatchObject({ greeting: "Good day, Ada." });

        await gantry.client.threads.updateState(thread_id, { values: { greeting: "Good evening, Ada." }, asNode: "bow" });
        const state = await gantry.client.threads.getState(thread_id);
        expect(state.values).toMatchObject({ greeting: "Good evening, Ada." });
        expect(state.metadata).toMatchObject({ source: "update" });
        expect(state.next).toEqual([]);
      });

      it("uses the graph of the thread's latest run: a casual thread has no formal node", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "greeter", { input: { name: "Bo" } });
        await gantry.client.threads.updateState(thread_id, { values: { greeting: "Yo Bo" }, asNode: "wave" });
        expect((await gantry.client.threads.getState(thread_id)).values).toMatchObject({ greeting: "Yo Bo" });

        const response = await request(gantry.server.url, "POST", `/threads/${thread_id}/state`, { body: { values: { greeting: "x" }, as_node: "bow" } });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toMatch(/bow/);
      });
    });

    describe("the lifecycle stream mode", () => {
      it("says when the review subgraph starts and is interrupted, then completes once resumed", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const first = await collect(
          gantry.client.runs.stream(thread_id, "editorial", { input: { topic: "bees" }, streamMode: ["lifecycle", "updates"], streamSubgraphs: true }),
        );
        const started = lifecycleOf(first);
        expect(started.map((e) => e.event)).toEqual(["started", "interrupted"]);
        const namespace = started[0]!.namespace;
        expect(namespace).toEqual([expect.stringMatching(/^review:/)]);
        expect(started.every((e) => e.name === `lifecycle|${namespace.join("|")}`)).toBe(true);
        // The subgraph starts before its own updates stream, and the root graph gets no lifecycle event.
        const order = names(first);
        expect(order.indexOf(started[0]!.name)).toBeLessThan(order.findIndex((n) => n.startsWith("updates|review:")));
        expect(order.some((n) => n === "lifecycle" || n === "lifecycle|")).toBe(false);

        const interruptId = ((await gantry.client.threads.getState(thread_id)).tasks[0]!.interrupts[0] as Interrupt).id!;
        const verdict = await collect(
          gantry.client.runs.stream(thread_id, "editorial", {
            command: { resume: { [interruptId]: "approve" } },
            streamMode: ["lifecycle"],
            streamSubgraphs: true,
          }),
        );
        // Stopped at the breakpoint before `publish`: interrupted again, in the same namespace.
        expect(lifecycleOf(verdict).map((e) => [e.event, e.namespace])).toEqual([
          ["started", namespace],
          ["interrupted", namespace],
        ]);

        const last = await collect(gantry.client.runs.stream(thread_id, "editorial", { input: null, streamMode: ["lifecycle"] }));
        expect(lifecycleOf(last).map((e) => e.event)).toEqual(["started", "completed"]);
        expect(names(last).filter((n) => !n.startsWith("lifecycle|"))).toEqual(["metadata"]);
      });

      it("is a mode a run join stream can ask for", async () => {
        const { thread_id } = await gantry.client.threads.create();
        const run = await gantry.client.runs.create(thread_id, "editorial", {
          input: { topic: "ants" },
          streamMode: ["lifecycle", "values"],
          streamResumable: true,
        });
        const joined = await collect(gantry.client.runs.joinStream(thread_id, run.run_id, { streamMode: ["lifecycle"], lastEventId: "-1" }));
        expect(lifecycleOf(joined).map((e) => e.event)).toEqual(["started", "interrupted"]);
        expect(framesNamed(joined, "values")).toEqual([]);
      });
    });

    describe("strict resume", () => {
      it("says so in /info", async () => {
        const info = await request(gantry.server.url, "GET", "/info");
        expect(info.json).toMatchObject({ flags: { strict_resume: true } });
      });

      it("refuses an answer naming an interrupt that is not waiting, and leaves the thread as it was", async () => {
        const { thread_id, interruptId } = await awaitingVerdict();
        const before = await gantry.client.threads.getState(thread_id);
        const threadBefore = await gantry.client.threads.get(thread_id);
        const wrongId = "0123456789abcdef0123456789abcdef";

        const frames = await collect(
          gantry.client.runs.stream(thread_id, "editorial", { command: { resume: { [wrongId]: "approve" } }, strictResume: true, streamMode: ["values"] }),
        );
        expect(names(frames)).toEqual(["metadata", "error"]);
        expect(framesNamed(frames, "error")[0]!.data).toEqual({
          error: "UnknownInterruptError",
          message: `Unknown or already-consumed interrupt: ${wrongId}`,
          reason: "not_pending",
          interrupt_ids: [wrongId],
          pending_ids: [interruptId],
        });

        const runs = await gantry.client.runs.list(thread_id);
        expect(runs[0]!.status).toBe("error");
        const after = await gantry.client.threads.getState(thread_id);
        expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
        expect(after.tasks).toEqual(before.tasks);
        const threadAfter = await gantry.client.threads.get(thread_id);
        expect(threadAfter).toMatchObject({ status: "interrupted", values: threadBefore.values, interrupts: threadBefore.interrupts, error: null });

        // The interrupt still waiting takes its answer.
        await gantry.client.runs.wait(thread_id, "editorial", { command: { resume: { [interruptId]: "approve" } }, strictResume: true });
        expect((await gantry.client.threads.getState(thread_id, undefined, { subgraphs: true })).tasks[0]!.state).toMatchObject({ next: ["publish"] });
      });

      it("refuses a bare answer while two interrupts wait, then takes answers naming them one by one", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "expenses", { input: { amount: 80 } });
        const waiting = await gantry.client.threads.getState(thread_id);
        const idOf = (role: string) => waiting.tasks.find((t) => t.name === role)!.interrupts[0]!.id!;
        const pending = [idOf("manager"), idOf("finance")].sort();

        const refused = await gantry.client.runs.wait(thread_id, "expenses", { command: { resume: "yes" }, strictResume: true, raiseError: false });
        expect(refused).toEqual({
          __error__: {
            error: "UnknownInterruptError",
            message: "When there are multiple pending interrupts, you must specify the interrupt id when resuming.",
            reason: "ambiguous",
            interrupt_ids: [],
            pending_ids: pending,
          },
        });
        expect((await gantry.client.threads.getState(thread_id)).checkpoint.checkpoint_id).toBe(waiting.checkpoint.checkpoint_id);

        await gantry.client.runs.wait(thread_id, "expenses", { command: { resume: { [idOf("manager")]: "yes" } }, strictResume: true });
        // Answered already (in another tab, say): the same interrupt answered again is refused.
        const stale = await gantry.client.runs.wait(thread_id, "expenses", {
          command: { resume: { [idOf("manager")]: "no" } },
          strictResume: true,
          raiseError: false,
        });
        expect(stale).toMatchObject({ __error__: { reason: "not_pending", interrupt_ids: [idOf("manager")], pending_ids: [idOf("finance")] } });

        const done = await gantry.client.runs.wait(thread_id, "expenses", { command: { resume: { [idOf("finance")]: "yes" } }, strictResume: true });
        expect(done).toMatchObject({ approvals: expect.arrayContaining(["manager: yes", "finance: yes"]) });
        expect((await gantry.client.threads.get(thread_id)).status).toBe("idle");
      });

      it("does not refuse anything when the run did not ask for it", async () => {
        const { thread_id } = await gantry.client.threads.create();
        await gantry.client.runs.wait(thread_id, "expenses", { input: { amount: 5 } });
        const run = await gantry.client.runs.create(thread_id, "expenses", { command: { resume: "yes" } });
        await gantry.client.runs.join(thread_id, run.run_id);
        expect((await gantry.client.runs.get(thread_id, run.run_id)).status).toBe("success");
      });
    });
  });
}
