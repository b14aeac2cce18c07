// Creating, reading and waiting on runs through the official SDK (raw HTTP for headers and status
// codes the SDK hides), written once and run on each storage backend against one server.
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { useGantry } from "./fixture.js";
import { request } from "./http.js";
import { collect, RUNS_CONFIG, RUNS_ENV, RUNS_HEADERS_CONFIG, runReaches, threadIsGone } from "./runs-support.js";

const ALL_STEPS = Array.from({ length: 10 }, (_, i) => `step_${i}`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Run {
  run_id: string;
  thread_id: string;
  status: string;
}

/** The run as the server stores it: the SDK's Run type leaves kwargs out. */
interface RunRecord extends Run {
  assistant_id: string;
  metadata: Record<string, unknown>;
  kwargs: { input: unknown; stream_mode: string[]; config: { configurable: Record<string, unknown> } };
}

export function describeRunsE2E(label: string, open: OpenStore): void {
  describe(`runs through the SDK (${label})`, () => {
    const gantry = useGantry(open, RUNS_CONFIG, RUNS_ENV);

    const newThread = async () => (await gantry.client.threads.create()).thread_id;

    describe("background runs", () => {
      it("answers a create with a pending run and its Content-Location, and join returns the final values", async () => {
        const threadId = await newThread();
        const created = await request(gantry.server.url, "POST", `/threads/${threadId}/runs`, { body: { assistant_id: "echo", input: { text: "hi" } } });
        expect(created.status).toBe(200);
        const run = created.json as Run;
        expect(run).toMatchObject({ thread_id: threadId, status: "pending" });
        expect(run.run_id).toMatch(UUID);
        expect(created.headers.get("content-location")).toBe(`/threads/${threadId}/runs/${run.run_id}`);

        expect(await gantry.client.runs.join(threadId, run.run_id)).toEqual({ text: "hi", reply: "echo: hi" });
        expect((await gantry.client.runs.get(threadId, run.run_id)).status).toBe("success");
        expect((await gantry.client.threads.get(threadId)).status).toBe("idle");
      });

      it("stores the resolved assistant id, the run's metadata and its invocation on the run", async () => {
        const threadId = await newThread();
        const run = (await gantry.client.runs.create(threadId, "echo", {
          input: { text: "k" },
          metadata: { origin: "e2e" },
          streamMode: ["updates"],
        })) as unknown as RunRecord;
        const { assistant_id: echoAssistant } = (await gantry.client.assistants.search({ graphId: "echo", metadata: { created_by: "system" } }))[0]!;
        expect(run.assistant_id).toBe(echoAssistant);
        expect(run.metadata).toMatchObject({ origin: "e2e" });
        expect(run.kwargs.input).toEqual({ text: "k" });
        expect(run.kwargs.stream_mode).toEqual(["updates"]);
        expect(run.kwargs.config.configurable).toMatchObject({ run_id: run.run_id, thread_id: threadId, graph_id: "echo", assistant_id: echoAssistant });
        // Final values are there for a join even when the run was not asked to stream values.
        expect(await gantry.client.runs.join(threadId, run.run_id)).toEqual({ text: "k", reply: "echo: k" });
      });

      it("gives the graph the run, thread, graph and assistant ids, the run's configurable and its context", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "whoami", { input: {}, config: { configurable: { flavour: "mint" } }, context: { user: "ada" } });
        const output = (await gantry.client.runs.join(threadId, run.run_id)) as { seen: { configurable: Record<string, unknown>; context: unknown } };
        expect(output.seen.configurable).toEqual({
          run_id: run.run_id,
          thread_id: threadId,
          graph_id: "whoami",
          assistant_id: run.assistant_id,
          flavour: "mint",
        });
        expect(output.seen.context).toMatchObject({ user: "ada" });
      });

      it("tells the SDK the new run's id through onRunCreated", async () => {
        const threadId = await newThread();
        let seen: { run_id: string; thread_id?: string } | undefined;
        const run = await gantry.client.runs.create(threadId, "echo", { input: { text: "x" }, onRunCreated: (meta) => (seen = meta) });
        expect(seen).toEqual({ run_id: run.run_id, thread_id: threadId });
        await gantry.client.runs.join(threadId, run.run_id);
      });

      it("lists a thread's runs newest first, filters them by status, pages them and selects fields", async () => {
        const threadId = await newThread();
        const first = await gantry.client.runs.create(threadId, "echo", { input: { text: "1" } });
        await gantry.client.runs.join(threadId, first.run_id);
        const second = await gantry.client.runs.create(threadId, "echo", { input: { text: "2" } });
        await gantry.client.runs.join(threadId, second.run_id);

        const all = await gantry.client.runs.list(threadId);
        expect(all.map((r) => r.run_id)).toEqual([second.run_id, first.run_id]);
        expect((await gantry.client.runs.list(threadId, { status: "success" })).map((r) => r.run_id)).toEqual([second.run_id, first.run_id]);
        expect(await gantry.client.runs.list(threadId, { status: "error" })).toEqual([]);
        expect((await gantry.client.runs.list(threadId, { limit: 1, offset: 1 })).map((r) => r.run_id)).toEqual([first.run_id]);
        expect(await gantry.client.runs.list(threadId, { select: ["run_id", "status"] })).toEqual([
          { run_id: second.run_id, status: "success" },
          { run_id: first.run_id, status: "success" },
        ]);
      });

      it("answers HTTP 404 to a run looked up on another thread, and to the runs of an unknown thread", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "echo", { input: { text: "mine" } });
        await gantry.client.runs.join(threadId, run.run_id);
        await expect(gantry.client.runs.get(await newThread(), run.run_id)).rejects.toThrow(/HTTP 404/);
        await expect(gantry.client.runs.list(randomUUID())).rejects.toThrow(/HTTP 404/);
      });

      it("refuses to delete an active run with HTTP 409 and deletes it with 204 once it has stopped", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "slow", { input: { ms: 60_000, label: "doomed" } });
        await expect(gantry.client.runs.delete(threadId, run.run_id)).rejects.toThrow(/HTTP 409/);

        await gantry.client.runs.cancel(threadId, run.run_id, true);
        const deleted = await request(gantry.server.url, "DELETE", `/threads/${threadId}/runs/${run.run_id}`);
        expect(deleted.status).toBe(204);
        await expect(gantry.client.runs.get(threadId, run.run_id)).rejects.toThrow(/HTTP 404/);
        expect(await gantry.client.runs.list(threadId)).toEqual([]);
      });

      it("keeps a run created with after_seconds pending until its time, then runs it", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "echo", { input: { text: "later" }, afterSeconds: 1 });
        expect(run.status).toBe("pending");
        expect((await gantry.client.runs.get(threadId, run.run_id)).status).toBe("pending");
        expect((await gantry.client.threads.get(threadId)).status).toBe("busy");

        await runReaches(gantry.client, threadId, run.run_id, "success");
        expect(await gantry.client.runs.join(threadId, run.run_id)).toEqual({ text: "later", reply: "echo: later" });
      });

      it("creates a batch of stateless runs, each on its own temporary thread", async () => {
        const created = await request(gantry.server.url, "POST", "/runs/batch", {
          body: [
            { assistant_id: "echo", input: { text: "a" }, on_completion: "keep" },
            { assistant_id: "echo", input: { text: "b" }, on_completion: "keep" },
          ],
        });
        expect(created.status).toBe(200);
        const runs = created.json as Run[];
        expect(runs.map((r) => r.status)).toEqual(["pending", "pending"]);
        expect(runs[0]!.thread_id).not.toBe(runs[1]!.thread_id);

        for (const [run, text] of [
          [runs[0]!, "a"],
          [runs[1]!, "b"],
        ] as const) {
          await runReaches(gantry.client, run.thread_id, run.run_id, "success");
          expect((await gantry.client.threads.get(run.thread_id)).values).toEqual({ text, reply: `echo: ${text}` });
        }
      });

      // The JS SDK sends each payload with its camelCase keys as given plus assistant_id.
      it("accepts the SDK's createBatch payloads, which carry assistantId beside assistant_id", async () => {
        const runs = (await gantry.client.runs.createBatch([
          { assistantId: "echo", input: { text: "a" } },
          { assistantId: "echo", input: { text: "b" } },
        ])) as Run[];
        expect(runs.map((r) => r.status)).toEqual(["pending", "pending"]);
      });
    });

    describe("waiting for the final values", () => {
      it("returns the final values of a run on a thread", async () => {
        const threadId = await newThread();
        expect(await gantry.client.runs.wait(threadId, "chain", { input: {} })).toEqual({ steps: ALL_STEPS });
        const thread = await gantry.client.threads.get(threadId);
        expect(thread).toMatchObject({ status: "idle", values: { steps: ALL_STEPS } });
        expect(thread.metadata).toMatchObject({ graph_id: "chain" });
      });

      it("keeps a long wait alive with newlines before the final values, which the SDK still reads", async () => {
        const threadId = await newThread();
        const response = await request(gantry.server.url, "POST", `/threads/${threadId}/runs/wait`, {
          body: { assistant_id: "slow", input: { ms: 1500, label: "long" } },
        });
        expect(response.status).toBe(200);
        expect(response.text.startsWith("\n")).toBe(true);
        expect(response.json).toMatchObject({ log: ["long"] });
        expect(await gantry.client.runs.wait(threadId, "slow", { input: { ms: 1200, label: "again" } })).toMatchObject({ log: ["long", "again"] });
      });

      // One compiled graph serves every run of it; runs overlapping must not swap checkpointers.
      it("records on each checkpoint the run that wrote it, while runs of one graph overlap", async () => {
        const threads = await Promise.all(Array.from({ length: 6 }, newThread));
        const runs = await Promise.all(threads.map((threadId) => gantry.client.runs.create(threadId, "chain", { input: {} })));
        await Promise.all(runs.map((run) => gantry.client.runs.join(run.thread_id, run.run_id)));
        for (const run of runs) {
          const history = await gantry.client.threads.getHistory(run.thread_id, { limit: 20 });
          expect(history).toHaveLength(12);
          expect(new Set(history.map((state) => state.metadata?.run_id))).toEqual(new Set([run.run_id]));
        }
      });

      it("runs a stateless wait with threadId null", async () => {
        let created: { run_id: string; thread_id?: string } | undefined;
        const output = await gantry.client.runs.wait(null, "echo", { input: { text: "stateless" }, onRunCreated: (meta) => (created = meta) });
        expect(output).toEqual({ text: "stateless", reply: "echo: stateless" });
        // A stateless Content-Location names only the run, so the SDK reports no thread id.
        expect(created?.run_id).toMatch(UUID);
        expect(created?.thread_id).toBeUndefined();
      });

      it("answers a wait with Content-Location and a Location where the result can be fetched again", async () => {
        const threadId = await newThread();
        const response = await request(gantry.server.url, "POST", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "echo", input: { text: "w" } } });
        expect(response.status).toBe(200);
        expect(response.json).toEqual({ text: "w", reply: "echo: w" });
        const location = response.headers.get("content-location");
        expect(location).toMatch(new RegExp(`^/threads/${threadId}/runs/[0-9a-f-]{36}$`));
        const again = await request(gantry.server.url, "GET", response.headers.get("location")!);
        expect(again.status).toBe(200);
        expect(again.json).toEqual({ text: "w", reply: "echo: w" });
      });

      it("gives a stateless wait no Location that leads nowhere", async () => {
        const response = await request(gantry.server.url, "POST", "/runs/wait", {
          body: { assistant_id: "echo", input: { text: "w" }, on_completion: "keep" },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-location")).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
        const location = response.headers.get("location");
        if (location !== null) expect((await request(gantry.server.url, "GET", location)).status).toBe(200);
      });

      it("deletes the temporary thread of a stateless run by default and keeps it with on_completion keep", async () => {
        const runThread = async (onCompletion?: "keep" | "delete") => {
          const created = await request(gantry.server.url, "POST", "/runs", {
            body: { assistant_id: "echo", input: { text: onCompletion ?? "default" }, ...(onCompletion ? { on_completion: onCompletion } : {}) },
          });
          expect(created.status).toBe(200);
          const run = created.json as Run;
          expect(created.headers.get("content-location")).toBe(`/runs/${run.run_id}`);
          return run;
        };

        const kept = await runThread("keep");
        await runReaches(gantry.client, kept.thread_id, kept.run_id, "success");
        expect(await gantry.client.threads.get(kept.thread_id)).toMatchObject({ status: "idle", values: { text: "keep", reply: "echo: keep" } });
        const replay = await collect(gantry.client.runs.joinStream(null, kept.run_id, { lastEventId: "-1" }));
        expect(replay.at(-1)).toMatchObject({ event: "values", data: { text: "keep", reply: "echo: keep" } });

        await threadIsGone(gantry.client, (await runThread("delete")).thread_id);
        await threadIsGone(gantry.client, (await runThread()).thread_id);
      });
    });
  });

  describe(`runs on a configured server (${label})`, () => {
    const gantry = useGantry(open, RUNS_HEADERS_CONFIG, { ...RUNS_ENV, N_JOBS_PER_WORKER: "1" });

    it("passes the request headers http.configurable_headers lets through into configurable, never the secret ones", async () => {
      const withHeaders = new Client({
        apiUrl: gantry.server.url,
        callerOptions: { maxRetries: 0 },
        defaultHeaders: { "x-user-id": "u-1", "x-request-id": "r-1", "x-user-secret": "hidden", "x-api-key": "key", "x-tenant-id": "t-1", "user-agent": "e2e" },
      });
      const output = (await withHeaders.runs.wait(null, "whoami", { input: {} })) as { seen: { configurable: Record<string, unknown> } };
      const headers = Object.fromEntries(Object.entries(output.seen.configurable).filter(([key]) => key.startsWith("x-")));
      expect(headers).toEqual({ "x-user-id": "u-1", "x-request-id": "r-1" });
    });

    it("executes no more runs at once than N_JOBS_PER_WORKER", async () => {
      const busyThread = (await gantry.client.threads.create()).thread_id;
      const busy = await gantry.client.runs.create(busyThread, "slow", { input: { ms: 60_000, label: "holding the only slot" } });
      await runReaches(gantry.client, busyThread, busy.run_id, "running");

      const otherThread = (await gantry.client.threads.create()).thread_id;
      const queued = await gantry.client.runs.create(otherThread, "whoami", { input: {} });
      // A free slot would take it within milliseconds; with the one slot held it stays pending.
      for (let i = 0; i < 10; i++) {
        expect((await gantry.client.runs.get(otherThread, queued.run_id)).status).toBe("pending");
        await new Promise((wake) => setTimeout(wake, 50));
      }

      await gantry.client.runs.cancel(busyThread, busy.run_id, true);
      await runReaches(gantry.client, otherThread, queued.run_id, "success");
    });
  });
}
