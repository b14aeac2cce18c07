// A JSON answer that takes a while (/wait, /join): a newline every second keeps proxies and the
// Python SDK's 300 s read timeout from giving up; leading whitespace is still valid JSON.
// Most runs end before the first newline would be due, and those are answered as one plain JSON
// response: one write on the socket instead of headers, body and end as separate stream chunks.
import type { Context } from "hono";
import type { AppEnv } from "./app-env.js";
import { onClientGone, setAnswerHeader } from "./node-request.js";

export interface KeepAliveOptions {
  headers?: Record<string, string>;
  intervalMs?: number;
  onDisconnect?: () => void;
}

export async function keepAliveJson(c: Context<AppEnv>, produce: (signal: AbortSignal) => Promise<unknown>, options: KeepAliveOptions): Promise<Response> {
  const intervalMs = options.intervalMs ?? 1000;
  const headers = { "Content-Type": "application/json" };
  const answer = (body: string | ReadableStream<Uint8Array>) => {
    for (const [name, value] of Object.entries(options.headers ?? {})) setAnswerHeader(c, name, value);
    return c.body(body, 200, headers);
  };
  const abort = new AbortController();
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    abort.abort();
    options.onDisconnect?.();
  };
  const text = produce(abort.signal).then(
    (value) => JSON.stringify(value ?? null),
    (err: unknown) => JSON.stringify({ __error__: { error: "ServerError", message: (err as Error).message } }),
  );

  // Aborts when the client leaves before the answer is sent.
  const stopWatching = onClientGone(c, leave);
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([text, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), intervalMs)))]);
  clearTimeout(timer);
  stopWatching();
  if (early !== null) return answer(early);

  const encoder = new TextEncoder();
  // Once the client has gone the stream is closed: a late result or tick must not write to it.
  let closed = left;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("\n"));
      const ticker = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode("\n"));
      }, intervalMs);
      void text.then((answer) => {
        clearInterval(ticker);
        if (closed) return;
        closed = true;
        controller.enqueue(encoder.encode(answer));
        controller.close();
      });
    },
    cancel() {
      closed = true;
      leave();
    },
  });
  return answer(body);
}
