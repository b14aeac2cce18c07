// A local stand-in for both tracing backends in the observe benchmark: it takes the LangSmith
// client's run posts and the OTLP exporter's span exports, answers each at once with `{}`, and
// counts what arrived, so a side that claims tracing is on can be seen to send. It decodes
// nothing: the cost measured is the server's, not the receiver's.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Sink {
  url: string;
  /** Requests by backend: `otlp` (/v1/traces) and `langsmith` (everything else that posts). */
  counts: { otlp: number; langsmith: number; bytes: number };
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  const counts = { otlp: 0, langsmith: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (counts.bytes += chunk.length));
    req.on("end", () => {
      if (req.method !== "GET") counts[req.url?.startsWith("/v1/traces") ? "otlp" : "langsmith"] += 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
