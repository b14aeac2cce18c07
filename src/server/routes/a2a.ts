// The A2A face (platform: "A2A endpoint in Agent Server"): the agent card of an assistant, and its
// JSON-RPC endpoint. Bad JSON-RPC is answered with the protocol's error object (HTTP 200), never
// a 500; an unknown assistant with its not-found error on a 404; auth keeps its usual answers.
import type { Context } from "hono";
import { z } from "zod";
import { jsonRpcErrorOf, type A2aCaller, type A2aService } from "../../a2a/a2a-service.js";
import { failure, JSONRPC_CODES, JsonRpcError, readEnvelope, readParams, success, type JsonRpcId, type JsonRpcRequest } from "../../a2a/json-rpc.js";
import { MessageSendParams, TaskIdParams, TaskQueryParams, type StreamEvent } from "../../a2a/protocol.js";
import type { Assistant } from "../../domain/records.js";
import { GantryError } from "../../errors.js";
import type { Logger } from "../../logging.js";
import { accessOf, type AppEnv } from "../app-env.js";
import { requestHeaders } from "../node-request.js";
import { route, type RouteSpec } from "../route.js";
import { sseResponse, type SseEvent } from "../sse.js";
import { readJson } from "../validation.js";

const TAG = "A2A";

const AgentCardQuery = z.object({ assistant_id: z.string().min(1) });

const METHODS = ["message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe"];

export function a2aRoutes(deps: { a2a: A2aService; prefix: string; log: Logger }): RouteSpec[] {
  const { a2a, log } = deps;

  const endpointUrl = (c: Context<AppEnv>, assistantId: string) => `${new URL(c.req.url).origin}${deps.prefix}/a2a/${assistantId}`;

  const answer = (c: Context<AppEnv>, id: JsonRpcId, error: JsonRpcError, status: 200 | 404 = 200) => c.json(failure(id, error), status);

  const dispatch = async (c: Context<AppEnv>, assistant: Assistant, request: JsonRpcRequest): Promise<Response> => {
    const caller: A2aCaller = { access: accessOf(c), headers: requestHeaders(c) };
    const { id, method, params } = request;
    switch (method) {
      case "message/send":
        return c.json(success(id, await a2a.send(assistant, readParams(MessageSendParams, params, method), caller)));
      case "message/stream": {
        const sendParams = readParams(MessageSendParams, params, method);
        return stream(c, id, (signal) => a2a.stream(assistant, sendParams, caller, signal));
      }
      case "tasks/resubscribe": {
        const taskId = readParams(TaskIdParams, params, method).id;
        return stream(c, id, (signal) => a2a.resubscribe(assistant, taskId, caller, signal));
      }
      case "tasks/get":
        return c.json(success(id, await a2a.getTask(assistant, readParams(TaskQueryParams, params, method), caller)));
      case "tasks/cancel":
        return c.json(success(id, await a2a.cancelTask(assistant, readParams(TaskIdParams, params, method).id, caller)));
      case "tasks/pushNotificationConfig/set":
      case "tasks/pushNotificationConfig/get":
      case "tasks/pushNotificationConfig/list":
      case "tasks/pushNotificationConfig/delete":
        throw new JsonRpcError(JSONRPC_CODES.pushNotificationNotSupported, "Push notifications are not supported by this agent");
      default:
        throw new JsonRpcError(JSONRPC_CODES.methodNotFound, `Method '${method}' not found; this endpoint serves ${METHODS.join(", ")}`);
    }
  };

  const stream = async (c: Context<AppEnv>, id: JsonRpcId, open: (signal: AbortSignal) => Promise<AsyncGenerator<StreamEvent>>) => {
    // Aborted when the client leaves, so the log reader lets go at once; the run goes on.
    const reader = new AbortController();
    const events = await open(reader.signal);
    return sseResponse(c, frames(c, id, events), { onDisconnect: () => reader.abort() });
  };

  /** Each event as a JSON-RPC response to the request; a failure mid-stream ends it with an error object. */
  async function* frames(c: Context<AppEnv>, id: JsonRpcId, events: AsyncGenerator<StreamEvent>): AsyncGenerator<SseEvent> {
    try {
      for await (const event of events) yield { event: "message", data: success(id, event) };
    } catch (err) {
      const known = jsonRpcErrorOf(err);
      if (!known) log.error("a2a stream failed", { request_id: c.get("requestId"), err });
      const error = known ?? new JsonRpcError(JSONRPC_CODES.internalError, `Internal error (request ${c.get("requestId")}). The server log has the details.`);
      yield { event: "message", data: failure(id, error) };
    }
  }

  return [
    route({
      method: "get",
      path: "/.well-known/agent-card.json",
      tag: TAG,
      summary: "The A2A agent card of an assistant",
      query: AgentCardQuery,
      responses: { 200: "Agent card (A2A v0.3)", 404: "Assistant not found", 422: "Missing assistant_id" },
      handler: async (c, { query }) => {
        const assistant = await a2a.assistant(query.assistant_id, accessOf(c));
        return c.json(await a2a.card(assistant, endpointUrl(c, assistant.assistant_id)));
      },
    }),
    route({
      method: "post",
      path: "/a2a/:assistant_id",
      tag: TAG,
      summary: "A2A JSON-RPC 2.0: message/send, message/stream (SSE), tasks/get, tasks/cancel, tasks/resubscribe (SSE)",
      responses: { 200: "JSON-RPC response (or an SSE stream of them for message/stream), errors included", 404: "Assistant not found (JSON-RPC error)" },
      handler: async (c) => {
        let body: unknown;
        try {
          body = await readJson(c);
        } catch (err) {
          if (!(err instanceof GantryError)) throw err;
          const code = err.kind === "malformed" ? JSONRPC_CODES.parseError : JSONRPC_CODES.invalidRequest;
          return answer(c, null, new JsonRpcError(code, err.message));
        }
        if (body === undefined)
          return answer(c, null, new JsonRpcError(JSONRPC_CODES.invalidRequest, "The request body is empty; send a JSON-RPC 2.0 request"));
        const envelope = readEnvelope(body);
        if ("error" in envelope) return answer(c, envelope.id, envelope.error);
        const { request } = envelope;
        let assistant: Assistant;
        try {
          assistant = await a2a.assistant(c.req.param("assistant_id")!, accessOf(c));
        } catch (err) {
          if (err instanceof GantryError && err.kind === "not_found")
            return answer(c, request.id, new JsonRpcError(JSONRPC_CODES.taskNotFound, err.message), 404);
          throw err;
        }
        try {
          return await dispatch(c, assistant, request);
        } catch (err) {
          const error = jsonRpcErrorOf(err);
          if (error) return answer(c, request.id, error);
          throw err;
        }
      },
    }),
  ];
}
