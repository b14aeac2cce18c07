// X-Request-Id: the client's own when it sent a sensible one, otherwise a fresh UUID; echoed on the
// answer and put in the context for the logs. Read from Node's parsed headers and set on Node's
// answer (node-request.ts): every answer, errors included, carries it.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.js";
import { requestHeader, setAnswerHeader } from "./node-request.js";

const HEADER = "X-Request-Id";
const MAX_LENGTH = 255;
const UNSAFE = /[^\w\-=]/;

export function requestIdMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const sent = requestHeader(c, HEADER);
    const id = sent && sent.length <= MAX_LENGTH && !UNSAFE.test(sent) ? sent : crypto.randomUUID();
    c.set("requestId", id);
    setAnswerHeader(c, HEADER, id);
    await next();
  };
}
