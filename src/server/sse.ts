// Server-sent events for the LangGraph SDKs: one-line frames, a heartbeat comment at a steady
// cadence, and backpressure: events are pulled from the source only as fast as the socket takes
// them, so a slow client holds a paused reader instead of a growing buffer.
import type { ServerResponse } from "node:http";
import type { Context } from "hono";
import type { AppEnv } from "./app-env.js";

export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

export interface SseOptions {
  /** Added to the SSE headers; callers pass Content-Location and Location here. */
  headers?: Record<string, string>;
  heartbeatMs?: number;
  /**
   * Called once when the client goes away. An async generator cannot be returned while it awaits
   * its next event, so a source that can wait (a log reader) should stop on this, e.g. by aborting
   * the signal it was read with.
   */
  onDisconnect?: () => void;
  /** Ends the stream from the server side (shutdown): the source is returned and the response closes. */
  signal?: AbortSignal;
}

// The platform's cadence. The JS SDK's idle watchdog arms after two heartbeats and trips at 3x the
// largest gap seen, so the cadence must hold for the stream's whole life.
const DEFAULT_HEARTBEAT_MS = 5_000;

// no-cache, as the official servers send: under no-store Chromium reports a stream read to its end
// as canceled (net::ERR_ABORTED) in the network panel.
const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(": heartbeat\n\n");

/**
 * One frame. JSON.stringify escapes every control character, so `data` is always one line (both
 * SDKs join multi-line data without newlines). U+2028/2029 need no escaping: SSE ends lines only
 * at CR and LF. Event names and ids are free text from graphs and clients, so CR/LF/NUL go.
 */
export function formatSseEvent({ event, data, id }: SseEvent): string {
  let frame = `event: ${stripLineBreaks(event)}\ndata: ${JSON.stringify(data) ?? "null"}\n`;
  if (id !== undefined) frame += `id: ${stripLineBreaks(id)}\n`;
  return frame + "\n";
}

export function parseLastEventId(header: string | undefined): string | undefined {
  const id = header?.trim();
  return id ? id : undefined;
}

export function sseResponse(c: Context<AppEnv>, events: AsyncIterable<SseEvent>, options: SseOptions = {}): Response {
  const iterator = events[Symbol.asyncIterator]();
  const flush = earlyFlush(c);
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let finished = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const streamClosed = c.get("streamOpened")?.();

  // Every way out passes here once; whatever a pending pull() returns afterwards is dropped.
  const finish = (): boolean => {
    if (finished) return false;
    finished = true;
    streamClosed?.();
    clearInterval(heartbeat);
    options.signal?.removeEventListener("abort", onServerAbort);
    return true;
  };
  const stopSource = () => void iterator.return?.().catch(() => {});
  const onServerAbort = () => {
    if (!finish()) return;
    stopSource();
    controller.close();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(ctrl) {
        controller = ctrl;
        if (options.signal?.aborted) return onServerAbort();
        options.signal?.addEventListener("abort", onServerAbort, { once: true });
        heartbeat = setInterval(() => {
          // A heartbeat already queued means the client isn't reading; another would only pile up.
          if (!finished && (ctrl.desiredSize ?? 0) >= 0) ctrl.enqueue(HEARTBEAT);
        }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
        heartbeat.unref();
      },
      async pull(ctrl) {
        // Asked for the next chunk: the previous one has just been handed to the response.
        flush();
        let frame: string;
        try {
          const next = await iterator.next();
          if (finished) return;
          if (next.done) {
            finish();
            ctrl.close();
            return;
          }
          frame = formatSseEvent(next.value);
        } catch (err) {
          if (!finish()) return;
          stopSource();
          ctrl.enqueue(encoder.encode(formatSseEvent({ event: "error", data: errorData(err) })));
          ctrl.close();
          return;
        }
        ctrl.enqueue(encoder.encode(frame));
      },
      cancel() {
        if (!finish()) return;
        options.onDisconnect?.();
        stopSource();
      },
    },
    // Zero: pull only when the socket side asks for a chunk, never ahead of it.
    { highWaterMark: 0 },
  );

  return c.body(body, 200, { ...SSE_HEADERS, ...options.headers });
}

/**
 * Node's response corks its socket at a write and uncorks it on the next tick, which runs only once
 * the microtask queue is empty: while a source hands out events that already exist (settled
 * promises, a graph's burst), every frame stays in the socket until the burst is over. This lets
 * the first frame written in a tick leave at once; the rest of the tick's frames still go out
 * together when it ends. Outside Node (app.request() in tests) there is no socket to flush.
 */
function earlyFlush(c: Context<AppEnv>): () => void {
  const socket = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing?.socket;
  if (!socket) return () => {};
  let flushedThisTick = false;
  return () => {
    if (flushedThisTick || socket.writableCorked === 0) return;
    flushedThisTick = true;
    process.nextTick(() => {
      flushedThisTick = false;
    });
    socket.uncork();
  };
}

function stripLineBreaks(text: string): string {
  return text.replace(/[\r\n\0]/g, "");
}

/** Name and message only: a stack trace never leaves the server. */
function errorData(err: unknown): { error: string; message: string } {
  if (err instanceof Error) return { error: err.name, message: err.message };
  return { error: "Error", message: String(err) };
}
