// Request bodies over a size limit are refused with 413 and a detail naming the limit, before any
// route reads them. A declared Content-Length is checked here and the body left on the socket for
// the route to read (node-request.ts); only a chunked body, whose size shows once read, goes
// through hono's bodyLimit, which reads it into memory. Without either header an HTTP/1.1 request
// has no body.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requestHeader } from "./node-request.js";

/** `setting` names what changes the limit (an environment variable), when something does. */
export function bodyLimitMiddleware(maxBytes: number, setting?: string): MiddlewareHandler {
  const detail = `The request body is larger than the limit of ${maxBytes} bytes${setting ? ` (${setting})` : ""}`;
  const tooLarge = (c: Context) => c.json({ detail }, 413);
  const limitChunked = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    if (requestHeader(c, "transfer-encoding")) return limitChunked(c, next);
    const length = requestHeader(c, "content-length");
    return length !== undefined && Number(length) > maxBytes ? tooLarge(c) : next();
  };
}
