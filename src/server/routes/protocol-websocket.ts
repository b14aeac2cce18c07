// GET /threads/{id}/stream/events upgraded to a WebSocket: the thread protocol (v2) on one socket.
// The request has been authenticated by then like any other; a thread the caller may not see is
// refused here with the classic API's answer (404, or the auth handler's own status), before the
// upgrade. A thread that does not exist yet is accepted, as on the official server: run.start
// creates it.
import type { Logger } from "../../logging.js";
import { accessOf } from "../app-env.js";
import { route, type RouteSpec } from "../route.js";
import { uuidParam } from "../validation.js";
import type { ProtocolService } from "../../protocol/service.js";
import { requestHeaders } from "../node-request.js";
import { serveProtocolSocket } from "../protocol-socket.js";
import { WebSocketConnection } from "../websocket-connection.js";
import { acceptWebSocket } from "../websocket-upgrade.js";

export function protocolWebSocketRoutes(deps: { protocol: ProtocolService; pingMs: number; log: Logger }): RouteSpec[] {
  const { protocol, pingMs, log } = deps;
  return [
    route({
      method: "get",
      path: "/threads/:thread_id/stream/events",
      tag: "Threads",
      summary: "The thread protocol (v2) over a WebSocket: commands and subscriptions in, events out",
      responses: {
        101: "Switching to the WebSocket protocol",
        401: "Not authenticated",
        403: "Refused by an auth handler",
        404: "Thread not visible to the caller",
        422: "Invalid thread id",
        426: "Not a WebSocket upgrade request",
      },
      handler: async (c) => {
        const threadId = uuidParam(c, "thread_id");
        const access = accessOf(c);
        await protocol.open(threadId, access);
        const requestId = c.get("requestId");
        // Commands on the socket act for whoever opened it, with the headers it opened with (http.configurable_headers).
        const caller = { ...(access ? { access } : {}), headers: requestHeaders(c) };
        return acceptWebSocket(c, (socket) => {
          const socketLog = log.child({ request_id: requestId, thread_id: threadId });
          socketLog.debug("websocket opened");
          const connection = new WebSocketConnection(socket, { pingMs, log: socketLog });
          serveProtocolSocket(connection, { threadId, caller, protocol, log: socketLog });
        });
      },
    }),
  ];
}
