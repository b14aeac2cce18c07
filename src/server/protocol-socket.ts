// The thread protocol (v2) on one WebSocket: commands in as `{id, method, params}` frames, their
// answers and the thread's events out. Subscriptions belong to the connection and outlive runs;
// everything else (starting runs, answering interrupts, state) is the protocol service's, called
// with the connection's caller, so each command meets the same auth handlers as over HTTP.
//
// One reader per connection follows the thread's protocol event log and sends each event once if
// any subscription wants it. A new subscription restarts that reader from the log's start: events
// up to where it had got are sent again for the new subscription only (its replay), the client
// drops the ones it has by `event_id`, and the answer to the subscribe goes out before them.
import { randomUUID } from "node:crypto";
import { matchesSubscription } from "@langchain/langgraph/stream";
import type { Access } from "../domain/access.js";
import { AuthRejection, GantryError } from "../errors.js";
import type { Logger } from "../logging.js";
import { statusOf } from "./errors.js";
import type { WebSocketConnection } from "./websocket-connection.js";

export interface ProtocolEvent {
  type: "event";
  event_id?: string;
  seq?: number;
  method: string;
  params: { namespace: string[]; data?: unknown; [key: string]: unknown };
}

export interface ProtocolCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export type ProtocolAnswer =
  | { type: "success"; id: number; result: unknown; meta?: Record<string, unknown> }
  | { type: "error"; id: number | null; error: string; message: string; meta?: Record<string, unknown> };

export interface EventFilter {
  channels: string[];
  namespaces?: string[][];
  depth?: number;
}

/** What the transport needs from the protocol service. */
export interface ProtocolEndpoint {
  /** run.start, input.respond, state.get, agent.getTree, … for the caller. */
  command(threadId: string, command: ProtocolCommand, access: Access | undefined): Promise<ProtocolAnswer>;
  /** The thread's protocol events matching `filter`, from the start of what is retained, then live until `signal`. */
  events(threadId: string, filter: EventFilter, options: { signal: AbortSignal; access?: Access }): AsyncIterable<ProtocolEvent>;
}

/** Every channel, so the reader sees all events and each subscription is matched here. */
const ALL_CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"];
const CHANNELS = new Set(ALL_CHANNELS);

interface Reader {
  stop: AbortController;
  done: Promise<void>;
}

export function serveProtocolSocket(
  connection: WebSocketConnection,
  deps: { threadId: string; access: Access | undefined; endpoint: ProtocolEndpoint; log: Logger },
): void {
  const { threadId, access, endpoint, log } = deps;
  const subscriptions = new Map<string, EventFilter>();
  /** The seq of the last event the reader dealt with (sent or passed over). */
  let lastSeq: number | undefined;
  let reader: Reader | undefined;
  /** Subscribe and unsubscribe one at a time: each stops and restarts the reader. */
  let changes: Promise<void> = Promise.resolve();

  const send = (frame: unknown) => connection.send(frame);
  const fail = (id: number | null, error: string, message: string) => send({ type: "error", id, error, message });

  const stopReader = async () => {
    if (!reader) return;
    reader.stop.abort();
    await reader.done;
    reader = undefined;
  };

  /** Follows the log; events up to `replay.upTo` are sent only for the new subscription `replay.id`. */
  const startReader = (replay?: { id: string; upTo: number }) => {
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, connection.signal]);
    const done = (async () => {
      try {
        for await (const event of endpoint.events(threadId, { channels: ALL_CHANNELS }, { signal, ...(access ? { access } : {}) })) {
          if (signal.aborted) return;
          const seq = event.seq;
          const replaying = replay !== undefined && seq !== undefined && seq <= replay.upTo;
          const wanted = replaying ? wants(subscriptions.get(replay.id), event) : [...subscriptions.values()].some((filter) => wants(filter, event));
          if (wanted) await send(event);
          if (seq !== undefined && (lastSeq === undefined || seq > lastSeq)) lastSeq = seq;
        }
      } catch (err) {
        if (signal.aborted) return;
        closeOnError(connection, err, log);
      }
    })();
    reader = { stop, done };
  };

  const subscribe = async (command: ProtocolCommand) => {
    const filter = readFilter(command.params);
    if (typeof filter === "string") return fail(command.id, "invalid_argument", filter);
    await stopReader();
    const id = randomUUID();
    subscriptions.set(id, filter);
    await send({
      type: "success",
      id: command.id,
      result: { subscription_id: id },
      meta: { thread_id: threadId, ...(lastSeq !== undefined ? { applied_through_seq: lastSeq } : {}) },
    });
    startReader(lastSeq !== undefined ? { id, upTo: lastSeq } : undefined);
  };

  const unsubscribe = async (command: ProtocolCommand) => {
    const id = command.params?.subscription_id;
    if (typeof id !== "string") return fail(command.id, "invalid_argument", "subscription.unsubscribe requires params.subscription_id (a string)");
    if (!subscriptions.delete(id)) return fail(command.id, "no_such_subscription", `Unknown subscription: ${id}`);
    // Nothing left to deliver: stop reading; a later subscribe starts again from the log.
    if (subscriptions.size === 0) await stopReader();
    await send({ type: "success", id: command.id, result: {}, meta: { thread_id: threadId } });
  };

  const oneAtATime = (change: () => Promise<void>) => {
    const step = changes.then(change);
    changes = step.catch(() => undefined);
    return step;
  };

  const run = async (command: ProtocolCommand) => {
    switch (command.method) {
      case "subscription.subscribe":
        return oneAtATime(() => subscribe(command));
      case "subscription.unsubscribe":
        return oneAtATime(() => unsubscribe(command));
      case "subscription.reconnect":
        // As the official server: a reconnecting client subscribes again and drops what it has seen.
        return fail(command.id, "not_supported", "subscription.reconnect is not supported: subscribe again; replayed events carry their event_id");
      default:
        return send(await endpoint.command(threadId, command, access));
    }
  };

  // Commands run side by side, as a subscribe may wait on a run.start sent after it.
  connection.onText((text) => {
    const command = readCommand(text);
    if ("problem" in command) {
      void fail(command.id, "invalid_argument", command.problem);
      return;
    }
    run(command).catch((err: unknown) => {
      const [code, message] = protocolError(err, log);
      void fail(command.id, code, message);
    });
  });
  connection.signal.addEventListener("abort", () => reader?.stop.abort(), { once: true });
}

