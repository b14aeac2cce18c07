// One accepted WebSocket, as the protocol transport uses it: JSON frames in, JSON frames out with
// back-pressure, heartbeats that drop a peer that stopped answering, and a close code and reason
// on every way it ends. What the frames mean is protocol-websocket.ts's job.
import type { RawData, WebSocket } from "ws";
import type { Logger } from "../logging.js";

/**
 * Sending waits while more than HIGH_WATER_BYTES sit unsent in the socket, and goes on once they
 * are down to LOW_WATER_BYTES: a client that reads slowly holds the server at about 1 MiB (plus the
 * frame being written), and its events wait in the log, not in memory.
 */
export const HIGH_WATER_BYTES = 1024 * 1024;
export const LOW_WATER_BYTES = 256 * 1024;

/** A close reason is at most 123 bytes on the wire (RFC 6455 5.5). */
const MAX_REASON_BYTES = 123;

export interface ConnectionOptions {
  /** A ping every pingMs; a peer that has not answered the previous one by then is dropped. */
  pingMs: number;
  log: Logger;
}

export class WebSocketConnection {
  readonly #socket: WebSocket;
  readonly #log: Logger;
  readonly #closed = new AbortController();
  #unflushed = 0;
  #drained: (() => void) | undefined;
  #paused = false;
  #queue: Promise<void> = Promise.resolve();
  #heartbeat: NodeJS.Timeout;

  constructor(socket: WebSocket, options: ConnectionOptions) {
    this.#socket = socket;
    this.#log = options.log;
    let answered = true;
    socket.on("pong", () => {
      answered = true;
    });
    this.#heartbeat = setInterval(() => {
      if (!answered) {
        this.#log.info("websocket peer stopped answering pings; dropped", { ping_ms: options.pingMs });
        socket.terminate();
        return;
      }
      answered = false;
      socket.ping();
    }, options.pingMs);
    this.#heartbeat.unref();
    socket.on("close", (code, reason) => {
      clearInterval(this.#heartbeat);
      this.#log.debug("websocket closed", { code, reason: reason.toString() });
      this.#drained?.();
      this.#closed.abort();
    });
    socket.on("error", (err) => this.#log.debug("websocket error", { err: err.message }));
  }

  /** Aborted once the socket is closed, by either side or by the heartbeat. */
  get signal(): AbortSignal {
    return this.#closed.signal;
  }

  /** Bytes queued on the socket and not yet handed to the network (the `ws` figure). */
  get bufferedAmount(): number {
    return this.#socket.bufferedAmount;
  }

  /** Calls `handle` with each text frame's content; binary frames are read as UTF-8, as the official server does. */
  onText(handle: (text: string) => void): void {
    this.#socket.on("message", (data: RawData) => handle(rawText(data)));
  }

  /**
   * Sends one JSON frame; resolves once there is room for the next. Frames leave in call order,
   * each after the previous one found room. Resolves at once on a closed socket: readers stop on
   * `signal`.
   */
  send(frame: unknown): Promise<void> {
    const sent = this.#queue.then(() => this.#sendNow(frame));
    this.#queue = sent;
    return sent;
  }

  async #sendNow(frame: unknown): Promise<void> {
    if (this.#closed.signal.aborted) return;
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch (err) {
      this.#log.error("a protocol frame could not be serialised; it was not sent", { err });
      return;
    }
    this.#unflushed += 1;
    this.#socket.send(text, (err) => {
      this.#unflushed -= 1;
      // A write that failed means the socket is gone (terminated, reset) before "close" is emitted.
      if (err) this.#closed.abort();
      if (this.#drained && (err || this.#unflushed === 0 || this.#socket.bufferedAmount <= LOW_WATER_BYTES)) this.#drained();
    });
    if (this.#socket.bufferedAmount <= HIGH_WATER_BYTES) return;
    this.#paused = true;
    this.#log.debug("websocket paused: the client reads slower than events arrive", { buffered_bytes: this.#socket.bufferedAmount });
    await new Promise<void>((resolve) => {
      this.#drained = resolve;
    });
    this.#drained = undefined;
    if (this.#paused && !this.#closed.signal.aborted) {
      this.#log.debug("websocket resumed", { buffered_bytes: this.#socket.bufferedAmount });
    }
    this.#paused = false;
  }

  /** Closes with `code` and a reason cut to what the protocol allows. */
  close(code: number, reason: string): void {
    if (this.#closed.signal.aborted) return;
    this.#socket.close(code, truncateUtf8(reason, MAX_REASON_BYTES));
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.byteLength <= maxBytes) return text;
  // Cut on a character boundary: a broken sequence at the end would make the reason invalid UTF-8.
  let end = maxBytes - 3;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString("utf8")}...`;
}
