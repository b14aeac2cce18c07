import { describe, expect, it } from "vitest";
import type { Assistant } from "../domain/records.js";
import { firstNamed, toolFor, toolResult, uniqueByName } from "./assistant-tools.js";

const assistant = (id: string, name: string, created_at: string, description: string | null = null): Assistant => ({
  assistant_id: id,
  graph_id: "g",
  config: {},
  context: {},
  metadata: {},
  version: 1,
  name,
  description,
  created_at,
  updated_at: created_at,
});

describe("uniqueByName and firstNamed", () => {
  const system = assistant("a1", "echo", "2026-01-01T00:00:00.000Z", "the graph's own");
  const later = assistant("a2", "echo", "2026-01-02T00:00:00.000Z");
  const other = assistant("a3", "parrot", "2026-01-03T00:00:00.000Z");

  it("keeps the oldest assistant of each name, whatever order they come in, and names the others", () => {
    expect(uniqueByName([other, later, system])).toEqual({ tools: [system, other], hidden: [later] });
  });

  it("resolves a call to the assistant the list shows, by exact name", () => {
    expect(firstNamed([later, system, other], "echo")).toBe(system);
    expect(firstNamed([other], "parr")).toBeUndefined();
  });
});

describe("toolFor", () => {
  it("takes the assistant's name and description and the graph's object input schema", () => {
    const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    expect(toolFor(assistant("a", "ask", "t", "Answers"), schema)).toEqual({ name: "ask", description: "Answers", inputSchema: schema });
  });

  it("falls back to an object schema when the graph's is unknown or not an object", () => {
    expect(toolFor(assistant("a", "ask", "t"), null)).toEqual({ name: "ask", inputSchema: { type: "object" } });
    expect(toolFor(assistant("a", "ask", "t"), { type: "string" }).inputSchema).toEqual({ type: "object" });
  });
});

describe("toolResult", () => {
  it("answers values as JSON text, and as structured content when they are an object", () => {
    expect(toolResult({ reply: "hi" })).toEqual({ content: [{ type: "text", text: '{"reply":"hi"}' }], structuredContent: { reply: "hi" } });
    expect(toolResult([1, 2])).toEqual({ content: [{ type: "text", text: "[1,2]" }] });
    expect(toolResult(null)).toEqual({ content: [{ type: "text", text: "null" }] });
  });

  it("answers a failed run as a tool error with the graph's error", () => {
    expect(toolResult({ __error__: { error: "BoomError", message: "boom" } })).toEqual({ isError: true, content: [{ type: "text", text: "BoomError: boom" }] });
  });
});
