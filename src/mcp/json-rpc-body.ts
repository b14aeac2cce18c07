// Reads a POST body for the MCP endpoint and refuses what JSON-RPC 2.0 calls a parse error (-32700,
// not JSON) or an invalid request (-32600, JSON that is no JSON-RPC message), with the error object
// the protocol defines. The SDK's transport answers both with -32700, which JSON-RPC reserves for
// text that does not parse.
import {
  ErrorCode,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC's error response; `id` is null when the request's id could not be read. */
export interface JsonRpcError {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

export type JsonRpcBody = { ok: true; body: unknown } | { ok: false; error: JsonRpcError };

export function readJsonRpcBody(text: string): JsonRpcBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse(ErrorCode.ParseError, "Parse error: the request body is not valid JSON");
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return refuse(ErrorCode.InvalidRequest, "Invalid Request: an empty batch");
  for (const message of messages) {
    const problem = messageProblem(message);
    if (problem) return refuse(ErrorCode.InvalidRequest, `Invalid Request: ${problem}`, Array.isArray(body) ? null : idOf(message));
  }
  return { ok: true, body };
}

/**
 * What keeps a value from being a JSON-RPC 2.0 message, naming the field, or undefined. The shape
 * it has (a method, a result, an error) says which kind of message it means to be.
 */
function messageProblem(message: unknown): string | undefined {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return "a JSON-RPC message must be an object";
  const schema =
    "method" in message
      ? "id" in message
        ? JSONRPCRequestSchema
        : JSONRPCNotificationSchema
      : "result" in message
        ? JSONRPCResultResponseSchema
        : "error" in message
          ? JSONRPCErrorResponseSchema
          : undefined;
  if (!schema) return "a JSON-RPC message needs a 'method' (request or notification), a 'result' or an 'error'";
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".");
  return `${field ? `field '${field}'` : "the message"}: ${issue?.message ?? "is not valid"}`;
}

function refuse(code: ErrorCode, message: string, id: string | number | null = null): JsonRpcBody {
  return { ok: false, error: { jsonrpc: "2.0", id, error: { code, message } } };
}

/** A request's id when it can be read, as JSON-RPC asks; null otherwise. */
function idOf(message: unknown): string | number | null {
  const id = message !== null && typeof message === "object" ? (message as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
