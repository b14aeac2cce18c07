// The `lifecycle` stream mode (SDK 1.15 `LifecycleStreamEvent`): one `lifecycle|<namespace>` event
// when a subgraph starts, and one when it completes, fails or is interrupted. LangGraph streams no
// such thing, so it is derived from the `tasks` chunks of every namespace: a namespace's first chunk
// means it started, and the parent's result for the task that ran it (`<node>:<task id>`) says how
// it ended. The root graph gets none: the SDK's type describes subgraphs only.
import type { LifecycleStreamEvent } from "@langchain/langgraph-sdk";
import { serializeError } from "./wire-serde.js";

type LifecycleData = LifecycleStreamEvent["data"];

export interface LifecycleEvent {
  event: string;
  data: LifecycleData;
}

export interface LifecycleTracker {
  /** Called for every library chunk, before its own events are emitted. */
  see(namespace: string[], mode: string, payload: unknown): LifecycleEvent[];
  /**
   * Subgraphs still open when the run ends: failed with the run's error; otherwise interrupted,
   * since a subgraph that ran to its end was closed by its parent's task result, and a breakpoint
   * (interruptBefore/After compiled into a subgraph) stops the run without one.
   */
  end(error?: unknown): LifecycleEvent[];
}

export function lifecycleTracker(): LifecycleTracker {
  /** Keys (namespace joined by `|`) of the subgraphs started and not yet ended, in start order. */
  const open = new Map<string, string[]>();
  const ended = new Set<string>();
  /** Task id -> the tool call it runs, from the task's input, for `tool_call_id`. */
  const toolCalls = new Map<string, string>();

  const event = (namespace: string[], data: Omit<LifecycleData, "namespace">): LifecycleEvent => ({
    event: `lifecycle|${namespace.join("|")}`,
    data: { ...data, namespace },
  });

  function started(namespace: string[]): LifecycleEvent[] {
    const out: LifecycleEvent[] = [];
    for (let length = 1; length <= namespace.length; length += 1) {
      const prefix = namespace.slice(0, length);
      const key = prefix.join("|");
      if (open.has(key) || ended.has(key)) continue;
      open.set(key, prefix);
      const toolCallId = toolCalls.get(taskIdOf(prefix[prefix.length - 1]!));
      out.push(event(prefix, { event: "started", ...(toolCallId !== undefined ? { tool_call_id: toolCallId } : {}) }));
    }
    return out;
  }

  function finished(namespace: string[], task: Record<string, unknown>): LifecycleEvent[] {
    const child = [...namespace, `${String(task.name)}:${String(task.id)}`];
    const key = child.join("|");
    if (!open.has(key)) return [];
    // Nested subgraphs the parent's result did not close (an error thrown through them) end with it.
    const out = closeUnder(key, task.error != null ? { event: "failed", error: serializeError(task.error) } : undefined);
    open.delete(key);
    ended.add(key);
    if (task.error != null) out.push(event(child, { event: "failed", error: serializeError(task.error) }));
    else if (Array.isArray(task.interrupts) && task.interrupts.length > 0) out.push(event(child, { event: "interrupted" }));
    else out.push(event(child, { event: "completed" }));
    return out;
  }

  function closeUnder(parentKey: string, how: Omit<LifecycleData, "namespace"> | undefined): LifecycleEvent[] {
    const out: LifecycleEvent[] = [];
    const inner = [...open].filter(([key]) => key.startsWith(`${parentKey}|`)).reverse();
    for (const [key, namespace] of inner) {
      open.delete(key);
      ended.add(key);
      out.push(event(namespace, how ?? { event: "completed" }));
    }
    return out;
  }

  return {
    see(namespace, mode, payload) {
      const out = namespace.length > 0 ? started(namespace) : [];
      if (mode !== "tasks" || !isRecord(payload) || typeof payload.id !== "string") return out;
      if ("input" in payload) {
        const toolCallId = toolCallOf(payload.input);
        if (toolCallId !== undefined) toolCalls.set(payload.id, toolCallId);
        return out;
      }
      return [...out, ...finished(namespace, payload)];
    },
    end(error) {
      const how: Omit<LifecycleData, "namespace"> = error === undefined ? { event: "interrupted" } : { event: "failed", error: serializeError(error) };
      const out = [...open.values()].reverse().map((namespace) => event(namespace, how));
      open.clear();
      return out;
    },
  };
}

/** `<node>:<task id>` -> the task id. */
function taskIdOf(segment: string): string {
  return segment.slice(segment.indexOf(":") + 1);
}

/**
 * The tool call a task runs: a ToolNode task sent one call gets `{tool_call: {id}}` (with context);
 * older ToolNodes get a list of tool calls.
 */
function toolCallOf(input: unknown): string | undefined {
  if (isRecord(input) && isRecord(input.tool_call) && typeof input.tool_call.id === "string") return input.tool_call.id;
  if (Array.isArray(input) && input.length === 1 && isRecord(input[0]) && typeof input[0].id === "string" && "args" in input[0]) return input[0].id;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
