// The core of the API through the older JS SDK many projects still pin (`@langchain/langgraph-sdk`
// 1.9, installed as `langgraph-sdk-1.9`): assistants, threads, runs created, waited on, streamed
// and joined, and thread state. The full e2e suite runs on the latest SDK; running all of it again
// on 1.9 would double its time, so this file keeps to the calls every project makes, written
// against 1.9's own types, on one server.
import { randomUUID } from "node:crypto";
import { Client } from "langgraph-sdk-1.9";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { eventually } from "./http.js";
import { collect, names, RUNS_CONFIG, RUNS_ENV } from "./runs-support.js";

let server: RunningGantry;
let client: Client;

beforeAll(async () => {
  server = await startGantry({ config: RUNS_CONFIG, env: RUNS_ENV });
  // maxRetries 0: a 5xx must fail the test now, not after the SDK's backoff retries.
  client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
});

afterAll(async () => {
  await server?.stop();
});

const newThread = async () => (await client.threads.create()).thread_id;

describe("SDK 1.9: assistants", () => {
  it("creates, reads, updates to a new version, searches, draws and deletes an assistant", async () => {
    const tag = randomUUID();
    const created = await client.assistants.create({ graphId: "echo", metadata: { tag }, name: "old-sdk", config: { configurable: { mood: "calm" } } });
    expect(await client.assistants.get(created.assistant_id)).toMatchObject({ graph_id: "echo", name: "old-sdk", version: 1 });
    const updated = await client.assistants.update(created.assistant_id, { metadata: { tag, step: 2 } });
    expect(updated.version).toBe(2);
    expect((await client.assistants.search({ metadata: { tag } })).map((a) => a.assistant_id)).toEqual([created.assistant_id]);
    expect((await client.assistants.getGraph(created.assistant_id)).nodes.map((n) => String(n.id))).toContain("echo");
    expect(await client.assistants.getSchemas(created.assistant_id)).toMatchObject({ graph_id: "echo" });
    await client.assistants.delete(created.assistant_id);
    await expect(client.assistants.get(created.assistant_id)).rejects.toThrow(/HTTP 404/);
  });
});

describe("SDK 1.9: threads", () => {
  it("creates, reads, updates, searches, copies and deletes a thread", async () => {
    const tag = randomUUID();
    const thread = await client.threads.create({ metadata: { tag } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
    await client.threads.update(thread.thread_id, { metadata: { step: 2 } });
    expect((await client.threads.get(thread.thread_id)).metadata).toMatchObject({ tag, step: 2 });
    expect((await client.threads.search({ metadata: { tag } })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    const copy = await client.threads.copy(thread.thread_id);
    expect(copy.thread_id).not.toBe(thread.thread_id);
    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/HTTP 404/);
  });
});

describe("SDK 1.9: runs", () => {
  it("waits for a stateful and a stateless run", async () => {
    expect(await client.runs.wait(await newThread(), "echo", { input: { text: "hi" } })).toEqual({ text: "hi", reply: "echo: hi" });
    expect(await client.runs.wait(null, "echo", { input: { text: "once" } })).toEqual({ text: "once", reply: "echo: once" });
  });

  it("creates a background run, joins it, and lists it as a success", async () => {
    const threadId = await newThread();
    const run = await client.runs.create(threadId, "echo", { input: { text: "later" } });
    expect(await client.runs.join(threadId, run.run_id)).toEqual({ text: "later", reply: "echo: later" });
    expect((await client.runs.get(threadId, run.run_id)).status).toBe("success");
    expect((await client.runs.list(threadId)).map((r) => r.run_id)).toEqual([run.run_id]);
  });

  it("streams metadata, then values and updates, and tells onRunCreated the run", async () => {
    const threadId = await newThread();
    let announced: { run_id: string; thread_id?: string } | undefined;
    const frames = await collect(
      client.runs.stream(threadId, "echo", { input: { text: "s" }, streamMode: ["values", "updates"], onRunCreated: (params) => (announced = params) }),
    );
    expect(names(frames)).toEqual(["metadata", "values", "updates", "values"]);
    expect(announced).toMatchObject({ run_id: (frames[0]!.data as { run_id: string }).run_id, thread_id: threadId });
  });

  it("joins a resumable run's stream from the start with Last-Event-ID -1", async () => {
    const threadId = await newThread();
    const run = await client.runs.create(threadId, "echo", { input: { text: "again" }, streamMode: ["values"], streamResumable: true });
    await client.runs.join(threadId, run.run_id);
    const frames = await collect(client.runs.joinStream(threadId, run.run_id, { lastEventId: "-1" }));
    expect(frames.filter((f) => f.event === "values").at(-1)?.data).toEqual({ text: "again", reply: "echo: again" });
  });

  it("cancels a running run", async () => {
    const threadId = await newThread();
    const run = await client.runs.create(threadId, "slow", { input: { ms: 60_000, label: "x" } });
    await eventually("the run to start", async () => ((await client.runs.get(threadId, run.run_id)).status === "running" ? true : undefined));
    await client.runs.cancel(threadId, run.run_id, true);
    expect((await client.runs.get(threadId, run.run_id)).status).toBe("interrupted");
  });
});

describe("SDK 1.9: thread state", () => {
  it("reads, updates and lists a thread's state, and reads it at a checkpoint", async () => {
    const threadId = await newThread();
    await client.runs.wait(threadId, "echo", { input: { text: "first" } });
    const state = await client.threads.getState(threadId);
    expect(state.values).toEqual({ text: "first", reply: "echo: first" });
    await client.threads.updateState(threadId, { values: { text: "edited" }, asNode: "echo" });
    expect((await client.threads.getState(threadId)).values).toMatchObject({ text: "edited" });
    const history = await client.threads.getHistory(threadId);
    expect(history.length).toBeGreaterThanOrEqual(3);
    expect((await client.threads.getState(threadId, state.checkpoint)).values).toEqual(state.values);
  });

  it("stops at an interrupt and resumes with a command", async () => {
    const threadId = await newThread();
    const stopped = (await client.runs.wait(threadId, "interrupt", { input: { text: "q" } })) as { __interrupt__?: Array<{ value: unknown }> };
    expect(stopped.__interrupt__?.[0]?.value).toBe("question");
    expect((await client.threads.get(threadId)).status).toBe("interrupted");
    expect(await client.runs.wait(threadId, "interrupt", { command: { resume: "yes" } })).toEqual({ text: "q", answer: "got yes" });
  });
});
