// A TCP proxy in front of a Gantry that cuts the first event stream it carries after a given number
// of complete SSE frames, the way a flaky network drops a long response. Everything else passes
// through untouched, so a client sees a real mid-stream network error and reconnects through it.
import { createServer, connect, type Server, type Socket } from "node:net";

export interface DroppingProxy {
  url: string;
  /** The head of every request that started a packet, in arrival order (enough for these tests). */
  requests: string[];
  close(): Promise<void>;
}

/** An SSE frame as it sits in the raw (chunked) bytes: it ends with its id line and a blank line. */
const FRAME_END = /\nid: [^\n]*\n\n/g;

export async function startDroppingProxy(target: string, framesBeforeDrop: number): Promise<DroppingProxy> {
  const { hostname, port } = new URL(target);
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let dropped = false;

  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());

    client.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      if (/^[A-Z]+ \/\S* HTTP\/1\.1\r\n/.test(text)) requests.push(text.split("\r\n\r\n")[0]!);
      upstream.write(chunk);
    });
    client.on("end", () => upstream.end());

    let seen = "";
    let cutting = false;
    upstream.on("data", (chunk: Buffer) => {
      if (dropped && !cutting) return void client.write(chunk);
      const text = chunk.toString("latin1");
      if (!cutting) {
        seen += text;
        if (!/content-type: text\/event-stream/i.test(seen)) return void client.write(chunk);
        cutting = dropped = true;
        seen = "";
      }
      const start = seen.length;
      seen += text;
      FRAME_END.lastIndex = 0;
      let frames = 0;
      let cutAt = -1;
      for (let match = FRAME_END.exec(seen); match; match = FRAME_END.exec(seen)) {
        if (++frames === framesBeforeDrop) cutAt = match.index + match[0].length;
      }
      if (cutAt < 0) return void client.write(chunk);
      client.end(chunk.subarray(0, Math.max(0, cutAt - start)), () => client.destroy());
      upstream.destroy();
    });
    upstream.on("end", () => client.end());
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The same for a WebSocket: the first upgraded connection is cut, both ways, once the server has
 * sent `eventsBeforeDrop` protocol events on it (counted in the raw frames, which a server does not
 * mask). Later connections pass through, so the client's reconnect goes through.
 */
export async function startDroppingWebSocketProxy(target: string, eventsBeforeDrop: number): Promise<DroppingProxy & { dropped(): boolean }> {
  const { hostname, port } = new URL(target);
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let dropped = false;

  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      if (/^[A-Z]+ \/\S* HTTP\/1\.1\r\n/.test(text)) requests.push(text.split("\r\n\r\n")[0]!);
      upstream.write(chunk);
    });
    client.on("end", () => upstream.end());

    let upgraded: boolean | undefined;
    let events = 0;
    upstream.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      upgraded ??= text.startsWith("HTTP/1.1 101");
      if (dropped || !upgraded) return void client.write(chunk);
      events += text.split('"type":"event"').length - 1;
      if (events < eventsBeforeDrop) return void client.write(chunk);
      dropped = true;
      client.destroy();
      upstream.destroy();
    });
    upstream.on("end", () => client.end());
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    dropped: () => dropped,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
