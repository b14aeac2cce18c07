// Starts the HTTP listener of a Gantry command and turns a port that can't be had into a start-up
// error naming the flag to change.
//
// Idle keep-alive connections stay open 65 s, not Node's 5 s. Clients keep idle connections for
// about as long (Python's httpx 5 s, Node's fetch 4 s) and then close them themselves; when the
// server closes first, a request a client sends in that moment fails ("fetch failed", "Server
// disconnected") without reaching Gantry. Outlasting the clients' own expiry (and a load
// balancer's usual 60 s) leaves the closing to them.
import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StartupError } from "../errors.js";

const KEEP_ALIVE_MS = 65_000;

export interface Listening {
  server: Server;
  port: number;
  /** `http://host:port`, with IPv6 hosts bracketed. */
  origin: string;
}

export async function listenHttp(fetch: (request: Request) => Response | Promise<Response>, host: string, port: number): Promise<Listening> {
  const server = await new Promise<Server>((resolveListen, rejectListen) => {
    const s = serve({ fetch, hostname: host, port }, () => resolveListen(s as Server)) as Server;
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
  // Node's advice: longer than keepAliveTimeout, so a kept connection is never cut by this one.
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  const bound = (server.address() as AddressInfo).port;
  return { server, port: bound, origin: `http://${host.includes(":") ? `[${host}]` : host}:${bound}` };
}
