// Assistants as MCP tools, and a run's output as a tool result: pure mapping, no I/O. As on the
// platform, a tool is named after its assistant, described by it, and takes its graph's input
// schema; calling it runs the assistant once, statelessly.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Assistant } from "../domain/records.js";

export type JsonSchema = Record<string, unknown>;

/**
 * Tool names must be unique within a server. Assistants are taken oldest first, so a graph's own
 * assistant (created at start-up, named after the graph) keeps its name; a later assistant with a
 * name already taken is left out of the list and named in `hidden`, and a call by that name runs
 * the one listed (`firstNamed`).
 */
export function uniqueByName(assistants: readonly Assistant[]): { tools: Assistant[]; hidden: Assistant[] } {
  const seen = new Set<string>();
  const tools: Assistant[] = [];
  const hidden: Assistant[] = [];
  for (const assistant of oldestFirst(assistants)) {
    if (seen.has(assistant.name)) hidden.push(assistant);
    else {
      seen.add(assistant.name);
      tools.push(assistant);
    }
  }
  return { tools, hidden };
}

/** The assistant a call by `name` runs: the oldest with exactly that name, the one tools/list shows. */
export function firstNamed(assistants: readonly Assistant[], name: string): Assistant | undefined {
  return oldestFirst(assistants).find((assistant) => assistant.name === name);
}

function oldestFirst(assistants: readonly Assistant[]): Assistant[] {
  return [...assistants].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.assistant_id.localeCompare(b.assistant_id));
}

export function toolFor(assistant: Assistant, inputSchema: JsonSchema | null | undefined): Tool {
  return {
    name: assistant.name,
    ...(assistant.description ? { description: assistant.description } : {}),
    inputSchema: objectSchema(inputSchema),
  };
}

/**
 * MCP requires an object schema for a tool's input. A graph whose input schema cannot be read
 * (state without a runtime schema and no TypeScript types) still takes an object: its state keys.
 */
function objectSchema(schema: JsonSchema | null | undefined): Tool["inputSchema"] {
  if (schema && schema.type === "object") return schema as Tool["inputSchema"];
  return { type: "object" };
}

/**
 * A run's final output (what POST /runs/wait answers) as a tool result: the values as JSON text,
 * and as structured content when they are an object. A run that failed is a tool error carrying
 * the graph's error, so the model can see it, rather than a protocol error.
 */
export function toolResult(output: unknown): CallToolResult {
  const error = runError(output);
  if (error) return { isError: true, content: [{ type: "text", text: error }] };
  const text = JSON.stringify(output ?? null);
  const structured = output !== null && typeof output === "object" && !Array.isArray(output);
  return { content: [{ type: "text", text }], ...(structured ? { structuredContent: output as Record<string, unknown> } : {}) };
}

function runError(output: unknown): string | undefined {
  if (output === null || typeof output !== "object" || !("__error__" in output)) return undefined;
  const error = (output as { __error__: unknown }).__error__;
  if (error && typeof error === "object") {
    const { error: name, message } = error as { error?: unknown; message?: unknown };
    if (typeof message === "string") return typeof name === "string" && name ? `${name}: ${message}` : message;
  }
  return JSON.stringify(error);
}
