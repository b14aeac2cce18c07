import { describe, it, expect } from "vitest";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, GraphRecursionError, Send } from "@langchain/langgraph";
import { serializeError, toWire } from "./wire-serde.js";

function roundTrips(value: unknown): void {
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

describe("toWire", () => {
  it("turns messages into the {...data, type} dicts the reference server sends", () => {
    const ai = new AIMessage({
      content: "hi",
      id: "m1",
      tool_calls: [{ name: "search", args: { q: "x" }, id: "call-1", type: "tool_call" }],
    });
    const wire = toWire({ messages: [new HumanMessage({ content: "yo", id: "h1" }), ai] }) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(wire.messages[0]).toMatchObject({ type: "human", content: "yo", id: "h1" });
    expect(wire.messages[1]).toMatchObject({
      type: "ai",
      content: "hi",
      id: "m1",
      tool_calls: [{ name: "search", args: { q: "x" }, id: "call-1", type: "tool_call" }],
      invalid_tool_calls: [],
    });
    expect(wire.messages[1]).not.toHaveProperty("lc");
    roundTrips(wire);
  });

  it("keeps the fields of message chunks and tool messages", () => {
    const chunk = toWire(new AIMessageChunk({ content: "to", id: "c1" })) as Record<string, unknown>;
    expect(chunk).toMatchObject({ type: "ai", content: "to", id: "c1", tool_call_chunks: [] });
    const tool = toWire(new ToolMessage({ content: "42", tool_call_id: "call-1", id: "t1" }));
    expect(tool).toMatchObject({ type: "tool", content: "42", tool_call_id: "call-1", id: "t1" });
  });

  it("copies nested plain data, drops functions, symbols and undefined, and nulls non-finite numbers", () => {
    const input = {
      a: { b: [1, "two", true, null, { c: 3 }] },
      fn: () => 1,
      sym: Symbol("s"),
      missing: undefined,
      list: [undefined, () => 1, Number.NaN, Infinity],
      big: 10n,
    };
    const wire = toWire(input);
    expect(wire).toEqual({ a: { b: [1, "two", true, null, { c: 3 }] }, list: [null, null, null, null], big: "10" });
    expect((wire as { a: unknown }).a).not.toBe(input.a);
  });

  it("writes dates as ISO strings and maps and sets as objects and arrays", () => {
    const when = new Date("2025-01-02T03:04:05.678Z");
    expect(toWire({ when, map: new Map([["k", 1]]), set: new Set([1, 2]) })).toEqual({
      when: "2025-01-02T03:04:05.678Z",
      map: { k: 1 },
      set: [1, 2],
    });
  });

  it("cuts a cycle where it closes and keeps shared references", () => {
    const shared = { x: 1 };
    const node: Record<string, unknown> = { name: "root", shared, again: shared };
    node.self = node;
    node.children = [node, { parent: node }];
    expect(toWire(node)).toEqual({ name: "root", shared: { x: 1 }, again: { x: 1 }, children: [null, {}] });
  });

  it("writes errors as {error, message}, nested or not", () => {
    expect(toWire({ failure: new TypeError("bad") })).toEqual({ failure: { error: "TypeError", message: "bad" } });
  });

  it("writes Send as {node, input} and Command as a plain object", () => {
    expect(toWire(new Send("worker", { n: 1 }))).toEqual({ node: "worker", input: { n: 1 } });
    const command = new Command({ resume: "yes", update: { a: 1 }, goto: ["next", new Send("w", { n: 2 })] });
    expect(toWire(command)).toEqual({ resume: "yes", update: { a: 1 }, goto: ["next", { node: "w", input: { n: 2 } }] });
  });

  it("honours toJSON on other class instances", () => {
    class Money {
      constructor(private readonly cents: number) {}
      toJSON() {
        return { amount: this.cents / 100 };
      }
    }
    expect(toWire({ price: new Money(250) })).toEqual({ price: { amount: 2.5 } });
  });
});

describe("serializeError", () => {
  it("names the error by its name, or its class when the name was left as Error", () => {
    expect(serializeError(new GraphRecursionError("too deep"))).toEqual({ error: "GraphRecursionError", message: "too deep" });
    class QuotaExceeded extends Error {}
    expect(serializeError(new QuotaExceeded("over"))).toEqual({ error: "QuotaExceeded", message: "over" });
    expect(serializeError(new Error("plain"))).toEqual({ error: "Error", message: "plain" });
  });

  it("describes thrown values that are not errors", () => {
    expect(serializeError("boom")).toEqual({ error: "Error", message: "boom" });
    expect(serializeError({ code: 7 })).toEqual({ error: "Error", message: '{"code":7}' });
  });

  it("reads errors revived from a checkpoint, which are plain {name, message} objects", () => {
    expect(serializeError({ name: "RangeError", message: "out of range" })).toEqual({ error: "RangeError", message: "out of range" });
  });
});
