// The thread-centric protocol (v2) end to end through the official SDK's `client.threads.stream()`
// (SSE transport): every channel, subgraph namespaces, interrupts and input.respond, multitask
// strategies, a dropped stream, and bad input; and that a protocol run is an ordinary run to the
// classic API. One server for the file.
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import type { Event } from "@langchain/protocol";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { eventually, request } from "./http.js";
import { collectRun, dropAfter, expectOrdered, lifecycleOf, readEvents } from "./protocol-support.js";

export const PROTOCOL_CONFIG = fixture("protocol", "langgraph.json");

const dataOf = <T = Record<string, unknown>>(event: Event) => event.params.data as T;
const ofMethod = (events: Event[], method: string) => events.filter((e) => e.method === method);

/** The terminal lifecycle event is written just before the run's outcome is stored: the classic status follows it. */
export const settledRun = (client: Client, threadId: string, runId: string) =>
  eventually(
    `run ${runId} to settle`,
    async () => {
      const { status } = await client.runs.get(threadId, runId);
      return status === "running" || status === "pending" ? undefined : status;
    },
    30_000,
  );
const settledThread = (client: Client, threadId: string) =>
  eventually(
    `thread ${threadId} to settle`,
    async () => {
      const { status } = await client.threads.get(threadId);
      return status === "busy" ? undefined : status;
    },
    30_000,
  );

