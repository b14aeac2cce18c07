// The A2A endpoint under `gantry dev` (SQLite), through the official A2A JS client over real HTTP:
// the agent card, message/send and message/stream, tasks/get and tasks/cancel, a conversation
// continued by contextId and seen by the classic API, the JSON-RPC errors for bad input, custom
// auth, and http.disable_a2a.
import { TaskState, type Task } from "@a2a-js/sdk";
import type { Client as A2aClient } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { a2aClient, sendWithoutWaiting, textOf, userData, userText } from "./a2a-client.js";
import { openSqliteStore } from "./backends.js";
import { useGantry } from "./fixture.js";
import { fixture } from "./fixture-paths.js";
import { eventually, request, sdkClient } from "./http.js";

const A2A_CONFIG = fixture("a2a", "langgraph.json");
const TIMEOUT = 60_000;

const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });

async function sendText(client: A2aClient, text: string, contextId = ""): Promise<Task> {
  const result = await client.sendMessage({ tenant: "", message: userText(text, contextId), configuration: undefined, metadata: undefined });
  if (!("id" in result && "status" in result)) throw new Error(`Expected a task, got ${JSON.stringify(result)}`);
  return result;
}

describe("A2A endpoint", () => {
  const gantry = useGantry(openSqliteStore, A2A_CONFIG);

  it("publishes an agent card with the assistant's name, description, skills, modes and endpoint", async () => {
    const response = await request(gantry.server.url, "GET", "/.well-known/agent-card.json?assistant_id=chat");
    expect(response.status).toBe(200);
    const assistant = await gantry.client.assistants.get("chat");
    expect(response.json).toMatchObject({
      protocolVersion: "0.3.0",
      name: "chat",
      description: "Echoes each message with the turn number",
      url: `${gantry.server.url}/a2a/${assistant.assistant_id}`,
      preferredTransport: "JSONRPC",
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: expect.arrayContaining(["text/plain"]),
      defaultOutputModes: expect.arrayContaining(["text/plain"]),
      skills: [expect.objectContaining({ id: "chat-main", name: "chat" })],
    });

    const client = await a2aClient(gantry.server.url, "chat");
    const card = await client.getAgentCard();
    expect(card.name).toBe("chat");
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${gantry.server.url}/a2a/${assistant.assistant_id}`, protocolBinding: "JSONRPC" });
  });

  it("answers the card of an unknown assistant with 404 and a missing assistant_id with 422", async () => {
    const unknown = await request(gantry.server.url, "GET", "/.well-known/agent-card.json?assistant_id=00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: expect.stringContaining("not found") });
    const missing = await request(gantry.server.url, "GET", "/.well-known/agent-card.json");
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({ detail: expect.stringContaining("assistant_id") });
  });

  it(
    "message/send runs the graph and answers a completed task; the same contextId continues the thread the classic API sees",
    async () => {
      const client = await a2aClient(gantry.server.url, "chat");
      const first = await sendText(client, "hello");
      expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(first.artifacts[0]?.parts)).toBe("echo: hello (turn 1)");
      expect(first.history.map((m) => textOf(m.parts))).toEqual(["hello", "echo: hello (turn 1)"]);

      const second = await sendText(client, "again", first.contextId);
      expect(second.contextId).toBe(first.contextId);
      expect(second.id).not.toBe(first.id);
      expect(textOf(second.artifacts[0]?.parts)).toBe("echo: again (turn 2)");

      // contextId is the thread, the task is the run.
      const state = await gantry.client.threads.getState<{ messages: Array<{ type: string; content: string }> }>(first.contextId);
      expect(state.values.messages.map((m) => [m.type, m.content])).toEqual([
        ["human", "hello"],
        ["ai", "echo: hello (turn 1)"],
        ["human", "again"],
        ["ai", "echo: again (turn 2)"],
      ]);
      const run = await gantry.client.runs.get(first.contextId, second.id);
      expect(run.status).toBe("success");
      expect((await gantry.client.runs.list(first.contextId)).map((r) => r.run_id).sort()).toEqual([first.id, second.id].sort());
    },
    TIMEOUT,
  );

  it(
    "a graph that throws ends its task failed, with the error as the status message",
    async () => {
      const client = await a2aClient(gantry.server.url, "chat");
      const task = await sendText(client, "fail");
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(textOf(task.status?.message?.parts)).toContain("asked to fail");
      expect(task.artifacts).toEqual([]);
      expect((await gantry.client.runs.get(task.contextId, task.id)).status).toBe("error");
    },
    TIMEOUT,
  );

  it(
    "tasks/get reads a task back, with historyLength",
    async () => {
      const client = await a2aClient(gantry.server.url, "chat");
      const sent = await sendText(client, "remember me");
      const task = await client.getTask({ tenant: "", id: sent.id, historyLength: 1 });
      expect(task.id).toBe(sent.id);
      expect(task.contextId).toBe(sent.contextId);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.history.map((m) => textOf(m.parts))).toEqual(["echo: remember me (turn 1)"]);
      expect(textOf(task.artifacts[0]?.parts)).toBe("echo: remember me (turn 1)");
    },
    TIMEOUT,
  );

  it(
    "message/stream sends the task, then working, the answer artifact and a final completed status",
    async () => {
      const client = await a2aClient(gantry.server.url, "chat");
      const events = [];
      for await (const event of client.sendMessageStream({ tenant: "", message: userText("stream me"), configuration: undefined, metadata: undefined })) {
        events.push(event.payload!);
      }
      expect(events.slice(0, 2).map((e) => e.$case)).toEqual(["task", "statusUpdate"]);
      const answer = events.filter((e) => e.$case === "artifactUpdate").at(-1);
      expect(answer?.$case === "artifactUpdate" && [textOf(answer.value.artifact?.parts), answer.value.append, answer.value.lastChunk]).toEqual([
        "echo: stream me (turn 1)",
        false,
        true,
      ]);
      const last = events.at(-1);
      expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const taskId = events[0]?.$case === "task" ? events[0].value.id : "";
      const task = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    },
    TIMEOUT,
  );

  it(
    "message/stream streams a model's answer token by token as appended artifact chunks, then the whole answer",
    async () => {
      const client = await a2aClient(gantry.server.url, "talker");
      const chunks: Array<{ text: string; append: boolean; lastChunk: boolean }> = [];
      for await (const event of client.sendMessageStream({ tenant: "", message: userText("hi"), configuration: undefined, metadata: undefined })) {
        if (event.payload?.$case === "artifactUpdate") {
          const { artifact, append, lastChunk } = event.payload.value;
          chunks.push({ text: textOf(artifact?.parts), append, lastChunk });
        }
      }
      const pieces = chunks.filter((c) => !c.lastChunk);
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces[0]?.append).toBe(false);
      expect(pieces.slice(1).every((c) => c.append)).toBe(true);
      expect(pieces.map((c) => c.text).join("")).toBe("hello there");
      expect(chunks.at(-1)).toEqual({ text: "hello there", append: false, lastChunk: true });
    },
    TIMEOUT,
  );

  it(
    "refuses text for a graph without messages with a clear invalid-params error, and runs it from a data part",
    async () => {
      const client = await a2aClient(gantry.server.url, "counter");
      const card = await client.getAgentCard();
      expect(card.defaultInputModes).toEqual(["application/json"]);
      await expect(sendText(client, "hi")).rejects.toThrow(/no 'messages' key/);

      const raw = await request(gantry.server.url, "POST", "/a2a/counter", {
        body: rpc("message/send", { message: { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text: "hi" }] } }),
      });
      expect(raw.status).toBe(200);
      expect(raw.json).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: expect.stringContaining("messages-based graph") } });

      const result = await client.sendMessage({ tenant: "", message: userData({ count: 41 }), configuration: undefined, metadata: undefined });
      const task = result as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const data = task.artifacts[0]?.parts[0]?.content;
      expect(data).toEqual({ $case: "data", value: { count: 42 } });
    },
    TIMEOUT,
  );

  it(
    "a graph interrupt is input-required with the question, and a reply on that task resumes it",
    async () => {
      const client = await a2aClient(gantry.server.url, "asker");
      const asked = await sendText(client, "Hello");
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(textOf(asked.status?.message?.parts)).toBe("What is your name?");

      const reply = { ...userText("Ada", asked.contextId), taskId: asked.id };
      const answered = (await client.sendMessage({ tenant: "", message: reply, configuration: undefined, metadata: undefined })) as Task;
      expect(answered.contextId).toBe(asked.contextId);
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(answered.artifacts[0]?.parts)).toBe("Hello, Ada!");
      const state = await gantry.client.threads.getState(asked.contextId);
      expect(state.next).toEqual([]);
    },
    TIMEOUT,
  );

  it("answers an unknown assistant with the not-found error object on a 404", async () => {
    for (const id of ["no-such-graph", "00000000-0000-4000-8000-000000000000"]) {
      const response = await request(gantry.server.url, "POST", `/a2a/${id}`, { body: rpc("message/send", {}, "x") });
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ jsonrpc: "2.0", id: "x", error: { code: -32001, message: expect.stringContaining("not found") } });
    }
  });

  it("answers malformed JSON-RPC with the error object and the right code, never a 500", async () => {
    const cases: Array<{ body: unknown; code: number; id?: unknown }> = [
      { body: "{not json", code: -32700, id: null },
      { body: "", code: -32600, id: null },
      { body: [rpc("tasks/get", { id: "x" })], code: -32600, id: null },
      { body: { id: 7, method: "tasks/get" }, code: -32600, id: 7 },
      { body: { jsonrpc: "2.0", id: 8 }, code: -32600, id: 8 },
      { body: { jsonrpc: "2.0", id: { no: 1 }, method: "tasks/get" }, code: -32600, id: null },
      { body: rpc("tasks/list", {}, 9), code: -32601, id: 9 },
      { body: rpc("message/send", { message: { role: "user" } }, 10), code: -32602, id: 10 },
      {
        body: rpc("message/send", { message: { messageId: "m", role: "user", parts: [{ kind: "file", file: { uri: "http://x/y" } }] } }, 11),
        code: -32005,
        id: 11,
      },
      { body: rpc("tasks/get", {}, 12), code: -32602, id: 12 },
      { body: rpc("tasks/get", { id: "not-a-task" }, 13), code: -32001, id: 13 },
      { body: rpc("tasks/get", { id: "00000000-0000-4000-8000-000000000000" }, 14), code: -32001, id: 14 },
      {
        body: rpc("message/send", { message: { messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }], contextId: "my-context" } }, 15),
        code: -32602,
        id: 15,
      },
      { body: rpc("tasks/pushNotificationConfig/set", {}, 16), code: -32003, id: 16 },
    ];
    for (const { body, code, id } of cases) {
      const response = await request(gantry.server.url, "POST", "/a2a/chat", { body });
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(response.json, JSON.stringify(body)).toEqual({ jsonrpc: "2.0", id, error: { code, message: expect.any(String) } });
    }
  });

  it(
    "tasks/cancel on a finished task is the protocol's not-cancelable error",
    async () => {
      const client = await a2aClient(gantry.server.url, "chat");
      const sent = await sendText(client, "done already");
      const response = await request(gantry.server.url, "POST", "/a2a/chat", { body: rpc("tasks/cancel", { id: sent.id }) });
      expect(response.json).toMatchObject({ error: { code: -32002, message: expect.stringContaining("already finished") } });
    },
    TIMEOUT,
  );

  it(
    "tasks/cancel stops a working task, which ends canceled; the classic API sees the run interrupted",
    async () => {
      const client = await a2aClient(gantry.server.url, "waiter");
      const sent = await sendWithoutWaiting(client, userText("60000"));
      await eventually("the task working", async () => {
        const task = await client.getTask({ tenant: "", id: sent.id, historyLength: undefined });
        return task.status?.state === TaskState.TASK_STATE_WORKING ? task : undefined;
      });
      const canceled = await client.cancelTask({ tenant: "", id: sent.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await gantry.client.runs.get(sent.contextId, sent.id)).status).toBe("interrupted");
    },
    TIMEOUT,
  );

  it(
    "tasks/resubscribe follows a task started earlier to its answer and final status",
    async () => {
      const client = await a2aClient(gantry.server.url, "waiter");
      const sent = await sendWithoutWaiting(client, userText("500"));
      const events = [];
      for await (const event of client.resubscribeTask({ tenant: "", id: sent.id })) events.push(event.payload!);
      expect(events[0]).toMatchObject({ $case: "task", value: { id: sent.id } });
      const answer = events.find((e) => e.$case === "artifactUpdate");
      expect(answer?.$case === "artifactUpdate" && textOf(answer.value.artifact?.parts)).toBe("waited 500 ms");
      const last = events.at(-1);
      expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

      // Once finished, a resubscription is the final state at once.
      const again = [];
      for await (const event of client.resubscribeTask({ tenant: "", id: sent.id })) again.push(event.payload!.$case);
      expect(again).toEqual(["task", "artifactUpdate", "statusUpdate"]);
    },
    TIMEOUT,
  );

  it(
    "a task of one assistant is not found through another's endpoint",
    async () => {
      const client = await a2aClient(gantry.server.url, "chat");
      const sent = await sendText(client, "mine");
      const response = await request(gantry.server.url, "POST", "/a2a/counter", { body: rpc("tasks/get", { id: sent.id }) });
      expect(response.json).toMatchObject({ error: { code: -32001 } });
    },
    TIMEOUT,
  );

  it(
    "message/send with blocking false answers at once with the submitted task, which tasks/get later sees completed",
    async () => {
      const response = await request(gantry.server.url, "POST", "/a2a/chat", {
        body: rpc("message/send", {
          message: { kind: "message", messageId: "m-nb", role: "user", parts: [{ kind: "text", text: "later" }] },
          configuration: { blocking: false },
        }),
      });
      const task = (response.json as { result: { id: string; contextId: string; status: { state: string } } }).result;
      expect(["submitted", "working", "completed"]).toContain(task.status.state);
      await sdkClient(gantry.server.url).runs.join(task.contextId, task.id);
      const read = await request(gantry.server.url, "POST", "/a2a/chat", { body: rpc("tasks/get", { id: task.id }) });
      expect(read.json).toMatchObject({ result: { id: task.id, status: { state: "completed" } } });
    },
    TIMEOUT,
  );
});

describe("A2A endpoint with custom auth", () => {
  const gantry = useGantry(openSqliteStore, fixture("a2a", "langgraph.auth.json"));
  const alice = { authorization: "Bearer alice-token" };
  const bob = { authorization: "Bearer bob-token" };

  it("refuses a caller without credentials as the classic API does", async () => {
    const card = await request(gantry.server.url, "GET", "/.well-known/agent-card.json?assistant_id=chat");
    expect(card.status).toBe(401);
    const send = await request(gantry.server.url, "POST", "/a2a/chat", { body: rpc("tasks/get", { id: "x" }) });
    expect(send.status).toBe(401);
  });

  it(
    "runs as the caller: the thread is theirs, and another user can neither read the task nor continue the context",
    async () => {
      const asAlice = await a2aClient(gantry.server.url, "chat", alice);
      const task = await sendText(asAlice, "secret");
      expect(textOf(task.artifacts[0]?.parts)).toBe("echo: secret (turn 1)");

      const aliceSdk = new (await import("@langchain/langgraph-sdk")).Client({
        apiUrl: gantry.server.url,
        defaultHeaders: alice,
        callerOptions: { maxRetries: 0 },
      });
      const thread = await aliceSdk.threads.get(task.contextId);
      expect(thread.metadata).toMatchObject({ owner: "alice" });

      const asBob = await a2aClient(gantry.server.url, "chat", bob);
      await expect(asBob.getTask({ tenant: "", id: task.id, historyLength: undefined })).rejects.toThrow(/not found/);
      await expect(sendText(asBob, "let me in", task.contextId)).rejects.toThrow(/not found/);
      // Alice's conversation is untouched by Bob's attempt.
      const state = await aliceSdk.threads.getState<{ messages: unknown[] }>(task.contextId);
      expect(state.values.messages).toHaveLength(2);
      expect((await asAlice.getTask({ tenant: "", id: task.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    },
    TIMEOUT,
  );
});

describe("A2A endpoint with http.disable_a2a", () => {
  const gantry = useGantry(openSqliteStore, fixture("a2a", "langgraph.disabled.json"));

  it("serves neither the card nor the endpoint", async () => {
    expect((await request(gantry.server.url, "GET", "/.well-known/agent-card.json?assistant_id=chat")).status).toBe(404);
    expect((await request(gantry.server.url, "POST", "/a2a/chat", { body: rpc("tasks/get", { id: "x" }) })).status).toBe(404);
    // The classic API is unaffected.
    expect((await gantry.client.assistants.search({ graphId: "chat" })).length).toBe(1);
  });
});
