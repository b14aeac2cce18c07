// Runs that end early, through the official SDK: cancel (interrupt, rollback, wait, bulk), clients
// leaving a stream, and a graph that throws. Written once and run on each storage backend against
// one server.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { useGantry } from "./fixture.js";
import { request } from "./http.js";
import { collect, names, RUNS_CONFIG, RUNS_ENV, runIsGone, runReaches, threadReaches } from "./runs-support.js";

export function describeRunCancelE2E(label: string, open: OpenStore): void {
  describe(`runs ending early through the SDK (${label})`, () => {
    const gantry = useGantry(open, RUNS_CONFIG, RUNS_ENV);

    const newThread = async () => (await gantry.client.threads.create()).thread_id;

    /** A `slow` run that waits a minute unless cancelled, seen running before this returns. */
    const runningSlowRun = async (threadId: string, label = "first") => {
      const run = await gantry.client.runs.create(threadId, "slow", { input: { ms: 60_000, label } });
      await runReaches(gantry.client, threadId, run.run_id, "running");
      return run;
    };

    describe("cancel", () => {
      it("interrupts a running run, leaving the run interrupted and the thread idle", async () => {
        const threadId = await newThread();
        const run = await runningSlowRun(threadId);
        await gantry.client.runs.cancel(threadId, run.run_id);
        await runReaches(gantry.client, threadId, run.run_id, "interrupted");
        await threadReaches(gantry.client, threadId, "idle");
      });

      it("answers a cancel with wait=1 only once the run has stopped", async () => {
        const threadId = await newThread();
        const run = await runningSlowRun(threadId);
        await gantry.client.runs.cancel(threadId, run.run_id, true);
        expect((await gantry.client.runs.get(threadId, run.run_id)).status).toBe("interrupted");
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
      });

      it("answers 202 to a cancel without wait and 204 to one with wait", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId, "one");
        expect((await request(gantry.server.url, "POST", `/threads/${threadId}/runs/${first.run_id}/cancel`)).status).toBe(202);
        await runReaches(gantry.client, threadId, first.run_id, "interrupted");
        const second = await runningSlowRun(threadId, "two");
        expect((await request(gantry.server.url, "POST", `/threads/${threadId}/runs/${second.run_id}/cancel?wait=1`)).status).toBe(204);
      });

      it("deletes a running run cancelled with rollback", async () => {
        const threadId = await newThread();
        const run = await runningSlowRun(threadId);
        await gantry.client.runs.cancel(threadId, run.run_id, false, "rollback");
        await runIsGone(gantry.client, threadId, run.run_id);
        await threadReaches(gantry.client, threadId, "idle");
      });

      it("cancels a pending run queued behind another", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId);
        const queued = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "queued" } });
        await gantry.client.runs.cancel(threadId, queued.run_id);
        await runReaches(gantry.client, threadId, queued.run_id, "interrupted");
        expect((await gantry.client.runs.get(threadId, first.run_id)).status).toBe("running");
        await gantry.client.runs.cancel(threadId, first.run_id, true);
        await threadReaches(gantry.client, threadId, "idle");
      });

      // A pending run that is cancelled never reaches a worker, so the server itself must end the
      // event log it opened at creation, or whoever reads it (cancel?wait=1, join, a stream) waits
      // for ever. Each read below gives up after a few seconds so a regression fails quickly.
      const GIVE_UP_MS = 1_500;

      it("answers a cancel with wait=1 of a pending run once it is cancelled", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId);
        const queued = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "queued" } });
        try {
          await gantry.client.runs.cancel(threadId, queued.run_id, true, "interrupt", { signal: AbortSignal.timeout(GIVE_UP_MS) });
          expect((await gantry.client.runs.get(threadId, queued.run_id)).status).toBe("interrupted");
        } finally {
          await gantry.client.runs.cancel(threadId, first.run_id, true);
        }
      });

      it("ends the stream of a pending run that a multitask interrupt cancels", async () => {
        const threadId = await newThread();
        const later = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "later" }, afterSeconds: 60 });
        const streamed = collect(gantry.client.runs.joinStream(threadId, later.run_id, { signal: AbortSignal.timeout(GIVE_UP_MS) }));
        await gantry.client.runs.wait(threadId, "slow", { input: { ms: 1, label: "now" }, multitaskStrategy: "interrupt" });
        expect((await gantry.client.runs.get(threadId, later.run_id)).status).toBe("interrupted");
        await streamed;
      });

      it("deletes a pending run cancelled with rollback at once", async () => {
        const threadId = await newThread();
        const first = await runningSlowRun(threadId);
        const queued = await gantry.client.runs.create(threadId, "slow", { input: { ms: 1, label: "queued" } });
        await gantry.client.runs.cancel(threadId, queued.run_id, false, "rollback");
        await expect(gantry.client.runs.get(threadId, queued.run_id)).rejects.toThrow(/HTTP 404/);
        await gantry.client.runs.cancel(threadId, first.run_id, true);
      });

      it("cancels runs in bulk by id and by status", async () => {
        const byId = await newThread();
        const a = await runningSlowRun(byId);
        expect((await request(gantry.server.url, "POST", "/runs/cancel", { body: { thread_id: byId, run_ids: [a.run_id] } })).status).toBe(204);
        await runReaches(gantry.client, byId, a.run_id, "interrupted");

        const [one, two] = [await newThread(), await newThread()];
        const runs = [await runningSlowRun(one), await runningSlowRun(two)];
        expect((await request(gantry.server.url, "POST", "/runs/cancel", { body: { status: "running" } })).status).toBe(204);
        await runReaches(gantry.client, one, runs[0]!.run_id, "interrupted");
        await runReaches(gantry.client, two, runs[1]!.run_id, "interrupted");
        await threadReaches(gantry.client, one, "idle");
        await threadReaches(gantry.client, two, "idle");
      });

      /** Reads `stream` until its metadata event, then aborts the request the way a closed tab does. */
      const leaveAfterMetadata = async (stream: AsyncIterable<unknown>, controller: AbortController): Promise<string> => {
        let runId: string | undefined;
        try {
          for await (const part of stream) {
            const { event, data } = part as { event: string; data: { run_id: string } };
            if (event === "metadata") {
              runId = data.run_id;
              controller.abort();
            }
          }
        } catch (err) {
          if (!controller.signal.aborted) throw err;
        }
        if (!runId) throw new Error("The stream ended without a metadata event");
        return runId;
      };

      it("cancels a streamed run when its client goes away with on_disconnect cancel", async () => {
        const threadId = await newThread();
        const controller = new AbortController();
        const stream = gantry.client.runs.stream(threadId, "slow", { input: { ms: 60_000, label: "left" }, onDisconnect: "cancel", signal: controller.signal });
        const runId = await leaveAfterMetadata(stream, controller);
        await runReaches(gantry.client, threadId, runId, "interrupted");
        await threadReaches(gantry.client, threadId, "idle");
      });

      it("keeps a streamed run going when its client goes away by default", async () => {
        const threadId = await newThread();
        const controller = new AbortController();
        const stream = gantry.client.runs.stream(threadId, "slow", { input: { ms: 300, label: "kept" }, signal: controller.signal });
        const runId = await leaveAfterMetadata(stream, controller);
        expect(await gantry.client.runs.join(threadId, runId)).toMatchObject({ log: ["kept"] });
        expect((await gantry.client.runs.get(threadId, runId)).status).toBe("success");
      });

      it("cancels a joined run when the joining client goes away with cancel_on_disconnect", async () => {
        const threadId = await newThread();
        const run = await runningSlowRun(threadId);
        const controller = new AbortController();
        const joined = gantry.client.runs.joinStream(threadId, run.run_id, { lastEventId: "-1", cancelOnDisconnect: true, signal: controller.signal });
        await leaveAfterMetadata(joined, controller);
        await runReaches(gantry.client, threadId, run.run_id, "interrupted");
      });

      // The reference's "run cancellation" (auth suite): the owner's cancel of a run that has
      // already finished succeeds and leaves the run as it ended; an unknown run is HTTP 404.
      it("run cancellation: a cancel of a finished run succeeds and leaves it as it ended; an unknown one is HTTP 404", async () => {
        const threadId = await newThread();
        await gantry.client.runs.wait(threadId, "echo", { input: { text: "done" } });
        const [run] = await gantry.client.runs.list(threadId);
        await gantry.client.runs.cancel(threadId, run!.run_id);
        await gantry.client.runs.cancel(threadId, run!.run_id, true);
        expect((await gantry.client.runs.get(threadId, run!.run_id)).status).toBe("success");
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
        await expect(gantry.client.runs.cancel(threadId, randomUUID())).rejects.toThrow(/HTTP 404/);
      });
    });

    describe("a failing graph", () => {
      it("returns __error__ with the error's class and message from wait, and the SDK throws it by default", async () => {
        const output = await gantry.client.runs.wait(await newThread(), "fails", { input: { text: "x" }, raiseError: false });
        expect(output).toEqual({ __error__: { error: "BoomError", message: "boom" } });
        await expect(gantry.client.runs.wait(await newThread(), "fails", { input: { text: "x" } })).rejects.toThrow("BoomError: boom");
      });

      it("ends its stream with an error event", async () => {
        const frames = await collect(gantry.client.runs.stream(await newThread(), "fails", { input: { text: "x" }, streamMode: ["values", "updates"] }));
        expect(names(frames)[0]).toBe("metadata");
        expect(frames.at(-1)).toMatchObject({ event: "error", data: { error: "BoomError", message: "boom" } });
      });

      it("leaves the run and the thread in error, the thread naming the error, and the server keeps serving", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "fails", { input: { text: "x" } });
        expect(await gantry.client.runs.join(threadId, run.run_id)).toEqual({ __error__: { error: "BoomError", message: "boom" } });
        expect((await gantry.client.runs.get(threadId, run.run_id)).status).toBe("error");
        const thread = await gantry.client.threads.get(threadId);
        expect(thread.status).toBe("error");
        expect(JSON.stringify(thread.error)).toMatch(/BoomError[\s\S]*boom/);

        expect(await gantry.client.runs.wait(null, "echo", { input: { text: "still here" } })).toEqual({ text: "still here", reply: "echo: still here" });
      });
    });
  });
}
