// The thread-centric protocol (v2) over HTTP: POST /threads/{id}/commands answers one command as
// JSON, POST /threads/{id}/stream/events streams the thread's events that match a filter as SSE
// (id = event_id, event = method, data = the event). Each stream replays what the thread's log
// holds, then follows it live: the SDK opens a new stream on every reconnect and drops events
// it has seen by event_id. Errors carry the protocol's error shape, plus `detail` as every other
// route's do.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { setTimeout as sleep } from "node:timers/promises";
import type { Command, ErrorResponse, Event } from "@langchain/protocol";
import { AuthRejection, GantryError } from "../../errors.js";
import { parseCommand } from "../../protocol/commands.js";
import { parseEventFilter } from "../../protocol/filter.js";
import { protocolErrorOf, type ProtocolService } from "../../protocol/service.js";
import type { AppEnv } from "../app-env.js";
import { accessOf } from "../app-env.js";
import { errorHandler, statusOf } from "../errors.js";
import { requestHeader, requestHeaders } from "../node-request.js";
import { route, type RouteSpec } from "../route.js";
import { parseLastEventId, sseResponse } from "../sse.js";
import { readJson, uuidParam } from "../validation.js";
import type { Logger } from "../../logging.js";

export function protocolRoutes({ protocol, log }: { protocol: ProtocolService; log: Logger }): RouteSpec[] {
  const fallback = errorHandler(log);

  /** A thrown error as the protocol's error shape with the status the classic routes give it. */
  const failure = (c: Context<AppEnv>, id: number | null, err: unknown): Response => {
    if (err instanceof GantryError) return reply(c, protocolErrorOf(id, err), statusOf(err.kind));
    if (err instanceof AuthRejection) return reply(c, protocolErrorOf(id, err), err.status as ContentfulStatusCode, err.headers);
    return fallback(err as Error, c);
  };

  return [
    route({
      method: "post",
      path: "/threads/:thread_id/commands",
      tag: "Threads",
      summary: "Send a protocol (v2) command: run.start, input.respond, state.get, agent.getTree",
      responses: {
        200: "The command's response (success, or the protocol's error for that command)",
        404: "Thread not found",
        409: "Thread busy (multitask strategy reject)",
        422: "Malformed command",
      },
      handler: async (c) => {
        let command: Command | undefined;
        try {
          const threadId = uuidParam(c, "thread_id");
          const parsed = parseCommand(await readJson(c));
          if ("error" in parsed) return reply(c, parsed.error, 422);
          command = parsed.command;
          return c.json(await protocol.command(threadId, command, { access: accessOf(c), headers: requestHeaders(c) }));
        } catch (err) {
          return failure(c, command?.id ?? null, err);
        }
      },
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/stream/events",
      tag: "Threads",
      summary: "Stream a thread's protocol (v2) events that match a filter (SSE)",
      responses: { 200: "Server-sent events", 404: "Thread not found", 422: "Invalid filter" },
      handler: async (c) => {
        try {
          const threadId = uuidParam(c, "thread_id");
          const filter = parseEventFilter(await readJson(c));
          // The SDK resumes with a fresh stream, not Last-Event-ID; a client that sends it gets what follows it.
          const lastEventId = parseLastEventId(requestHeader(c, "last-event-id"));
          const since = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
          const reader = new AbortController();
          const events = await protocol.events(threadId, since !== undefined ? { ...filter, since: Math.max(since, filter.since ?? 0) } : filter, {
            access: accessOf(c),
            signal: reader.signal,
          });
          const opened = Date.now();
          return sseResponse(
            c,
            (async function* () {
              for await (const event of events) {
                if (isRootTerminal(event)) await holdUntil(opened + TERMINAL_HOLD_MS, reader.signal);
                yield { id: event.event_id ?? String(event.seq), event: event.method, data: event };
              }
            })(),
            { onDisconnect: () => reader.abort() },
          );
        } catch (err) {
          return failure(c, null, err);
        }
      },
    }),
  ];
}

/**
 * The SDK's ThreadStream (1.15) pauses every subscription at the first root terminal lifecycle it
 * reads on any of its streams, and a subscription added just before, whose wider stream is still
 * being opened, then ends before that stream's replay reaches it: `run.start` then `subscribe`
 * (RemoteGraph's streamEvents v3 does exactly this) loses the run's events whenever the run ends
 * before the client has opened its second stream. Runs start at once here (the claim is in the
 * transaction that creates them), so short runs always won that race. Holding a root terminal
 * event on a stream younger than this gives the client's next stream time to open and replay; a
 * stream that is older, as every stream of a run longer than this is, sends it at once.
 */
const TERMINAL_HOLD_MS = 300;
const TERMINAL_EVENTS = new Set(["completed", "failed", "interrupted"]);

function isRootTerminal(event: Event): boolean {
  if (event.method !== "lifecycle" || event.params.namespace.length > 0) return false;
  const data = event.params.data as { event?: unknown };
  return typeof data.event === "string" && TERMINAL_EVENTS.has(data.event);
}

async function holdUntil(time: number, signal: AbortSignal): Promise<void> {
  const wait = time - Date.now();
  if (wait > 0 && !signal.aborted) await sleep(wait, undefined, { signal }).catch(() => undefined);
}

function reply(c: Context<AppEnv>, error: ErrorResponse, status: ContentfulStatusCode, headers?: Record<string, string>): Response {
  return c.json({ ...error, detail: error.message }, status, headers);
}
