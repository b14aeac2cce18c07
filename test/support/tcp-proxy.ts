// A TCP proxy a fault test puts between a Gantry process and PostgreSQL or Redis, to do to the
// connections what a bad network or a restarting server does: cut every open one at once, or stall
// all traffic (a dependency that hangs rather than refuses). It listens on 127.0.0.1 at a free port;
// point the process's DATABASE_URL / REDIS_URL at `proxy.port` instead of the real server's.
//
//   const proxy = await startTcpProxy({ target: { host: "127.0.0.1", port: 5432 } });
//   proxy.cutAll();          // every open connection ends now; new ones are proxied as before
//   proxy.pause();           // bytes stop moving both ways and new connections wait: a hang
//   proxy.resume();          // held bytes and waiting connections go through
//   await proxy.close();
//
// Forwarding is by hand rather than with pipe(), because pipe() resumes a source on 'drain' and
// would undo pause(). Backpressure is ignored: a test's traffic is small.
import { connect, createServer, type Socket } from "node:net";

export interface TcpProxyOptions {
  /** Where connections go. */
  target: { host: string; port: number };
}

export interface TcpProxy {
  /** The port the proxy listens on, on 127.0.0.1. */
  port: number;
  /**
   * Ends every open connection on both sides. `"close"` (the default) sends FIN, as a server that
   * shuts down does; `"reset"` sends RST, as a dead peer or a middlebox does (ECONNRESET).
   * Connections opened afterwards are proxied as usual.
   */
  cutAll(how?: "close" | "reset"): void;
  /**
   * Stalls traffic: nothing more is read from either side of an open connection, and a new
   * connection is accepted but not forwarded, so clients see a server that hangs, not one that refuses.
   */
  pause(): void;
  /** Undoes pause(): held data flows and waiting connections reach the target. */
  resume(): void;
  /** How many client connections are open (forwarded or waiting). */
  connections(): number;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream?: Socket;
}

export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let paused = false;

  const end = (pair: Pair, how: "close" | "reset" = "close") => {
    if (!pairs.delete(pair)) return;
    for (const socket of [pair.client, pair.upstream]) {
      if (!socket || socket.destroyed) continue;
      if (how === "reset") socket.resetAndDestroy();
      else socket.destroy();
    }
  };

  const forward = (pair: Pair) => {
    const upstream = connect(options.target);
    pair.upstream = upstream;
    upstream.setNoDelay(true);
    upstream.on("data", (chunk) => pair.client.write(chunk));
    pair.client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("error", () => end(pair));
    upstream.on("close", () => end(pair));
    if (paused) upstream.pause();
    else pair.client.resume();
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.setNoDelay(true);
    client.on("error", () => end(pair));
    client.on("close", () => end(pair));
    if (!paused) forward(pair);
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolveListen());
  });
  const { port } = server.address() as { port: number };

  return {
    port,
    cutAll(how = "close") {
      for (const pair of [...pairs]) end(pair, how);
    },
    pause() {
      paused = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream?.pause();
      }
    },
    resume() {
      paused = false;
      for (const pair of [...pairs]) {
        if (!pair.upstream) {
          forward(pair);
          continue;
        }
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    connections: () => pairs.size,
    async close() {
      for (const pair of [...pairs]) end(pair);
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
