// What the protocol WebSocket e2e tests share: a raw `ws` client that keeps every frame and sends
// commands by id, the HTTP answer to a refused upgrade, and the factory the official SDK needs to
// open its WebSocket transport on Node 20 (no global WebSocket), with headers when a test
// authenticates; and a load balancer that can be pointed at another replica.
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { WebSocket } from "ws";

export interface RawSocket {
  socket: WebSocket;
  /** Every frame received so far, parsed. */
  frames: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  /** Sends a command and resolves with the success or error frame answering it. */
  command(id: number, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Resolves once `predicate` holds for the frames received, or rejects at the deadline. */
  until(predicate: (frames: Record<string, unknown>[]) => boolean, what: string, ms?: number): Promise<void>;
}

export const streamUrl = (baseUrl: string, threadId: string) => `${baseUrl.replace(/^http/, "ws")}/threads/${threadId}/stream/events`;

export async function openSocket(baseUrl: string, threadId: string, headers: Record<string, string> = {}): Promise<RawSocket> {
  const socket = new WebSocket(streamUrl(baseUrl, threadId), { headers });
  const frames: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  socket.on("message", (data) => {
    frames.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const until = (predicate: (frames: Record<string, unknown>[]) => boolean, what: string, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate(frames)) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`Timed out waiting for ${what}; frames so far: ${JSON.stringify(frames).slice(0, 2000)}`));
      }, ms);
      waiters.add(check);
      check();
    });
  return {
    socket,
    frames,
    closed,
    until,
    async command(id, method, params) {
      socket.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
      const answered = (frame: Record<string, unknown>) => frame.id === id && (frame.type === "success" || frame.type === "error");
      await until((all) => all.some(answered), `the answer to ${method} #${id}`);
      return frames.find(answered)!;
    },
  };
}

export interface RefusedUpgrade {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Opens a socket the server is expected to refuse, and resolves to its HTTP answer. */
export function refusedUpgrade(baseUrl: string, threadId: string, headers: Record<string, string> = {}): Promise<RefusedUpgrade> {
  const socket = new WebSocket(streamUrl(baseUrl, threadId), { headers });
  return new Promise((resolve, reject) => {
    socket.once("open", () => {
      socket.close();
      reject(new Error("The server accepted the upgrade"));
    });
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(body) }));
    });
    socket.once("error", (err) => reject(err));
  });
}

/** The SDK's `webSocketFactory`: a `ws` socket, which also carries headers a browser's could not. */
export function webSocketFactory(headers: Record<string, string> = {}) {
  return (url: string) => new WebSocket(url, { headers }) as unknown as globalThis.WebSocket;
}

export interface SwitchingProxy {
  url: string;
  /** New connections go to `target` from now on; open ones stay where they are. */
  switchTo(target: string): void;
  close(): Promise<void>;
}

/** A TCP load balancer in front of replicas: each new connection goes to the current target. */
export async function startSwitchingProxy(initial: string): Promise<SwitchingProxy> {
  let target = new URL(initial);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    switchTo: (next) => {
      target = new URL(next);
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
