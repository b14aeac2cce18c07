// The A2A endpoint on two `gantry serve` replicas sharing PostgreSQL and Redis, through the
// official A2A JS client: a task started on one replica is read, streamed and cancelled on the
// other, and a conversation begun on one continues on the other: A2A keeps nothing in the process.
import { TaskState, type Task } from "@a2a-js/sdk";
import type { Client as A2aClient } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { a2aClient, sendWithoutWaiting, textOf, userText } from "./a2a-client.js";
import { fixture } from "./fixture-paths.js";
import { eventually, request, sdkClient } from "./http.js";

const TIMEOUT = 90_000;

async function sendText(client: A2aClient, text: string, contextId = ""): Promise<Task> {
  return (await client.sendMessage({ tenant: "", message: userText(text, contextId), configuration: undefined, metadata: undefined })) as Task;
}

await describeWithPostgresAndRedis("A2A on two gantry serve replicas", () => {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  let a: RunningGantry;
  let b: RunningGantry;

  beforeAll(async () => {
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const env = { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, LANGGRAPH_POSTGRES_POOL_MAX_SIZE: "4" };
    const config = fixture("a2a", "langgraph.json");
    // One after the other: the first creates the tables.
    a = await startGantry({ command: "serve", config, env });
    b = await startGantry({ command: "serve", config, env });
  }, TIMEOUT);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await deleteKeys(prefix);
  });

  it(
    "tasks/get on one replica sees the task message/send made on the other, and the conversation continues there",
    async () => {
      const onA = await a2aClient(a.url, "chat");
      const onB = await a2aClient(b.url, "chat");
      const sent = await sendText(onA, "from A");
      expect(textOf(sent.artifacts[0]?.parts)).toBe("echo: from A (turn 1)");

      const read = await onB.getTask({ tenant: "", id: sent.id, historyLength: undefined });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(read.contextId).toBe(sent.contextId);
      expect(textOf(read.artifacts[0]?.parts)).toBe("echo: from A (turn 1)");

      const next = await sendText(onB, "then B", sent.contextId);
      expect(textOf(next.artifacts[0]?.parts)).toBe("echo: then B (turn 2)");
      const state = await sdkClient(a.url).threads.getState<{ messages: Array<{ content: string }> }>(sent.contextId);
      expect(state.values.messages.map((m) => m.content)).toEqual(["from A", "echo: from A (turn 1)", "then B", "echo: then B (turn 2)"]);
    },
    TIMEOUT,
  );

  it(
    "a task sent without blocking on one replica is followed to completion on the other, and streams there too",
    async () => {
      const response = await request(a.url, "POST", "/a2a/chat", {
        body: {
          jsonrpc: "2.0",
          id: "nb",
          method: "message/send",
          params: {
            message: { kind: "message", messageId: "m-nb", role: "user", parts: [{ kind: "text", text: "background" }] },
            configuration: { blocking: false },
          },
        },
      });
      const taskId = (response.json as { result: { id: string } }).result.id;
      const onB = await a2aClient(b.url, "chat");
      const done = await eventually(
        "the task completed, as read on replica B",
        async () => {
          const task = await onB.getTask({ tenant: "", id: taskId, historyLength: undefined });
          return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
        },
        30_000,
      );
      expect(textOf(done.artifacts[0]?.parts)).toBe("echo: background (turn 1)");

      const kinds: string[] = [];
      let answer = "";
      for await (const event of onB.sendMessageStream({
        tenant: "",
        message: userText("streamed", done.contextId),
        configuration: undefined,
        metadata: undefined,
      })) {
        kinds.push(event.payload!.$case);
        if (event.payload!.$case === "artifactUpdate" && event.payload!.value.lastChunk) answer = textOf(event.payload!.value.artifact?.parts);
      }
      expect([kinds[0], kinds[1], kinds.at(-1)]).toEqual(["task", "statusUpdate", "statusUpdate"]);
      expect(answer).toBe("echo: streamed (turn 2)");
    },
    TIMEOUT,
  );

  it(
    "a task working on one replica is seen working and cancelled through the other",
    async () => {
      const onA = await a2aClient(a.url, "waiter");
      const onB = await a2aClient(b.url, "waiter");
      const sent = await sendWithoutWaiting(onA, userText("60000"));
      await eventually("the task working, as read on replica B", async () => {
        const task = await onB.getTask({ tenant: "", id: sent.id, historyLength: undefined });
        return task.status?.state === TaskState.TASK_STATE_WORKING ? task : undefined;
      });
      const canceled = await onB.cancelTask({ tenant: "", id: sent.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await onA.getTask({ tenant: "", id: sent.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    },
    TIMEOUT,
  );
});
