// The thread-centric protocol (v2) over a WebSocket, end to end through the official SDK's
// `client.threads.stream({ transport: "websocket" })`: every channel, subgraph namespaces, an
// interrupt answered with input.respond, a socket dropped mid-run and reconnected, and malformed
// frames. The SSE twin is protocol.cases.ts; both read the same protocol log.
import { randomUUID } from "node:crypto";
import type { Event } from "@langchain/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { startDroppingWebSocketProxy } from "./dropping-proxy.js";
import { useGantry } from "./fixture.js";
import { sdkClient } from "./http.js";
import { PROTOCOL_CONFIG, settledRun } from "./protocol.cases.js";
import { collectRun, expectOrdered, lifecycleOf } from "./protocol-support.js";
import { openSocket, webSocketFactory } from "./protocol-ws-support.js";

const dataOf = <T = Record<string, unknown>>(event: Event) => event.params.data as T;
const ofMethod = (events: Event[], method: string) => events.filter((e) => e.method === method);

type Client = ReturnType<typeof sdkClient>;

/** A ThreadStream on the WebSocket transport; `ws` sockets, as Node 20 has no global WebSocket. */
export function webSocketThread(client: Client, assistantId: string, options: Record<string, unknown> = {}) {
  return client.threads.stream({ assistantId, transport: "websocket", webSocketFactory: webSocketFactory(), ...options } as never);
}

