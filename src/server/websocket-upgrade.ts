// WebSocket upgrades on the HTTP port. An upgrade request goes through the whole Hono app like any
// request (request id, CORS, custom auth, the route's own checks), so a refusal is the same JSON
// answer the classic API gives, written on the socket before anything is upgraded. A route that
// accepts calls acceptWebSocket(); only then is the handshake completed, by the `ws` package.
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Context } from "hono";
import { STATUS_CODES } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";
import type { Logger } from "../logging.js";

/** What a route gets once the handshake is done: the socket and the request that opened it. */
export type WebSocketHandler = (socket: WebSocket) => void;

/** Marks a request's env as an upgrade; only code in this process can set it. */
const UPGRADE = Symbol("gantry.websocket-upgrade");

interface UpgradeSlot {
  accepted?: WebSocketHandler;
}

type AppFetch = (request: Request, env: unknown) => Response | Promise<Response>;

/**
 * Accepts the upgrade this request asked for; the handler runs once the handshake is done. A plain
 * GET (no Upgrade header) on a WebSocket route is answered 426 with a sentence saying so.
 */
export function acceptWebSocket(c: Context, handler: WebSocketHandler): Response {
  const slot = (c.env as Record<symbol, UpgradeSlot | undefined> | undefined)?.[UPGRADE];
  if (!slot) {
    return c.json({ detail: `${c.req.path} is a WebSocket endpoint: open it with a WebSocket client (Upgrade: websocket)` }, 426, {
      Upgrade: "websocket",
    });
  }
  slot.accepted = handler;
  // Never written: the listener sees the accepted slot and completes the handshake instead.
  return c.body(null, 200);
}

/** How long sockets get to answer the 1001 close at shutdown before they are cut. */
const CLOSE_GRACE_MS = 1_000;

export interface WebSocketUpgrades {
  /**
   * Stops upgrading and closes every open socket with 1001 (going away), so clients reconnect to
   * another replica; a peer that does not answer the close within a second is cut. Open sockets
   * would otherwise hold the HTTP server's close() open.
   */
  close(): Promise<void>;
}

/**
 * Sends the server's upgrade requests through `fetch`. Frames larger than `maxPayload` close the
 * socket with 1009, as `ws` does on its own; the limit is the request body limit, since a frame is
 * a command's body.
 */
export function serveWebSocketUpgrades(server: Server, fetch: AppFetch, options: { maxPayload: number; log: Logger }): WebSocketUpgrades {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    if (request.headers.upgrade?.toLowerCase() !== "websocket") {
      writeAnswer(socket, jsonAnswer(400, `Upgrade to '${request.headers.upgrade}' is not supported; only websocket is`));
      return;
    }
    const slot: UpgradeSlot = {};
    Promise.resolve(fetch(toFetchRequest(request), { [UPGRADE]: slot }))
      .then(async (answer) => {
        if (!slot.accepted || answer.status >= 300) return writeAnswer(socket, answer);
        const handler = slot.accepted;
        sockets.handleUpgrade(request, socket, head, (ws) => handler(ws));
      })
      .catch((err: unknown) => {
        options.log.error("websocket upgrade failed", { path: request.url, err });
        writeAnswer(socket, jsonAnswer(500, "Internal error while opening the WebSocket. The server log has the details."));
      });
  };
  server.on("upgrade", onUpgrade);
  return {
    async close() {
      server.off("upgrade", onUpgrade);
      const open = [...sockets.clients];
      const closed = open.map((ws) => new Promise<void>((resolve) => ws.once("close", () => resolve())));
      for (const ws of open) ws.close(1001, "Server shutting down");
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(grace);
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
    },
  };
}

function toFetchRequest(request: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) headers.append(request.rawHeaders[i]!, request.rawHeaders[i + 1]!);
  return new Request(`http://${request.headers.host ?? "localhost"}${request.url ?? "/"}`, { method: request.method ?? "GET", headers });
}

function jsonAnswer(status: number, detail: string): Response {
  return Response.json({ detail }, { status });
}

/** An HTTP/1.1 answer on the raw socket, then the socket closes: the upgrade did not happen. */
function writeAnswer(socket: Duplex, answer: Response): void {
  void answer.arrayBuffer().then(
    (body) => {
      const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}`];
      answer.headers.forEach((value, name) => {
        if (name !== "content-length" && name !== "connection" && name !== "transfer-encoding") lines.push(`${name}: ${value}`);
      });
      lines.push(`Content-Length: ${body.byteLength}`, "Connection: close", "", "");
      socket.end(Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), Buffer.from(body)]));
    },
    () => socket.destroy(),
  );
}
