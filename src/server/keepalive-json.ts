// A JSON answer that takes a while (/wait, /join): a newline every second keeps proxies and the
// Python SDK's 300 s read timeout from giving up; leading whitespace is still valid JSON.

export function keepAliveJson(
  produce: (signal: AbortSignal) => Promise<unknown>,
  options: { headers?: Record<string, string>; intervalMs?: number; onDisconnect?: () => void },
): Response {
  const encoder = new TextEncoder();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => controller.enqueue(encoder.encode("\n")), options.intervalMs ?? 1000);
      produce(abort.signal).then(
        (value) => {
          clearInterval(timer);
          controller.enqueue(encoder.encode(JSON.stringify(value ?? null)));
          controller.close();
        },
        (err: unknown) => {
          clearInterval(timer);
          controller.enqueue(encoder.encode(JSON.stringify({ __error__: { error: "ServerError", message: (err as Error).message } })));
          controller.close();
        },
      );
    },
    cancel() {
      clearInterval(timer);
      abort.abort();
      options.onDisconnect?.();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "application/json", ...options.headers } });
}