function wants(filter: EventFilter | undefined, event: ProtocolEvent): boolean {
  return filter !== undefined && matchesSubscription(event as Parameters<typeof matchesSubscription>[0], filter as Parameters<typeof matchesSubscription>[1]);
}

/** A frame as a command, or what is wrong with it (and its id, when it has a usable one). */
export function readCommand(text: string): ProtocolCommand | { id: number | null; problem: string } {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (err) {
    return { id: null, problem: `Protocol commands must be valid JSON: ${(err as Error).message}` };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { id: null, problem: "A protocol command must be a JSON object {id, method, params}" };
  }
  const { id, method, params } = payload as Record<string, unknown>;
  if (typeof id !== "number" || !Number.isInteger(id) || id < 0) {
    return { id: null, problem: `Field 'id' must be a non-negative integer, got ${JSON.stringify(id) ?? "nothing"}` };
  }
  if (typeof method !== "string" || method.length === 0) {
    return { id, problem: `Field 'method' must be a non-empty string, got ${JSON.stringify(method) ?? "nothing"}` };
  }
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return { id, problem: "Field 'params' must be an object when present" };
  }
  return { id, method, ...(params !== undefined ? { params: params as Record<string, unknown> } : {}) };
}

/** A subscribe's params as a filter, or a sentence naming the field that is wrong. */
export function readFilter(params: Record<string, unknown> | undefined): EventFilter | string {
  const channels = params?.channels;
  if (!Array.isArray(channels) || channels.length === 0) return "subscription.subscribe requires params.channels, a non-empty array";
  const unknown = channels.filter((channel) => typeof channel !== "string" || !(CHANNELS.has(channel) || channel.startsWith("custom:")));
  if (unknown.length > 0) return `subscription.subscribe: unsupported channel ${JSON.stringify(unknown[0])}; use ${ALL_CHANNELS.join(", ")} or custom:<name>`;
  const filter: EventFilter = { channels: channels as string[] };
  const namespaces = params?.namespaces;
  if (namespaces !== undefined) {
    if (!Array.isArray(namespaces) || !namespaces.every((ns) => Array.isArray(ns) && ns.every((segment) => typeof segment === "string"))) {
      return "subscription.subscribe: params.namespaces must be an array of namespaces (arrays of strings)";
    }
    filter.namespaces = namespaces as string[][];
  }
  const depth = params?.depth;
  if (depth !== undefined) {
    if (typeof depth !== "number" || !Number.isInteger(depth) || depth < 0) return "subscription.subscribe: params.depth must be a non-negative integer";
    filter.depth = depth;
  }
  return filter;
}

/** A command that threw: the protocol's error code and a sentence for the client. */
function protocolError(err: unknown, log: Logger): [string, string] {
  if (err instanceof AuthRejection) return ["permission_denied", err.message];
  if (err instanceof GantryError) {
    if (err.kind === "forbidden" || err.kind === "unauthenticated") return ["permission_denied", err.message];
    if (err.kind === "unsupported") return ["not_supported", err.message];
    if (err.kind === "unavailable") return ["unknown_error", err.message];
    return ["invalid_argument", err.message];
  }
  const reference = randomUUID();
  log.error("protocol command failed", { reference, err });
  return ["unknown_error", `Internal error (reference ${reference}). The server log has the details.`];
}

/**
 * The reader failed: a refusal closes with 4000 + the status the HTTP API would answer (the SDK
 * ends the stream on 4xx codes and keeps its status), anything else with 1011 after a log line.
 */
function closeOnError(connection: WebSocketConnection, err: unknown, log: Logger): void {
  if (err instanceof GantryError) {
    connection.close(4000 + statusOf(err.kind), err.message);
  } else if (err instanceof AuthRejection) {
    connection.close(4000 + err.status, err.message);
  } else {
    const reference = randomUUID();
    log.error("protocol event stream failed", { reference, err });
    connection.close(1011, `Internal error (reference ${reference})`);
  }
}
