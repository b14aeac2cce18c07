// From what core LangGraph's `streamEvents(..., {version: "v3"})` yields to what the protocol
// sends, for one run: the root's lifecycle is the server's to say (it knows how the run ended), an
// interrupt becomes one `input.requested` per interrupt id, `values` lose `__interrupt__`, state
// messages take the protocol's message shape, and named custom channels become `custom` events
// with a name. Alongside, the classic events the run's own log keeps (values, updates, custom),
// so join, wait and the classic streams answer for a protocol run as for any other.
import type { Namespace } from "@langchain/protocol";
import type { RunEvent } from "../events/run-event-log.js";
import type { CoreProtocolEvent } from "../runtime/protocol-stream.js";
import { toWire } from "../runtime/wire-serde.js";

/** A protocol event before the recorder gives it its place in the thread (`seq`, `event_id`). */
export type DraftEvent = CoreProtocolEvent;

export interface ProtocolNormalizer {
  see(event: CoreProtocolEvent): { protocol: DraftEvent[]; classic: RunEvent[] };
  /** Whether the run asked for input (an interrupt in any namespace). */
  readonly interrupted: boolean;
}

const INTERRUPT = "__interrupt__";

export function protocolNormalizer(): ProtocolNormalizer {
  const requested = new Set<string>();
  // Per namespace, the last values: a classic `values` event with an interrupt carries the state it interrupted.
  const lastValues = new Map<string, unknown>();

  const inputRequests = (namespace: Namespace, timestamp: number, interrupts: unknown): DraftEvent[] => {
    const out: DraftEvent[] = [];
    for (const entry of Array.isArray(interrupts) ? interrupts : []) {
      if (!isRecord(entry) || typeof entry.id !== "string" || requested.has(entry.id)) continue;
      requested.add(entry.id);
      out.push({ method: "input.requested", params: { namespace, timestamp, data: { interrupt_id: entry.id, payload: entry.value ?? null } } });
    }
    return out;
  };

  return {
    get interrupted() {
      return requested.size > 0;
    },

    see(event) {
      const { namespace, timestamp } = event.params;
      const data = toWire(event.params.data);
      const name = (mode: string) => (namespace.length === 0 ? mode : `${mode}|${namespace.join("|")}`);
      const draft = (method: string, payload: unknown, node?: string): DraftEvent => ({
        method,
        params: { namespace, timestamp, ...(node !== undefined ? { node } : {}), data: payload },
      });
      switch (event.method) {
        case "lifecycle":
          return { protocol: namespace.length === 0 ? [] : [draft("lifecycle", data)], classic: [] };
        case "values": {
          const key = namespace.join("|");
          if (isRecord(data) && INTERRUPT in data) {
            const { [INTERRUPT]: interrupts, ...rest } = data;
            const state = Object.keys(rest).length > 0 ? rest : lastValues.get(key);
            const classic = { ...(isRecord(state) ? state : {}), [INTERRUPT]: interrupts };
            const protocol = inputRequests(namespace, timestamp, interrupts);
            if (Object.keys(rest).length > 0) protocol.push(draft("values", protocolState(rest)));
            return { protocol, classic: [{ event: name("values"), data: classic }] };
          }
          lastValues.set(key, data);
          const protocol = isRecord(data) && Object.keys(data).length === 0 ? [] : [draft("values", protocolState(data))];
          return { protocol, classic: [{ event: name("values"), data }] };
        }
        case "updates": {
          const update = isRecord(data) ? data : {};
          const node = typeof update.node === "string" ? update.node : (event.params.node ?? "");
          if (node === INTERRUPT) return { protocol: inputRequests(namespace, timestamp, update.values), classic: [] };
          const values = isRecord(update.values) ? update.values : { value: update.values ?? null };
          return { protocol: [draft("updates", protocolState(values), node)], classic: [{ event: name("updates"), data: { [node]: update.values ?? null } }] };
        }
        case "custom": {
          const payload = isRecord(data) && "payload" in data ? data.payload : data;
          return { protocol: [draft("custom", data)], classic: [{ event: name("custom"), data: payload }] };
        }
        case "messages":
        case "tools":
        case "checkpoints":
        case "tasks":
          return { protocol: [draft(event.method, data, event.params.node)], classic: [] };
        default: {
          // Extension channels (`custom:<name>`, or a transformer's own) reach clients as named custom events.
          const channel = event.method.startsWith("custom:") ? event.method.slice("custom:".length) : event.method;
          return { protocol: [draft("custom", { name: channel, payload: data })], classic: [] };
        }
      }
    },
  };
}

/**
 * State as the protocol shows it: messages in the protocol's message shape (type, content, id,
 * name, and the fields of their kind), everything else as it is.
 */
export function protocolState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isMessage(item) ? protocolMessage(item) : protocolState(item)));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === INTERRUPT) continue;
    out[key] = protocolState(entry);
  }
  return out;
}

const MESSAGE_TYPES: Record<string, string> = {
  human: "human",
  user: "human",
  ai: "ai",
  assistant: "ai",
  system: "system",
  tool: "tool",
  function: "function",
  remove: "remove",
};

function isMessage(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.type === "string" && value.type in MESSAGE_TYPES && "content" in value;
}

function protocolMessage(message: Record<string, unknown>): Record<string, unknown> {
  const type = MESSAGE_TYPES[message.type as string]!;
  const out: Record<string, unknown> = { type, content: message.content ?? "" };
  if (typeof message.id === "string") out.id = message.id;
  if (typeof message.name === "string") out.name = message.name;
  if (isRecord(message.response_metadata) && Object.keys(message.response_metadata).length > 0) out.response_metadata = message.response_metadata;
  if (type === "tool") {
    for (const key of ["tool_call_id", "status", "artifact"]) if (message[key] !== undefined) out[key] = message[key];
  }
  if (type === "ai") {
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
    if (calls.length > 0)
      out.tool_calls = calls.map((c) => ({ ...(typeof c.id === "string" ? { id: c.id } : {}), name: c.name, args: c.args ?? {}, type: "tool_call" }));
    const invalid = Array.isArray(message.invalid_tool_calls) ? message.invalid_tool_calls : [];
    if (invalid.length > 0) out.invalid_tool_calls = invalid;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