export function describeProtocolWebSocketE2E(backend: string, open: OpenStore): void {
  describe(`protocol v2 over WebSocket (${backend})`, () => {
    const gantry = useGantry(open, PROTOCOL_CONFIG);

    it("streams values, updates, checkpoints, tasks and lifecycle, and the run is visible to the classic API", async () => {
      const thread = webSocketThread(gantry.client, "chain");
      let runId = "";
      const events = await collectRun(thread, async () => {
        runId = (await thread.run.start({ input: { text: "hi" } })).run_id!;
      });
      await thread.close();
      expectOrdered(events);
      expect(lifecycleOf(events)).toEqual(["running", "completed"]);
      for (const method of ["values", "updates", "checkpoints", "tasks"]) expect(ofMethod(events, method).length, method).toBeGreaterThan(0);
      const finalValues = dataOf(ofMethod(events, "values").at(-1)!);
      expect(await settledRun(gantry.client, thread.threadId, runId)).toBe("success");
      expect((await gantry.client.threads.getState(thread.threadId)).values).toEqual(finalValues);
    });

    it("streams a chat model's message deltas (and the SDK's assembled messages and output), tool calls and custom events", async () => {
      const chat = webSocketThread(gantry.client, "chat");
      const messages = await collectRun(chat, () => chat.run.start({ input: { messages: [{ role: "user", content: "hi" }] } }), {
        channels: ["messages", "values"],
      });
      await chat.close();
      const deltas = ofMethod(messages, "messages").map((e) => dataOf<{ event: string; delta?: { text?: string } }>(e));
      expect(deltas[0]!.event).toBe("message-start");
      expect(deltas.at(-1)!.event).toBe("message-finish");
      expect(
        deltas
          .filter((m) => m.event === "content-block-delta")
          .map((m) => m.delta?.text ?? "")
          .join(""),
      ).toBe("hello there");

      // The SDK's own projections over the socket: assembled messages and the run's final output.
      const again = webSocketThread(gantry.client, "chat");
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

      const tools = webSocketThread(gantry.client, "tools");
      const toolEvents = await collectRun(tools, () => tools.run.start({ input: { messages: [] } }), { channels: ["tools"] });
      await tools.close();
      expect(ofMethod(toolEvents, "tools").map((e) => dataOf<{ event: string }>(e).event)).toEqual(["tool-started", "tool-finished"]);

      const custom = webSocketThread(gantry.client, "custom");
      const customEvents = await collectRun(custom, () => custom.run.start({ input: { count: 3 } }), { channels: ["custom"] });
      await custom.close();
      expect(ofMethod(customEvents, "custom").map((e) => dataOf(e).payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
      // The subscription asked for custom (and lifecycle) only: nothing else came.
      expect(new Set(customEvents.map((e) => e.method))).toEqual(new Set(["custom", "lifecycle"]));
    });

    it("names a subgraph's events by namespace, narrows a subscription by namespace, and shows the agent tree", async () => {
      const thread = webSocketThread(gantry.client, "parent");
      const events = await collectRun(thread, () => thread.run.start({ input: { trail: [] } }));
      const child = events.filter((e) => e.params.namespace.length === 1);
      const childNs = child[0]!.params.namespace;
      expect(childNs[0]).toMatch(/^child:/);
      expect(lifecycleOf(events, childNs)).toEqual(["started", "completed"]);
      const tree = (await thread.agent.getTree()) as { tree: { status: string; children?: Array<{ namespace: string[] }> } };
      expect(tree.tree).toMatchObject({ status: "completed" });
      expect(tree.tree.children).toEqual([expect.objectContaining({ namespace: childNs })]);
      await thread.close();

      // A raw socket subscribing to the child's values only gets them replayed, and nothing else.
      const socket = await openSocket(gantry.server.url, thread.threadId);
      const childValues = child.filter((e) => e.method === "values").length;
      const answer = await socket.command(1, "subscription.subscribe", { channels: ["values"], namespaces: [["child"]], depth: 0 });
      expect(answer).toMatchObject({ type: "success", result: { subscription_id: expect.any(String) } });
      await socket.until((frames) => frames.filter((f) => f.type === "event").length >= childValues, "the child's values");
      const replayed = socket.frames.filter((f) => f.type === "event") as unknown as Event[];
      expect(replayed.every((e) => e.method === "values" && e.params.namespace[0] === childNs[0])).toBe(true);
      expect(socket.frames.indexOf(answer)).toBe(0);
      socket.socket.close();
    });

    it("asks for input at an interrupt and resumes with input.respond on the same socket", async () => {
      const thread = webSocketThread(gantry.client, "interrupt");
      const first = await collectRun(thread, () => thread.run.start({ input: { text: "x" } }));
      expect(lifecycleOf(first)).toEqual(["running", "interrupted"]);
      const requested = ofMethod(first, "input.requested").map((e) => dataOf<{ interrupt_id: string; payload: unknown }>(e));
      expect(requested).toEqual([{ interrupt_id: expect.any(String), payload: "question" }]);

      const lastOfFirst = first.at(-1)!.seq!;
      const resumed = await collectRun(thread, () => thread.input.respond({ namespace: [], interrupt_id: requested[0]!.interrupt_id, response: "yes" }));
      // A new subscription replays the thread's earlier run first; the resumed run follows it.
      const second = resumed.filter((e) => e.seq! > lastOfFirst);
      expect(lifecycleOf(second)).toEqual(["running", "completed"]);
      expectOrdered([...first, ...second]);
      const state = (await thread.state.get({ namespace: [] } as never)) as { values: Record<string, unknown> };
      expect(state.values).toMatchObject({ text: "x", answer: "got yes" });
      await thread.close();
    });

    describe("a socket dropped mid-run", () => {
      let proxy: Awaited<ReturnType<typeof startDroppingWebSocketProxy>>;
      beforeAll(async () => {
        proxy = await startDroppingWebSocketProxy(gantry.server.url, 8);
      });
      afterAll(async () => {
        await proxy?.close();
      });

      it("reconnects, subscribes again and loses or repeats nothing", async () => {
        const thread = webSocketThread(sdkClient(proxy.url), "ticker", { reconnectDelayMs: () => 50 });
        const events = await collectRun(thread, () => thread.run.start({ input: { count: 40, ms: 25 } }));
        await thread.close();
        expect(proxy.dropped()).toBe(true);
        expect(proxy.requests.filter((head) => /^GET \/threads\/\S+\/stream\/events /.test(head)).length).toBeGreaterThanOrEqual(2);
        expectOrdered(events);
        const seqs = events.map((e) => e.seq!);
        expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
        expect(ofMethod(events, "custom").map((e) => (dataOf(e).payload as { tick: number }).tick)).toEqual([...Array(40).keys()]);
        expect(lifecycleOf(events)).toEqual(["running", "completed"]);
      });
    });

    it("answers malformed frames with the protocol's error frame and keeps the socket open", async () => {
      const socket = await openSocket(gantry.server.url, randomUUID());
      socket.socket.send("{oops");
      socket.socket.send(JSON.stringify({ id: "one", method: "state.get" }));
      await socket.until((frames) => frames.length >= 2, "two error frames");
      expect(socket.frames[0]).toMatchObject({ type: "error", id: null, error: "invalid_argument", message: expect.stringMatching(/valid JSON/) });
      expect(socket.frames[1]).toMatchObject({ type: "error", id: null, error: "invalid_argument", message: expect.stringContaining("'id'") });
      expect(await socket.command(3, "run.fly")).toMatchObject({ type: "error", id: 3, error: "unknown_command" });
      expect(await socket.command(4, "run.start", { input: {} })).toMatchObject({ type: "error", id: 4, error: "invalid_argument" });
      expect(await socket.command(5, "subscription.subscribe", { channels: ["telepathy"] })).toMatchObject({ type: "error", id: 5, error: "invalid_argument" });
      expect(socket.socket.readyState).toBe(socket.socket.OPEN);
      socket.socket.close();
    });
  });
}
