// Starts the HTTP listener of a Gantry command and turns a port that can't be had into a start-up
// error naming the flag to change. A server listens before its modules and graphs load (seconds,
// for a large project), holding the requests that arrive meanwhile until its app is built.
//
// Idle keep-alive connections stay open 65 s, not Node's 5 s. Clients keep idle connections for
// about as long (Python's httpx 5 s, Node's fetch 4 s) and then close them themselves; when the
// server closes first, a request a client sends in that moment fails ("fetch failed", "Server
// disconnected") without reaching Gantry. Outlasting the clients' own expiry (and a load
// balancer's usual 60 s) leaves the closing to them. The headers timeout is longer than that (Node's
// advice, so a kept connection is never cut by it); a request's whole arrival, and each pause in
// its body (node-request.ts), are bounded too (domain/limits.ts).
import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "../domain/limits.js";
import { StartupError } from "../errors.js";

const KEEP_ALIVE_MS = 65_000;

export interface Listening {
  server: Server;
  port: number;
  /** `http://host:port`, with IPv6 hosts bracketed. */
  origin: string;
}

export async function listenHttp(fetch: (request: Request, env?: unknown) => Response | Promise<Response>, host: string, port: number): Promise<Listening> {
  const server = await new Promise<Server>((resolveListen, rejectListen) => {
    const s = serve(
      {
        fetch,
        hostname: host,
        port,
        // Node checks these timeouts on this interval (30 s by default), so a bound is kept within 5 s of it.
        serverOptions: { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 5_000 },
      },
      () => resolveListen(s as Server),
    ) as Server;
    s.once("error", (err: NodeJS.ErrnoException) =>
      rejectListen(
        new StartupError(
          err.code === "EADDRINUSE"
            ? `Port ${port} on ${host} is already in use. Stop the other server or pass --port.`
            : `Cannot listen on ${host}:${port}: ${err.message}`,
        ),
      ),
    );
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  const bound = (server.address() as AddressInfo).port;
  return { server, port: bound, origin: `http://${host.includes(":") ? `[${host}]` : host}:${bound}` };
}

/** The app's fetch; `env` carries the Node request and response (@hono/node-server), which body reading needs. */
export type AppFetch = (request: Request, env?: unknown) => Response | Promise<Response>;

export interface EarlyListener extends Listening {
  /** Hands requests, those that waited included, to the app once it is built. */
  serve(fetch: AppFetch): void;
}

export async function listenEarly(host: string, port: number): Promise<EarlyListener> {
  let handOver: (fetch: AppFetch) => void = () => {};
  const ready = new Promise<AppFetch>((resolveReady) => {
    handOver = resolveReady;
  });
  let app: AppFetch | undefined;
  const listening = await listenHttp(async (request, env) => (app ?? (await ready))(request, env), host, port);
  return {
    ...listening,
    serve(fetch) {
      app = fetch;
      handOver(fetch);
    },
  };
}
