// A JSON answer that takes a while (/wait, /join): a newline every second keeps proxies and the
// Python SDK's 300 s read timeout from giving up; leading whitespace is still valid JSON.

export function keepAliveJson(
  produce: (signal: AbortSignal) => Promise<unknown>,
  options: { headers?: Record<string, string>; intervalMs?: number; onDisconnect?: () => void },
): Response {
  const encoder = new TextEncoder();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Once the client has gone the stream is closed: a late result or tick must not write to it.
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = (text: string) => {
        clearInterval(timer);
        if (closed) return;
        closed = true;
        controller.enqueue(encoder.encode(text));
        controller.close();
      };
      timer = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode("\n"));
      }, options.intervalMs ?? 1000);
      produce(abort.signal).then(
        (value) => finish(JSON.stringify(value ?? null)),
        (err: unknown) => finish(JSON.stringify({ __error__: { error: "ServerError", message: (err as Error).message } })),
      );
    },
    cancel() {
      closed = true;
      clearInterval(timer);
      abort.abort();
      options.onDisconnect?.();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "application/json", ...options.headers } });
}
