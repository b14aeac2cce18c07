// Starts the HTTP listener of a Gantry command and turns a port that can't be had into a start-up
// error naming the flag to change.
import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StartupError } from "../errors.js";

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
  const bound = (server.address() as AddressInfo).port;
  return { server, port: bound, origin: `http://${host.includes(":") ? `[${host}]` : host}:${bound}` };
}
