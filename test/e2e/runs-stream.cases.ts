// Run streams through the official SDK: every stream mode's event names and shapes, subgraph
// namespacing, the SSE headers, joining a stream late or again with Last-Event-ID, and the SDK's
// own reconnect after a dropped connection. Written once and run on each storage backend against
// one server.
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { startDroppingProxy } from "./dropping-proxy.js";
import { useGantry } from "./fixture.js";
import { detailOf, eventually, request, sdkClient } from "./http.js";
import { collect, framesNamed, names, RUNS_CONFIG, RUNS_ENV, runReaches, type Frame } from "./runs-support.js";

const ALL_STEPS = Array.from({ length: 10 }, (_, i) => `step_${i}`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function describeRunStreamsE2E(label: string, open: OpenStore): void {
  describe(`run streams through the SDK (${label})`, () => {
    const gantry = useGantry(open, RUNS_CONFIG, RUNS_ENV);

    const newThread = async () => (await gantry.client.threads.create()).thread_id;

    describe("streaming", () => {
      const streamOn = async (graph: string, payload: Record<string, unknown>) => collect(gantry.client.runs.stream(await newThread(), graph, payload));

      it("sends metadata first with the run id and attempt, then a values event per superstep", async () => {
        const frames = await streamOn("chain", { input: {}, streamMode: "values" });
        expect(frames[0]!.event).toBe("metadata");
        expect(frames[0]!.data).toMatchObject({ run_id: expect.stringMatching(UUID), attempt: 1 });
        expect(new Set(names(frames.slice(1)))).toEqual(new Set(["values"]));
        const values = frames.slice(1).map((f) => (f.data as { steps: string[] }).steps);
        expect(values.length).toBeGreaterThanOrEqual(10);
        for (const steps of values) expect(steps).toEqual(ALL_STEPS.slice(0, steps.length));
        expect(values.map((steps) => steps.length)).toEqual([...values.map((steps) => steps.length)].sort((a, b) => a - b));
        expect(values.at(-1)).toEqual(ALL_STEPS);
      });

      it("gives every event a distinct id", async () => {
        const frames = await streamOn("echo", { input: { text: "ids" }, streamMode: ["values", "updates"] });
        const ids = frames.map((f) => f.id);
        for (const id of ids) expect(id).toEqual(expect.any(String));
        expect(new Set(ids).size).toBe(ids.length);
      });

      it("streams one updates event per node, named by the node, in order", async () => {
        const frames = await streamOn("chain", { input: {}, streamMode: "updates" });
        expect(names(frames)).toEqual(["metadata", ...ALL_STEPS.map(() => "updates")]);
        expect(frames.slice(1).map((f) => f.data)).toEqual(ALL_STEPS.map((step) => ({ [step]: { steps: [step] } })));
      });

      it("streams what a node writes with config.writer as custom events", async () => {
        const frames = await streamOn("custom", { input: { count: 3 }, streamMode: "custom" });
        expect(names(frames)).toEqual(["metadata", "custom", "custom", "custom"]);
        expect(frames.slice(1).map((f) => f.data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
      });

      it("streams debug events of type checkpoint, task and task_result", async () => {
        const frames = framesNamed(await streamOn("echo", { input: { text: "dbg" }, streamMode: "debug" }), "debug");
        const data = frames.map((f) => f.data as { type: string; step: number; timestamp: string; payload: Record<string, unknown> });
        expect(new Set(data.map((d) => d.type))).toEqual(new Set(["checkpoint", "task", "task_result"]));
        for (const d of data) {
          expect(d.step).toEqual(expect.any(Number));
          expect(Number.isNaN(Date.parse(d.timestamp))).toBe(false);
        }
        const checkpoint = data.find((d) => d.type === "checkpoint")!.payload;
        expect(Object.keys(checkpoint)).toEqual(expect.arrayContaining(["config", "values", "metadata", "next", "tasks"]));
        expect(data.find((d) => d.type === "task")!.payload).toMatchObject({ name: "echo", input: { text: "dbg" } });
        expect(data.find((d) => d.type === "task_result")!.payload).toMatchObject({ name: "echo" });
      });

      it("streams a tasks event when a node starts and another with its result", async () => {
        const frames = framesNamed(await streamOn("echo", { input: { text: "t" }, streamMode: "tasks" }), "tasks");
        expect(frames).toHaveLength(2);
        const [start, result] = frames.map((f) => f.data as Record<string, unknown>);
        expect(start).toMatchObject({ id: expect.any(String), name: "echo", input: { text: "t" }, triggers: expect.any(Array), interrupts: [] });
        expect(result).toMatchObject({ id: start!.id, name: "echo", interrupts: [] });
        expect(result).toHaveProperty("result");
        expect(result).not.toHaveProperty("input");
      });

      it("streams a checkpoints event per checkpoint with values, next, config, metadata and tasks", async () => {
        const frames = framesNamed(await streamOn("echo", { input: { text: "c" }, streamMode: "checkpoints" }), "checkpoints");
        expect(frames.length).toBeGreaterThanOrEqual(2);
        for (const frame of frames) {
          expect(frame.data).toMatchObject({
            values: expect.any(Object),
            next: expect.any(Array),
            config: expect.any(Object),
            metadata: expect.any(Object),
            tasks: expect.any(Array),
          });
          expect(frame.data).toHaveProperty("parent_config");
        }
        expect(frames.at(-1)!.data).toMatchObject({ values: { text: "c", reply: "echo: c" }, next: [] });
      });

      it("streams a chat model's tokens as messages events of [chunk, metadata] with messages-tuple", async () => {
        const frames = framesNamed(
          await streamOn("chat", { input: { messages: [{ role: "user", content: "hi" }] }, streamMode: "messages-tuple" }),
          "messages",
        );
        expect(frames.length).toBeGreaterThan(1);
        const tuples = frames.map((f) => f.data as [{ content: string; type: string; id: string }, Record<string, unknown>]);
        for (const [chunk, metadata] of tuples) {
          expect(chunk.type).toMatch(/^AIMessageChunk$|^ai$/);
          expect(metadata).toMatchObject({ langgraph_node: "model" });
        }
        expect(new Set(tuples.map(([chunk]) => chunk.id)).size).toBe(1);
        expect(tuples.map(([chunk]) => chunk.content).join("")).toBe("hello there");
      });

      it("streams legacy messages mode as one messages/metadata, growing messages/partial and messages/complete", async () => {
        const frames = await streamOn("chat", { input: { messages: [{ role: "user", content: "hi" }] }, streamMode: "messages" });
        expect(frames[0]!.event).toBe("metadata");
        const rest = names(frames.slice(1));
        expect(new Set(rest)).toEqual(new Set(["messages/metadata", "messages/partial", "messages/complete"]));
        expect(rest.filter((n) => n === "messages/metadata")).toHaveLength(1);

        const partials = framesNamed(frames, "messages/partial").map((f) => f.data as Array<{ id: string; type: string; content: string }>);
        for (const partial of partials) expect(partial).toHaveLength(1);
        const texts = partials.map(([message]) => message!.content);
        expect(texts.at(-1)).toBe("hello there");
        for (let i = 1; i < texts.length; i++) expect(texts[i]!.startsWith(texts[i - 1]!)).toBe(true);
        const messageId = partials[0]![0]!.id;
        expect(new Set(partials.map(([message]) => message!.id))).toEqual(new Set([messageId]));

        const [metadata] = framesNamed(frames, "messages/metadata").map((f) => f.data as Record<string, { metadata: Record<string, unknown> }>);
        expect(Object.keys(metadata!)).toEqual([messageId]);
        expect(metadata![messageId]!.metadata).toMatchObject({ langgraph_node: "model" });

        const completed = framesNamed(frames, "messages/complete").flatMap((f) => f.data as Array<{ type: string; content: string; id: string }>);
        expect(completed.map((m) => [m.type, m.content])).toEqual([
          ["human", "hi"],
          ["ai", "hello there"],
        ]);
        expect(completed[1]!.id).toBe(messageId);
      });

      // JS LangChain's streamEvents has no parent_ids (the SDK's type has it from Python's).
      it("streams LangChain events with event, name, tags, run_id and metadata in events mode", async () => {
        const frames = await streamOn("chat", { input: { messages: [{ role: "user", content: "hi" }] }, streamMode: ["events", "values"] });
        expect(frames[0]!.event).toBe("metadata");
        const events = framesNamed(frames, "events").map((f) => f.data as Record<string, unknown>);
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) {
          expect(event).toMatchObject({
            event: expect.stringMatching(/^on_/),
            name: expect.any(String),
            run_id: expect.stringMatching(UUID),
            tags: expect.any(Array),
            metadata: expect.any(Object),
          });
        }
        const kinds = new Set(events.map((e) => e.event));
        for (const kind of ["on_chain_start", "on_chain_end", "on_chat_model_start", "on_chat_model_stream", "on_chat_model_end"])
          expect(kinds).toContain(kind);
        const tokens = events.filter((e) => e.event === "on_chat_model_stream").map((e) => (e.data as { chunk: { content: string } }).chunk.content);
        expect(tokens.join("")).toBe("hello there");
        // The values asked for beside events still arrive as values events.
        const values = framesNamed(frames, "values").at(-1)!.data as { messages: Array<{ content: string }> };
        expect(values.messages.map((m) => m.content)).toEqual(["hi", "hello there"]);
      });

      it("streams a tool's start and end in tools mode", async () => {
        // The SDK's StreamMode type lacks `tools`, which its JS server and ours accept.
        const frames = await streamOn("tools", { input: { messages: [] }, streamMode: "tools" as never });
        expect(names(frames)).toEqual(["metadata", "tools", "tools"]);
        const [start, end] = frames.slice(1).map((f) => f.data as Record<string, unknown>);
        expect(start).toMatchObject({ event: "on_tool_start", name: "add", toolCallId: "call-1", input: expect.anything() });
        expect(end).toMatchObject({ event: "on_tool_end", name: "add", toolCallId: "call-1", output: { type: "tool", content: "3", tool_call_id: "call-1" } });
      });

      it("names a subgraph's events mode|node:task with stream_subgraphs and keeps root events bare", async () => {
        const frames = await streamOn("parent", { input: {}, streamMode: "updates", streamSubgraphs: true });
        const updates = frames.filter((f) => f.event.startsWith("updates"));
        expect(updates.map((f) => f.event.replace(/:[0-9a-f-]{36}$/, ":<task>"))).toEqual(["updates", "updates|child:<task>", "updates"]);
        expect(updates.map((f) => f.data)).toEqual([
          { before: { trail: ["before"] } },
          { inner: { trail: ["inner"] } },
          { child: { trail: ["before", "inner"] } },
        ]);
      });

      it("keeps subgraph events out of the stream without stream_subgraphs", async () => {
        const frames = await streamOn("parent", { input: {}, streamMode: "updates" });
        expect(names(frames)).toEqual(["metadata", "updates", "updates"]);
      });

      it("answers a stream with text/event-stream, Content-Location and a Location to rejoin at", async () => {
        const threadId = await newThread();
        const response = await fetch(`${gantry.server.url}/threads/${threadId}/runs/stream`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ assistant_id: "echo", input: { text: "h" } }),
        });
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
        const location = response.headers.get("content-location");
        expect(location).toMatch(new RegExp(`^/threads/${threadId}/runs/[0-9a-f-]{36}$`));
        expect(response.headers.get("location")).toBe(`${location}/stream`);
        expect(text).toMatch(/^event: metadata\ndata: \{.*\}\n/);
      });

      it("answers a stateless stream with a /runs Content-Location and Location", async () => {
        const response = await fetch(`${gantry.server.url}/runs/stream`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ assistant_id: "echo", input: { text: "h" } }),
        });
        await response.text();
        const location = response.headers.get("content-location");
        expect(location).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
        expect(response.headers.get("location")).toBe(`${location}/stream`);
      });
    });

    describe("joining", () => {
      it("replays a resumable run from the start with Last-Event-ID -1, and strictly after a given id", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "chain", { input: {}, streamMode: ["values", "updates"], streamResumable: true });
        await gantry.client.runs.join(threadId, run.run_id);

        const all = await collect(gantry.client.runs.joinStream(threadId, run.run_id, { lastEventId: "-1" }));
        expect(all[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id } });
        expect(framesNamed(all, "updates")).toHaveLength(10);
        expect(framesNamed(all, "values").at(-1)!.data).toEqual({ steps: ALL_STEPS });

        // Each event's id is its place in the run's log, as on the official server.
        expect(all.map((f) => f.id)).toEqual(all.map((_, i) => String(i)));

        const cut = all[4]!;
        const rest = await collect(gantry.client.runs.joinStream(threadId, run.run_id, { lastEventId: cut.id! }));
        expect(rest.map((f) => f.id)).toEqual(all.slice(5).map((f) => f.id));
        expect(rest).toEqual(all.slice(5));
      });

      it("lets the SDK reconnect to a stream whose connection drops, through Location and Last-Event-ID, losing and repeating nothing", async () => {
        const proxy = await startDroppingProxy(gantry.server.url, 4);
        try {
          const viaProxy = sdkClient(proxy.url);
          const threadId = await newThread();
          let runId: string | undefined;
          const received = await collect(
            viaProxy.runs.stream(threadId, "chain", { input: {}, streamMode: ["values", "updates"], onRunCreated: ({ run_id }) => (runId = run_id) }),
          );
          // SDK 1.15 also asks for the run (GET …/runs/{run_id}) when a stream ends without an `end`
          // event, as the official server's streams do: only the stream requests are counted.
          const streamRequests = proxy.requests.filter(
            (head) => head.includes(`/threads/${threadId}/runs/`) && / \S*\/stream[ ?]/.test(head.split("\r\n")[0]!),
          );
          expect(streamRequests).toHaveLength(2);
          expect(streamRequests[0]).toMatch(new RegExp(`^POST /threads/${threadId}/runs/stream `));
          expect(streamRequests[1]).toMatch(new RegExp(`^GET /threads/${threadId}/runs/${runId}/stream`));
          expect(streamRequests[1]).toMatch(new RegExp(`\\r\\nlast-event-id: ${received[3]!.id}\\r\\n`, "i"));

          const all = await collect(gantry.client.runs.joinStream(threadId, runId!, { lastEventId: "-1", streamMode: ["values", "updates"] }));
          expect(received).toEqual(all);
          expect(framesNamed(received, "values").at(-1)!.data).toEqual({ steps: ALL_STEPS });
        } finally {
          await proxy.close();
        }
      });

      it("replays only the stream modes a join asks for", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "chain", { input: {}, streamMode: ["values", "updates"], streamResumable: true });
        await gantry.client.runs.join(threadId, run.run_id);
        const frames = await collect(gantry.client.runs.joinStream(threadId, run.run_id, { lastEventId: "-1", streamMode: "updates" }));
        expect(new Set(names(frames))).toEqual(new Set(["metadata", "updates"]));
        // The ids keep their places in the run's log: the values events left out leave gaps.
        const all = await collect(gantry.client.runs.joinStream(threadId, run.run_id, { lastEventId: "-1" }));
        expect(frames.map((f) => f.id)).toEqual(all.filter((f) => f.event !== "values").map((f) => f.id));
      });

      it("follows a running run's events live from joinStream", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "slow", { input: { ms: 800, label: "live" }, streamMode: "updates" });
        const frames = await collect(gantry.client.runs.joinStream(threadId, run.run_id));
        expect(frames.map((f) => f.data)).toContainEqual({ wait: { log: ["live"] } });
      });

      it("ends a join of a finished run promptly", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "echo", { input: { text: "done" } });
        await runReaches(gantry.client, threadId, run.run_id, "success");
        expect(await gantry.client.runs.join(threadId, run.run_id)).toEqual({ text: "done", reply: "echo: done" });
        const frames: Frame[] = await collect(gantry.client.runs.joinStream(threadId, run.run_id));
        expect(names(frames).filter((n) => n !== "metadata" && n !== "values")).toEqual([]);
      });

      it("answers HTTP 422 to a join with a Last-Event-ID that is not one of its event ids", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "echo", { input: { text: "x" }, streamResumable: true });
        await gantry.client.runs.join(threadId, run.run_id);
        const response = await request(gantry.server.url, "GET", `/threads/${threadId}/runs/${run.run_id}/stream`, { headers: { "Last-Event-ID": "garbage" } });
        expect(response.status).toBe(422);
        expect(detailOf(response)).toContain("Last-Event-ID");
      });

      it("answers HTTP 422 to a join asking for an unknown stream mode", async () => {
        const threadId = await newThread();
        const run = await gantry.client.runs.create(threadId, "echo", { input: { text: "x" } });
        await gantry.client.runs.join(threadId, run.run_id);
        const response = await request(gantry.server.url, "GET", `/threads/${threadId}/runs/${run.run_id}/stream?stream_mode=telepathy`);
        expect(response.status).toBe(422);
        expect(detailOf(response)).toContain("stream_mode");
      });

      it("answers HTTP 404 to a join of an unknown run, and one error event saying 404 to a joinStream, as the official servers do", async () => {
        const threadId = await newThread();
        const unknown = "00000000-0000-4000-8000-000000000000";
        await expect(gantry.client.runs.join(threadId, unknown)).rejects.toThrow(/HTTP 404/);
        const frames = await collect(gantry.client.runs.joinStream(threadId, unknown));
        expect(frames).toEqual([{ event: "error", data: { error: "NotFound", message: `404: Run ${unknown} not found on thread ${threadId}` } }]);
      });
    });

    describe("retention of a finished run's events", () => {
      // The 10 s a run that did not ask for stream_resumable keeps its events, shortened for this
      // server alone: the other cases reconnect to such runs and must not lose their events.
      const RETAIN_MS = 3_000;
      const shortRetention = useGantry(open, RUNS_CONFIG, { ...RUNS_ENV, GANTRY_UNRESUMABLE_RETAIN_MS: String(RETAIN_MS) });

      it(
        "keeps a run's events a while unless it asked for stream_resumable; joins then answer from the stored outcome",
        async () => {
          const { client } = shortRetention;
          const finished = async (resumable: boolean) => {
            const { thread_id: threadId } = await client.threads.create();
            const run = await client.runs.create(threadId, "echo", { input: { text: resumable ? "kept" : "gone" }, streamResumable: resumable });
            await client.runs.join(threadId, run.run_id);
            return { threadId, runId: run.run_id };
          };
          const replayed = async ({ threadId, runId }: { threadId: string; runId: string }) =>
            framesNamed(await collect(client.runs.joinStream(threadId, runId, { lastEventId: "-1" })), "values").map((f) => f.data);
          const plain = await finished(false);
          // Long enough for a client whose stream dropped at the end to reconnect and miss nothing.
          expect(await replayed(plain)).toContainEqual({ text: "gone", reply: "echo: gone" });
          const resumable = await finished(true);

          await eventually("the plain run's events to be dropped", async () => ((await replayed(plain)).length === 0 ? true : undefined), RETAIN_MS + 10_000);
          expect(await client.runs.join(plain.threadId, plain.runId)).toEqual({ text: "gone", reply: "echo: gone" });
          expect(await replayed(resumable)).toContainEqual({ text: "kept", reply: "echo: kept" });
        },
        RETAIN_MS + 20_000,
      );
    });
  });
}
