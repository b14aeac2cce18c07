import { describe, expect, it } from "vitest";
import type { Run, RunStatus } from "../domain/records.js";
import { JSONRPC_CODES, type JsonRpcError } from "./json-rpc.js";
import type { IncomingMessage } from "./protocol.js";
import { answerChunk, inputFromMessage, resumeFromMessage, taskOf, taskState } from "./task-mapping.js";

const run = (status: RunStatus): Run =>
  ({ run_id: "r1", thread_id: "t1", assistant_id: "a1", status, updated_at: "2026-01-01T00:00:00.000Z" }) as unknown as Run;

const message = (parts: IncomingMessage["parts"]): IncomingMessage => ({ messageId: "m1", role: "user", parts });

describe("taskState", () => {
  it.each([
    ["pending", null, "submitted"],
    ["running", null, "working"],
    ["success", { messages: [] }, "completed"],
    ["success", { messages: [], __interrupt__: [{ id: "i", value: "name?" }] }, "input-required"],
    ["interrupted", null, "canceled"],
    ["error", { __error__: { error: "ValueError", message: "bad" } }, "failed"],
    ["timeout", null, "failed"],
  ] as const)("maps a %s run (output %j) to %s", (status, output, state) => {
    expect(taskState(run(status), output)).toBe(state);
  });
});

describe("inputFromMessage", () => {
  const messagesGraph = { graphId: "chat", hasMessages: true };

  it("puts text on the messages channel as one human message carrying the A2A message id", () => {
    expect(inputFromMessage(message([{ kind: "text", text: "hi" }]), messagesGraph)).toEqual({ messages: [{ type: "human", content: "hi", id: "m1" }] });
  });

  it("keeps several text parts as content blocks and merges data parts into the input", () => {
    const input = inputFromMessage(
      message([
        { kind: "data", data: { topic: "x" } },
        { kind: "text", text: "a" },
        { kind: "text", text: "b" },
      ]),
      messagesGraph,
    );
    expect(input).toEqual({
      topic: "x",
      messages: [
        {
          type: "human",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
          id: "m1",
        },
      ],
    });
  });

  it("refuses text for a graph without messages (invalid params) and files for any (content type)", () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err as JsonRpcError;
      }
      throw new Error("expected a refusal");
    };
    expect(refusal(() => inputFromMessage(message([{ kind: "text", text: "hi" }]), { graphId: "counter", hasMessages: false })).code).toBe(
      JSONRPC_CODES.invalidParams,
    );
    expect(refusal(() => inputFromMessage(message([{ kind: "file", file: { uri: "http://x" } }]), messagesGraph)).code).toBe(
      JSONRPC_CODES.contentTypeNotSupported,
    );
    expect(inputFromMessage(message([{ kind: "data", data: { count: 1 } }]), { graphId: "counter", hasMessages: false })).toEqual({ count: 1 });
  });
});

describe("resumeFromMessage", () => {
  it("resumes with the text, or with the data when there is no text", () => {
    expect(resumeFromMessage(message([{ kind: "text", text: "Ada" }]))).toBe("Ada");
    expect(resumeFromMessage(message([{ kind: "data", data: { approve: true } }]))).toEqual({ approve: true });
  });
});

describe("taskOf", () => {
  const output = {
    messages: [
      { type: "human", content: "hi", id: "h1" },
      { type: "ai", content: "", id: "a0", tool_calls: [{ name: "t" }] },
      { type: "tool", content: "42", id: "t1" },
      { type: "ai", content: [{ type: "text", text: "hello" }], id: "a1" },
    ],
  };

  it("answers with the last AI text as artifact and status message, and the conversation without tool traffic as history", () => {
    const task = taskOf(run("success"), output);
    expect(task).toMatchObject({
      kind: "task",
      id: "r1",
      contextId: "t1",
      status: { state: "completed", message: { role: "agent", parts: [{ kind: "text", text: "hello" }] } },
    });
    expect(task.artifacts).toEqual([{ artifactId: "r1-answer", name: "Assistant Response", parts: [{ kind: "text", text: "hello" }] }]);
    expect(task.history?.map((m) => [m.role, m.messageId])).toEqual([
      ["user", "h1"],
      ["agent", "a1"],
    ]);
    expect(taskOf(run("success"), output, { historyLength: 1 }).history?.map((m) => m.messageId)).toEqual(["a1"]);
    expect(taskOf(run("success"), output, { historyLength: 0 }).history).toEqual([]);
  });

  it("answers a graph without messages with its values as a data part", () => {
    expect(taskOf(run("success"), { count: 2 }).artifacts).toEqual([
      { artifactId: "r1-answer", name: "Assistant Response", parts: [{ kind: "data", data: { count: 2 } }] },
    ]);
  });

  it("gives a failed task the error as its status message and no artifact", () => {
    const task = taskOf(run("error"), { __error__: { error: "ValueError", message: "bad" } });
    expect(task.status.message?.parts).toEqual([{ kind: "text", text: "ValueError: bad" }]);
    expect(task.artifacts).toEqual([]);
  });

  it("says nothing yet for an unfinished run", () => {
    const task = taskOf(run("running"), null);
    expect(task.status).toEqual({ state: "working", timestamp: "2026-01-01T00:00:00.000Z" });
    expect(task.artifacts).toEqual([]);
  });
});

describe("answerChunk", () => {
  it("takes the text of root AI message events and nothing else", () => {
    const event = (name: string, type: string, content: unknown) => ({ event: name, data: [{ type, content }, {}] });
    expect(answerChunk("r1", event("messages", "AIMessageChunk", "he"))).toEqual({
      artifactId: "r1-answer",
      name: "Assistant Response",
      parts: [{ kind: "text", text: "he" }],
    });
    expect(answerChunk("r1", event("messages", "ai", [{ type: "text", text: "whole" }]))?.parts).toEqual([{ kind: "text", text: "whole" }]);
    expect(answerChunk("r1", event("messages", "human", "hi"))).toBeUndefined();
    expect(answerChunk("r1", event("messages", "AIMessageChunk", ""))).toBeUndefined();
    expect(answerChunk("r1", event("messages|sub:1", "AIMessageChunk", "x"))).toBeUndefined();
    expect(answerChunk("r1", { event: "values", data: { messages: [] } })).toBeUndefined();
  });
});
