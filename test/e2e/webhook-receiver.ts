// A real HTTP server standing in for a user's webhook endpoint: it records every request and answers
// each with the next scripted behaviour (a status, or hanging until the test ends).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { eventually } from "./http.js";

export type Behaviour = number | "hang";

export interface ReceivedWebhook {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  received: ReceivedWebhook[];
  /** Behaviours for the next requests, in order; once used up, requests get 200. */
  script(...behaviours: Behaviour[]): void;
  /** Waits until `count` requests have arrived; returns them all. */
  waitFor(count: number, deadlineMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const queue: Behaviour[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ path: req.url ?? "", method: req.method ?? "", headers: req.headers, body, json: JSON.parse(body) as Record<string, unknown> });
      const behaviour = queue.shift() ?? 200;
      if (behaviour === "hang") return;
      res.writeHead(behaviour, { "content-type": "text/plain" }).end("ok");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (...behaviours) => queue.push(...behaviours),
    waitFor: (count, deadlineMs = 15_000) =>
      eventually(`${count} webhook request(s) (got ${received.length})`, async () => (received.length >= count ? [...received] : undefined), deadlineMs),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
