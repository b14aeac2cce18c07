// RemoteGraph (`@langchain/langgraph/remote`, over the official SDK) pointed at a real Gantry: a
// graph calling a deployed graph as if it were local. invoke, every stream mode, getState,
// updateState and getStateHistory go over the classic API (/threads, /runs/stream);
// `streamEvents({ version: "v3" })` goes over protocol v2 (`POST /threads/{id}/commands` carrying
// `run.start`, then `POST /threads/{id}/stream/events`). All cases on `gantry dev`; the interrupt
// and v3 cases again on `gantry serve` (PostgreSQL + Redis). WITH_REFERENCE_SERVER=1 also runs
// every case against the JS reference server (@langchain/langgraph-api), which shows the cases are right.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Command, GraphInterrupt } from "@langchain/langgraph";
import { RemoteGraph } from "@langchain/langgraph/remote";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceForBench } from "../../bench/start-server.js";
import { ANSWER, QUESTION } from "../fixtures/protocol-clients/src/chat.js";
import { startGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { fixture } from "./fixture-paths.js";
import { eventually, sdkClient } from "./http.js";

const CONFIG = fixture("protocol-clients", "langgraph.json");
const ASK = "Tell me about otters";

interface Server {
  url: string;
  stop(): Promise<void>;
}

/** A message's text, whether the server keeps its content as a string or as content blocks. */
function textOf(message: { content: unknown }): string {
  const { content } = message;
  if (!Array.isArray(content)) return String(content);
  return content.map((block: { text?: string }) => block.text ?? "").join("");
}

const texts = (values: unknown) => (values as { messages: Array<{ content: unknown }> }).messages.map(textOf);

type Case = "invoke" | "stream" | "update" | "v3";

/** The cases, on a server started before them and stopped after. */
function describeRemoteGraph(name: string, start: () => Promise<Server>, cases: Case[]): void {
  describe(`RemoteGraph on ${name}`, () => {
    let server: Server;
    let remote: RemoteGraph;

    beforeAll(async () => {
      server = await start();
      remote = new RemoteGraph({ graphId: "chat", client: sdkClient(server.url) });
    });

    afterAll(async () => {
      await server?.stop();
    });

    const newThread = async () => ({ configurable: { thread_id: (await sdkClient(server.url).threads.create()).thread_id } });
    // RemoteGraph throws GraphInterrupt on the interrupt's `updates` event and stops reading; the run
    // still writes its last checkpoint after that (on gantry serve the gap shows), as it would for a
    // caller on any server. A caller reading the state next waits for the thread to settle.
    const runEnded = (config: { configurable: { thread_id: string } }) =>
      eventually("the thread to settle as interrupted", async () => {
        const thread = await sdkClient(server.url).threads.get(config.configurable.thread_id);
        return thread.status === "interrupted" ? thread : undefined;
      });
    const itIf = (name: Case) => (cases.includes(name) ? it : it.skip);

    itIf("invoke")("invokes up to the interrupt (a GraphInterrupt, as from a local subgraph), reads the state, and resumes with a Command", async () => {
      const config = await newThread();
      const paused = await remote.invoke({ messages: [new HumanMessage(ASK)] }, config).catch((error: unknown) => error);
      expect(paused).toBeInstanceOf(GraphInterrupt);
      expect((paused as GraphInterrupt).interrupts.map((i) => i.value)).toEqual([{ question: QUESTION }]);

      await runEnded(config);
      const state = await remote.getState(config);
      expect(texts(state.values)).toEqual([ASK, ANSWER]);
      expect(state.next).toEqual(["review"]);
      expect(state.tasks.flatMap((task) => task.interrupts ?? []).map((i) => i.value)).toEqual([{ question: QUESTION }]);

      const done = await remote.invoke(new Command({ resume: "approved" }), config);
      expect(texts(done)).toEqual([ASK, ANSWER, "Reviewed: approved"]);
      expect((await remote.getState(config)).next).toEqual([]);
    });

    itIf("stream")("streams values, updates, messages, custom and debug in one call", async () => {
      const config = await newThread();
      const seen: Record<string, unknown[]> = {};
      const stream = await remote.stream(
        { messages: [new HumanMessage(ASK)] },
        { ...config, streamMode: ["values", "updates", "messages", "custom", "debug"] },
      );
      const ended = await (async () => {
        for await (const [mode, chunk] of stream) (seen[mode] ??= []).push(chunk);
      })().catch((error: unknown) => error);
      expect(ended).toBeInstanceOf(GraphInterrupt);

      expect(texts(seen.values!.at(-1))).toEqual([ASK, ANSWER]);
      expect(seen.updates!.map((update) => Object.keys(update as object))).toEqual([["answer"]]);
      expect(seen.custom).toEqual([{ stage: "answering" }]);
      const tokens = (seen.messages as Array<[{ content: unknown }, { langgraph_node: string }]>).filter(([, meta]) => meta.langgraph_node === "answer");
      expect(tokens.length).toBeGreaterThan(1);
      expect(tokens.map(([message]) => textOf(message)).join("")).toBe(ANSWER);
      expect((seen.debug as Array<{ type: string }>).map((event) => event.type)).toContain("task_result");
    });

    itIf("update")("updates the state as a node and lists the history", async () => {
      const config = await newThread();
      await expect(remote.invoke({ messages: [new HumanMessage(ASK)] }, config)).rejects.toBeInstanceOf(GraphInterrupt);
      await runEnded(config);
      const updated = await remote.updateState(config, { messages: [new AIMessage("An edit by hand.")] }, "answer");
      expect(updated.configurable?.checkpoint_id).toEqual(expect.any(String));

      const state = await remote.getState(config);
      expect(texts(state.values)).toEqual([ASK, ANSWER, "An edit by hand."]);
      expect(state.next).toEqual(["review"]);
      expect(state.config.configurable?.checkpoint_id).toBe(updated.configurable?.checkpoint_id);

      const history = [];
      for await (const snapshot of remote.getStateHistory(config)) history.push(snapshot);
      expect(history[0]!.config.configurable?.checkpoint_id).toBe(updated.configurable?.checkpoint_id);
      expect(history.length).toBeGreaterThan(2);
    });

    itIf("v3")("streams events v3 over protocol v2 up to the interrupt, then resumes with the next run's input", async () => {
      const config = await newThread();
      const run = await remote.streamEvents({ messages: [new HumanMessage(ASK)] }, { ...config, version: "v3" });
      const methods = new Set<string>();
      const custom: unknown[] = [];
      let streamed = "";
      for await (const event of run) {
        methods.add(event.method);
        const data = event.params.data as { payload?: unknown; event?: string; delta?: { text?: string } };
        if (event.method === "custom") custom.push(data.payload);
        if (event.method === "messages" && data.event === "content-block-delta") streamed += data.delta?.text ?? "";
      }
      // Every channel RemoteGraph subscribes to that this graph produces ("tools" it does not).
      expect(methods).toEqual(new Set(["lifecycle", "values", "checkpoints", "tasks", "custom", "messages", "updates", "input.requested"]));
      expect(streamed).toBe(ANSWER);
      expect(custom).toEqual([{ stage: "answering" }]);
      expect(await run.interrupted).toBe(true);
      expect((await run.interrupts).map((i) => i.payload)).toEqual([{ question: QUESTION }]);
      expect(texts(await run.output)).toEqual([ASK, ANSWER]);

      // On a thread waiting on an interrupt, run.start's input is the resume value (the reference's
      // rule). A Command would not do: RemoteGraph sends its JSON as the input, which becomes the value.
      // The new subscription replays the thread from its first event, the first run's "interrupted"
      // included (as the reference does), and the SDK may settle `output` there: the thread's state
      // after the run is what shows the resume.
      const resumed = await remote.streamEvents("approved", { ...config, version: "v3" });
      for await (const _ of resumed);
      const done = await eventually("the resumed run to end", async () => {
        const state = await remote.getState(config);
        return state.next.length === 0 ? state : undefined;
      });
      expect(texts(done.values)).toEqual([ASK, ANSWER, "Reviewed: approved"]);
    });
  });
}

const ALL: Case[] = ["invoke", "stream", "update", "v3"];

describeRemoteGraph("gantry dev", () => startGantry({ config: CONFIG }), ALL);

if (process.env.WITH_REFERENCE_SERVER === "1") describeRemoteGraph("the JS reference server", () => startReferenceForBench(CONFIG), ALL);

await describeWithPostgresAndRedis("RemoteGraph on gantry serve", () => {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  describeRemoteGraph("gantry serve (PostgreSQL + Redis)", async () => {
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const env = { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" };
    const server = await startGantry({ command: "serve", config: CONFIG, env });
    return {
      url: server.url,
      async stop() {
        await server.stop();
        await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await deleteKeys(prefix);
      },
    };
  }, ["invoke", "v3"]);
});