export function describeProtocolE2E(backend: string, open: OpenStore): void {
  describe(`protocol v2 over SSE (${backend})`, () => {
    const gantry = useGantry(open, PROTOCOL_CONFIG);

    it("streams values, updates, checkpoints, tasks and lifecycle, and the run is visible to the classic API", async () => {
      const thread = gantry.client.threads.stream({ assistantId: "chain" });
      let runId = "";
      const events = await collectRun(thread, async () => {
        runId = (await thread.run.start({ input: { text: "hi" } })).run_id!;
      });
      await thread.close();
      expectOrdered(events);
      expect(lifecycleOf(events)).toEqual(["running", "completed"]);
      expect(ofMethod(events, "values").length).toBeGreaterThan(0);
      expect(ofMethod(events, "updates").every((e) => typeof (e.params as { node?: unknown }).node === "string")).toBe(true);
      expect(ofMethod(events, "checkpoints").length).toBeGreaterThan(0);
      expect(ofMethod(events, "tasks").length).toBeGreaterThan(0);
      const finalValues = dataOf(ofMethod(events, "values").at(-1)!);

      expect(await settledRun(gantry.client, thread.threadId, runId)).toBe("success");
      expect(await gantry.client.runs.join(thread.threadId, runId)).toEqual(finalValues);
      expect((await gantry.client.threads.getState(thread.threadId)).values).toEqual(finalValues);

      // A classic run on the thread shows on its protocol stream too, and state.get reads its outcome.
      const follower = gantry.client.threads.stream(thread.threadId, { assistantId: "chain" });
      let classicId = "";
      const classic = await collectRun(
        follower,
        async () => {
          classicId = (await gantry.client.runs.create(thread.threadId, "chain", { input: { text: "classic" } })).run_id;
        },
        { afterSeq: events.at(-1)!.seq! },
      );
      expectOrdered([...events, ...classic]);
      expect(lifecycleOf(classic)).toEqual(["running", "completed"]);
      const classicValues = dataOf(ofMethod(classic, "values").at(-1)!);
      expect(await gantry.client.runs.join(thread.threadId, classicId)).toEqual(classicValues);
      expect(((await follower.state.get({ namespace: [] } as never)) as { values: unknown }).values).toEqual(classicValues);
      await follower.close();
    });

    it("streams a chat model's message as content-block deltas", async () => {
      const thread = gantry.client.threads.stream({ assistantId: "chat" });
      const events = await collectRun(thread, () => thread.run.start({ input: { messages: [{ role: "user", content: "hi" }] } }), {
        channels: ["messages", "values"],
      });
      await thread.close();
      const messages = ofMethod(events, "messages").map((e) => dataOf<{ event: string; delta?: { text?: string } }>(e));
      expect(messages[0]!.event).toBe("message-start");
      expect(messages.at(-1)!.event).toBe("message-finish");
      const text = messages
        .filter((m) => m.event === "content-block-delta")
        .map((m) => m.delta?.text ?? "")
        .join("");
      expect(text).toBe("hello there");
      const last = dataOf<{ messages: Array<{ type: string; content: unknown }> }>(ofMethod(events, "values").at(-1)!);
      expect(last.messages.map((m) => m.type)).toEqual(["human", "ai"]);

      // The SDK's own projections over the same events: assembled messages and the final output.
      const again = gantry.client.threads.stream({ assistantId: "chat" });
      const assembled = again.messages;
      const output = again.output;
      await again.run.start({ input: { messages: [{ role: "user", content: "again" }] } });
      const texts: string[] = [];
      for await (const message of assembled) {
        texts.push(await (message as unknown as { text: PromiseLike<string> }).text);
        break;
      }
      expect(texts).toEqual(["hello there"]);
      expect(((await output) as { messages: unknown[] }).messages).toHaveLength(2);
      await again.close();
    });

    it("streams tool calls and custom events", async () => {
      const tools = gantry.client.threads.stream({ assistantId: "tools" });
      const toolEvents = await collectRun(tools, () => tools.run.start({ input: { messages: [] } }), { channels: ["tools"] });
      await tools.close();
      const tool = ofMethod(toolEvents, "tools").map((e) => dataOf<{ event: string; tool_call_id: string; tool_name?: string }>(e));
      expect(tool.map((t) => t.event)).toEqual(["tool-started", "tool-finished"]);
      expect(tool[0]).toMatchObject({ tool_call_id: "call-1", tool_name: "add" });

      const custom = gantry.client.threads.stream({ assistantId: "custom" });
      const customEvents = await collectRun(custom, () => custom.run.start({ input: { count: 3 } }), { channels: ["custom"] });
      await custom.close();
      expect(ofMethod(customEvents, "custom").map((e) => dataOf(e).payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    });

    it("names a subgraph's events by namespace, filters by namespace and depth, and shows the agent tree", async () => {
      const thread = gantry.client.threads.stream({ assistantId: "parent" });
      const events = await collectRun(thread, () => thread.run.start({ input: { trail: [] } }));
      const child = events.filter((e) => e.params.namespace.length === 1);
      expect(child.length).toBeGreaterThan(0);
      const childNs = child[0]!.params.namespace;
      expect(childNs[0]).toMatch(/^child:/);
      expect(lifecycleOf(events, childNs)).toEqual(["started", "completed"]);
      expect(child.some((e) => e.method === "values")).toBe(true);

      const tree = (await thread.agent.getTree()) as {
        tree: { status: string; graph_name: string; children?: Array<{ namespace: string[]; status: string }> };
      };
      expect(tree.tree).toMatchObject({ status: "completed", graph_name: "parent" });
      expect(tree.tree.children).toEqual([expect.objectContaining({ namespace: childNs, status: "completed" })]);
      await thread.close();

      // A filter on the child's namespace (by its name, without the task id) and values only.
      const childValues = child.filter((e) => e.method === "values").length;
      const onlyChild = await readEvents(
        gantry.server.url,
        thread.threadId,
        { channels: ["values"], namespaces: [["child"]], depth: 0 },
        (got) => got.length >= childValues,
      );
      expect(onlyChild.events.length).toBe(childValues);
      expect(onlyChild.events.every((e) => e.method === "values" && e.params.namespace[0] === childNs[0])).toBe(true);
      // `since` skips what the client has.
      const last = events.at(-1)!.seq!;
      const after = await readEvents(gantry.server.url, thread.threadId, { channels: ["lifecycle"], since: last - 1 }, (got) => got.length >= 1, 3_000);
      expect(after.events.map((e) => e.seq)).toEqual([last]);
    });

    it("asks for input at an interrupt and resumes with input.respond", async () => {
      const thread = gantry.client.threads.stream({ assistantId: "interrupt" });
      const first = await collectRun(thread, () => thread.run.start({ input: { text: "x" } }));
      expect(lifecycleOf(first)).toEqual(["running", "interrupted"]);
      const requested = ofMethod(first, "input.requested").map((e) => dataOf<{ interrupt_id: string; payload: unknown }>(e));
      expect(requested).toEqual([{ interrupt_id: expect.any(String), payload: "question" }]);
      expect(ofMethod(first, "values").every((e) => !("__interrupt__" in dataOf(e)))).toBe(true);
      expect(await settledThread(gantry.client, thread.threadId)).toBe("interrupted");

      const second = await collectRun(thread, () => thread.input.respond({ namespace: [], interrupt_id: requested[0]!.interrupt_id, response: "yes" }));
      expect(lifecycleOf(second)).toEqual(["running", "completed"]);
      expectOrdered([...first, ...second]);
      const state = (await thread.state.get({ namespace: [] } as never)) as { values: Record<string, unknown> };
      expect(state.values).toMatchObject({ text: "x", answer: "got yes" });
      const keys = (await thread.state.get({ namespace: [], keys: ["answer"] } as never)) as { values: Record<string, unknown> };
      expect(keys.values).toEqual({ answer: "got yes" });
      await thread.close();
    });

    it("ends a run whose graph throws as failed, with the thread in error", async () => {
      const thread = gantry.client.threads.stream({ assistantId: "fails" });
      let runId = "";
      const events = await collectRun(thread, async () => {
        runId = (await thread.run.start({ input: { text: "x" } })).run_id!;
      });
      await thread.close();
      const root = events.filter((e) => e.method === "lifecycle" && e.params.namespace.length === 0).map((e) => dataOf(e));
      expect(root.at(-1)).toMatchObject({ event: "failed", error: "boom" });
      expect(await settledRun(gantry.client, thread.threadId, runId)).toBe("error");
      expect(await settledThread(gantry.client, thread.threadId)).toBe("error");
    });

    it("applies each multitask strategy on run.start, and a classic cancel ends the run as interrupted", async () => {
      const { client } = gantry;
      const running = (threadId: string, runId: string) =>
        eventually(`run ${runId} running`, async () => ((await client.runs.get(threadId, runId)).status === "running" ? true : undefined));

      // reject: refused while the thread is busy; then the first run is cancelled through the classic API.
      const rejecting = client.threads.stream({ assistantId: "slow" });
      let first = "";
      const rejected = await collectRun(rejecting, async () => {
        first = (await rejecting.run.start({ input: { ms: 60_000, label: "a" } })).run_id!;
        await running(rejecting.threadId, first);
        await expect(rejecting.run.start({ input: { ms: 10, label: "b" }, multitaskStrategy: "reject" } as never)).rejects.toThrow(/409/);
        await client.runs.cancel(rejecting.threadId, first);
      });
      await rejecting.close();
      expect(lifecycleOf(rejected)).toEqual(["running", "interrupted"]);
      expect(await settledRun(client, rejecting.threadId, first)).toBe("interrupted");

      for (const strategy of ["interrupt", "rollback", "enqueue"] as const) {
        const thread = client.threads.stream({ assistantId: "slow" });
        let a = "";
        let b = "";
        const events = await collectRun(
          thread,
          async () => {
            a = (await thread.run.start({ input: { ms: strategy === "enqueue" ? 500 : 60_000, label: "a" } })).run_id!;
            await running(thread.threadId, a);
            b = (await thread.run.start({ input: { ms: 10, label: "b" }, multitaskStrategy: strategy } as never)).run_id!;
          },
          { terminals: 2 },
        );
        await thread.close();
        expectOrdered(events);
        const state = (await client.threads.getState(thread.threadId)).values as { log: string[] };
        if (strategy === "enqueue") {
          expect(lifecycleOf(events)).toEqual(["running", "completed", "running", "completed"]);
          expect(state.log).toEqual(["a", "b"]);
        } else {
          expect(lifecycleOf(events)).toEqual(["running", "interrupted", "running", "completed"]);
          expect(state.log).toEqual(["b"]);
        }
        expect(await settledRun(client, thread.threadId, b)).toBe("success");
        if (strategy === "rollback") await expect(client.runs.get(thread.threadId, a)).rejects.toThrow(/404|not found/i);
        else expect(await settledRun(client, thread.threadId, a)).toBe(strategy === "enqueue" ? "success" : "interrupted");
      }
    });

    it("loses and repeats nothing when the stream drops mid-run and the SDK reconnects", async () => {
      const dropping = dropAfter(5);
      const thread = gantry.client.threads.stream({ assistantId: "ticker", fetch: dropping.fetch, reconnectDelayMs: () => 50 } as never);
      const events = await collectRun(thread, () => thread.run.start({ input: { count: 40, ms: 25 } }));
      await thread.close();
      expect(dropping.dropped()).toBe(true);
      expectOrdered(events);
      // Every event of the run, contiguous: nothing lost across the reconnect.
      const seqs = events.map((e) => e.seq!);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
      expect(ofMethod(events, "custom").map((e) => (dataOf(e).payload as { tick: number }).tick)).toEqual([...Array(40).keys()]);
      expect(lifecycleOf(events)).toEqual(["running", "completed"]);
    });

    it("neither holds a run back for a reader that does not read nor drops what that reader has not read", async () => {
      const { url } = gantry.server;
      const thread = await gantry.client.threads.create();
      const abort = new AbortController();
      // Opened, then left unread while the run writes 3000 events.
      const response = await fetch(`${url}/threads/${thread.thread_id}/stream/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["custom", "lifecycle"] }),
        signal: abort.signal,
      });
      const started = await request(url, "POST", `/threads/${thread.thread_id}/commands`, {
        body: { id: 1, method: "run.start", params: { assistant_id: "custom", input: { count: 3000 } } },
      });
      const runId = (started.json as { result: { run_id: string } }).result.run_id;
      expect(await settledRun(gantry.client, thread.thread_id, runId)).toBe("success");

      const decoder = new TextDecoder();
      const events: Event[] = [];
      let buffer = "";
      try {
        for await (const chunk of response.body!) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          const frames = buffer.split("\n\n");
          buffer = frames.pop()!;
          for (const frame of frames) {
            const data = frame.split("\n").find((line) => line.startsWith("data: "));
            if (data) events.push(JSON.parse(data.slice(6)) as Event);
          }
          if (lifecycleOf(events).includes("completed")) break;
        }
      } finally {
        abort.abort();
      }
      expectOrdered(events);
      expect(ofMethod(events, "custom").map((e) => (dataOf(e).payload as { n: number }).n)).toEqual([...Array(3000).keys()]);
    });

    it("keeps an idle stream alive with heartbeats", async () => {
      const thread = await gantry.client.threads.create();
      const abort = new AbortController();
      const response = await fetch(`${gantry.server.url}/threads/${thread.thread_id}/stream/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["values", "lifecycle"] }),
        signal: abort.signal,
      });
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const decoder = new TextDecoder();
      let text = "";
      const timer = setTimeout(() => abort.abort(), 15_000);
      try {
        for await (const chunk of response.body!) {
          text += decoder.decode(chunk as Uint8Array);
          if (text.includes(": heartbeat")) break;
        }
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
      expect(text).toContain(": heartbeat");
    });

    it("answers bad input with the protocol's error shape", async () => {
      const url = gantry.server.url;
      const unknown = randomUUID();
      const state = await request(url, "POST", `/threads/${unknown}/commands`, { body: { id: 1, method: "state.get", params: { namespace: [] } } });
      expect(state.status).toBe(404);
      expect(state.json).toMatchObject({ type: "error", id: 1, message: expect.stringContaining(unknown) });

      const noMethod = await request(url, "POST", `/threads/${unknown}/commands`, { body: { id: 2 } });
      expect(noMethod.status).toBe(422);
      expect(noMethod.json).toMatchObject({ type: "error", id: null, error: "invalid_argument", message: expect.stringContaining("'method'") });

      const noAssistant = await request(url, "POST", `/threads/${unknown}/commands`, { body: { id: 3, method: "run.start", params: { input: {} } } });
      expect(noAssistant.status).toBe(200);
      expect(noAssistant.json).toMatchObject({ type: "error", id: 3, error: "invalid_argument", message: expect.stringContaining("assistant_id") });

      const unknownCommand = await request(url, "POST", `/threads/${unknown}/commands`, { body: { id: 4, method: "run.fly" } });
      expect(unknownCommand.json).toMatchObject({ type: "error", id: 4, error: "unknown_command" });

      const badChannel = await request(url, "POST", `/threads/${unknown}/stream/events`, { body: { channels: ["telepathy"] } });
      expect(badChannel.status).toBe(422);
      expect(badChannel.json).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining("channels") });

      const noRespond = await request(url, "POST", `/threads/${unknown}/commands`, {
        body: { id: 5, method: "input.respond", params: { interrupt_id: "nope", response: 1 } },
      });
      expect(noRespond.status).toBe(404);
    });
  });
}

export type { Event };
