// The request's headers and body and the client's departure, read from what @hono/node-server hands
// every request (its IncomingMessage and ServerResponse) instead of from hono's Request. Asking that
// Request for its body or its signal makes the adapter build a full fetch Request first (URL,
// Headers, a web stream over the socket), which cost more than everything else HTTP does for a
// small JSON call; asking it for one header builds a fetch Headers of all of them. Answer headers
// go the same way (setAnswerHeader). Outside Node (app.request() in tests, another runtime) the
// fetch Request and hono's context are all there is.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import { BODY_IDLE_TIMEOUT_MS } from "../domain/limits.js";
import { GantryError } from "../errors.js";

interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

function nodeBindings(c: Context): NodeBindings | undefined {
  const env = c.env as Partial<NodeBindings> | undefined;
  return env?.incoming && env.outgoing ? (env as NodeBindings) : undefined;
}

/** One request header (any case), as a fetch Headers would give it. */
export function requestHeader(c: Context, name: string): string | undefined {
  const node = nodeBindings(c);
  if (!node) return c.req.header(name);
  const value = node.incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Every request header, by lower-case name; repeated ones joined as a fetch Headers joins them. */
export function requestHeaders(c: Context): Record<string, string> {
  const node = nodeBindings(c);
  if (!node) return Object.fromEntries(c.req.raw.headers.entries());
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(node.incoming.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * The body as text. The size limit is the body-limit middleware's: a declared Content-Length was
 * checked against it, and a chunked body was read (and replaced) by it, so the socket is only read
 * here when nothing read it before.
 */
export function readBodyText(c: Context): Promise<string> {
  const node = nodeBindings(c);
  if (!node || node.incoming.readableDidRead) return c.req.text();
  const { incoming, outgoing } = node;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // A client that announced a body and stopped sending it would hold the request (and a socket)
    // until it gives up itself; past the idle bound it gets a 408 and the connection is closed,
    // since the rest of its body may still arrive on it.
    const onIdle = () => {
      detach();
      outgoing.setHeader("Connection", "close");
      reject(new GantryError("timed_out", `The request body stalled: no bytes arrived for ${BODY_IDLE_TIMEOUT_MS / 1000} s before it was complete`));
    };
    const idle = setTimeout(onIdle, BODY_IDLE_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      idle.refresh();
    };
    const onEnd = () => {
      detach();
      resolve(Buffer.concat(chunks, size).toString("utf8"));
    };
    // The client went away mid-body; nobody is left to read the answer, but the handler must end.
    const onGone = () => {
      detach();
      reject(new GantryError("malformed", "The request body ended before its declared length: the client closed the connection"));
    };
    const detach = () => {
      clearTimeout(idle);
      incoming.off("data", onData).off("end", onEnd).off("error", onGone).off("close", onGone);
    };
    incoming.on("data", onData).once("end", onEnd).once("error", onGone).once("close", onGone);
  });
}

/**
 * Sets a header of the answer on Node's ServerResponse, where the adapter's writeHead merges it with
 * the answer's own. hono's c.header() would make the answer carry a fetch Headers, and answers with
 * one header (Content-Type) and no fetch Headers take the adapter's fast path: their headers go to
 * writeHead as a plain object. Set it only once the answer is decided: an error answered after
 * it would carry it too.
 */
export function setAnswerHeader(c: Context, name: string, value: string): void {
  const node = nodeBindings(c);
  if (node) node.outgoing.setHeader(name, value);
  else c.header(name, value);
}

/**
 * Calls `onGone` once if the client disconnects before the answer has been written; returns the
 * function that stops listening.
 */
export function onClientGone(c: Context, onGone: () => void): () => void {
  const node = nodeBindings(c);
  if (!node) {
    const signal = c.req.raw.signal;
    signal.addEventListener("abort", onGone, { once: true });
    return () => signal.removeEventListener("abort", onGone);
  }
  const { outgoing } = node;
  // A response also closes after it finished; only a close before that is the client leaving.
  const onClose = () => {
    if (!outgoing.writableFinished) onGone();
  };
  outgoing.once("close", onClose);
  return () => outgoing.off("close", onClose);
}
