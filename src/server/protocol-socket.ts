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
import type { Command, Event, EventStreamRequest } from "@langchain/protocol";
import { AuthRejection, GantryError } from "../errors.js";
import type { Logger } from "../logging.js";
import { errorResponse, parseCommand } from "../protocol/commands.js";
import { matchesFilter, parseEventFilter } from "../protocol/filter.js";
import { protocolErrorOf, type ProtocolCaller, type ProtocolService } from "../protocol/service.js";
import { statusOf } from "./errors.js";
import type { WebSocketConnection } from "./websocket-connection.js";

/** Every channel, so the reader sees all events and each subscription is matched here. */
const EVERYTHING: EventStreamRequest = { channels: ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"] };

interface Reader {
  stop: AbortController;
  done: Promise<void>;
  /** The seq of the last event this reader dealt with (sent or passed over); undefined before the first. */
  position: number | undefined;
}

export function serveProtocolSocket(
  connection: WebSocketConnection,
  deps: { threadId: string; caller: ProtocolCaller; protocol: ProtocolService; log: Logger },
): void {
  const { threadId, caller, protocol, log } = deps;
  const subscriptions = new Map<string, EventStreamRequest>();
  /** The highest seq any reader of this connection dealt with, for `applied_through_seq`. */
  let lastSeq: number | undefined;
  /**
   * Where the last reader stopped. Every subscription has been sent what it matched up to there
   * (one still being replayed, only up to there), so the next reader replays up to there for its
   * new subscription alone and sends everything after it to all: at worst a repeat the client
   * drops by `event_id`, never a gap.
   */
  let stoppedAt: number | undefined;
  let reader: Reader | undefined;
  /** Subscribe and unsubscribe one at a time: each stops and restarts the reader. */
  let changes: Promise<void> = Promise.resolve();

  const send = (frame: unknown) => connection.send(frame);

  const stopReader = async () => {
    if (!reader) return;
    reader.stop.abort();
    await reader.done;
    stoppedAt = reader.position;
    reader = undefined;
  };

  /** Follows the log; events up to `replay.upTo` are sent only for the new subscription `replay.id`. */
  const startReader = (replay?: { id: string; upTo: number }) => {
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, connection.signal]);
    const current: Reader = { stop, done: Promise.resolve(), position: undefined };
    current.done = (async () => {
      try {
        const events = await protocol.events(threadId, EVERYTHING, { signal, ...(caller.access ? { access: caller.access } : {}) });
        for await (const event of events) {
          if (signal.aborted) return;
          if (wanted(event, replay)) await send(event);
          if (event.seq === undefined) continue;
          current.position = event.seq;
          if (lastSeq === undefined || event.seq > lastSeq) lastSeq = event.seq;
        }
        // The log ended under a live reader: the thread was deleted, or was created by someone else.
        if (!signal.aborted) connection.close(4404, `Thread ${threadId} was deleted or is not visible to this caller`);
      } catch (err) {
        if (!signal.aborted) closeOnError(connection, err, log);
      }
    })();
    reader = current;
  };

  const wanted = (event: Event, replay: { id: string; upTo: number } | undefined) => {
    if (replay && event.seq !== undefined && event.seq <= replay.upTo) {
      const filter = subscriptions.get(replay.id);
      return filter !== undefined && matchesFilter(event, filter);
    }
    for (const filter of subscriptions.values()) if (matchesFilter(event, filter)) return true;
    return false;
  };

  const meta = () => ({ thread_id: threadId, ...(lastSeq !== undefined ? { applied_through_seq: lastSeq } : {}) });

  const subscribe = async (command: Command) => {
    const filter = parseEventFilter(command.params);
    await stopReader();
    const id = randomUUID();
    subscriptions.set(id, filter);
    await send({ type: "success", id: command.id, result: { subscription_id: id }, meta: meta() });
    startReader(stoppedAt !== undefined ? { id, upTo: stoppedAt } : undefined);
  };

  const unsubscribe = async (command: Command) => {
    const id = (command.params as { subscription_id?: unknown } | undefined)?.subscription_id;
    if (typeof id !== "string") {
      return send(errorResponse(command.id, "invalid_argument", "Field 'params.subscription_id' is invalid: name the subscription to end"));
    }
    if (!subscriptions.delete(id)) return send(errorResponse(command.id, "no_such_subscription", `Unknown subscription: ${id}`));
    // Nothing left to deliver: stop reading; a later subscribe starts again from the log.
    if (subscriptions.size === 0) await stopReader();
    await send({ type: "success", id: command.id, result: {}, meta: meta() });
  };

  const oneAtATime = (change: () => Promise<void>) => {
    const step = changes.then(change);
    changes = step.catch(() => undefined);
    return step;
  };

  const run = async (command: Command) => {
    switch (command.method) {
      case "subscription.subscribe":
        return oneAtATime(() => subscribe(command));
      case "subscription.unsubscribe":
        return oneAtATime(() => unsubscribe(command));
      case "subscription.reconnect":
        // As on the official server: a reconnecting client subscribes again and drops what it has seen.
        return send(
          errorResponse(command.id, "not_supported", "subscription.reconnect is not supported: subscribe again; replayed events carry their event_id"),
        );
      default:
        return send(await protocol.command(threadId, command, caller));
    }
  };

  // Commands run side by side: a subscribe may wait on a run.start sent after it.
  connection.onText((text) => {
    const parsed = readCommand(text);
    if ("error" in parsed) {
      void send(parsed.error);
      return;
    }
    const { command } = parsed;
    run(command).catch((err: unknown) => void send(protocolError(command.id, err, log)));
  });
  connection.signal.addEventListener("abort", () => reader?.stop.abort(), { once: true });
}

/** A frame as a command, or the protocol error that answers it. */
function readCommand(text: string): ReturnType<typeof parseCommand> {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (err) {
    return { error: errorResponse(null, "invalid_argument", `Protocol commands must be valid JSON: ${(err as Error).message}`) };
  }
  return parseCommand(payload);
}

/** A command that threw, as the protocol's error answer; anything but a refusal is a bug and is logged. */
function protocolError(id: number, err: unknown, log: Logger) {
  if (err instanceof GantryError || err instanceof AuthRejection) return protocolErrorOf(id, err);
  const reference = randomUUID();
  log.error("protocol command failed", { reference, err });
  return errorResponse(id, "unknown_error", `Internal error (reference ${reference}). The server log has the details.`);
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
