// The JSON-RPC 2.0 envelope A2A speaks: reading a request and writing answers and error objects
// with the codes of JSON-RPC and of the A2A specification (v0.3, "JSON-RPC error codes").
import { z } from "zod";

export const JSONRPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
} as const;

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse = { jsonrpc: "2.0"; id: JsonRpcId; result: unknown } | { jsonrpc: "2.0"; id: JsonRpcId; error: JsonRpcErrorObject };

/** A refusal that travels as a JSON-RPC error object rather than as an HTTP error. */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.data = data;
  }

  toObject(): JsonRpcErrorObject {
    return { code: this.code, message: this.message, ...(this.data !== undefined ? { data: this.data } : {}) };
  }
}

export const invalidParams = (message: string, data?: unknown) => new JsonRpcError(JSONRPC_CODES.invalidParams, message, data);

export interface JsonRpcRequest {
  id: JsonRpcId;
  method: string;
  params: unknown;
}

const Envelope = z.object({
  jsonrpc: z.literal("2.0"),
  // A2A methods all answer, so a notification (no id) has nothing to do here.
  id: z.union([z.string(), z.number(), z.null()]),
  method: z.string().min(1),
  params: z.unknown().optional(),
});

/**
 * The request in a parsed body, or the error object to answer with. The id is echoed whenever the
 * body carried a usable one, so a client can match even a refusal to its request.
 */
export function readEnvelope(body: unknown): { request: JsonRpcRequest } | { id: JsonRpcId; error: JsonRpcError } {
  if (Array.isArray(body))
    return { id: null, error: new JsonRpcError(JSONRPC_CODES.invalidRequest, "Batch requests are not supported; send one JSON-RPC request per call") };
  const parsed = Envelope.safeParse(body);
  if (!parsed.success) {
    const id = idOf(body);
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `'${issue.path.join(".")}'` : "the body";
    return { id, error: new JsonRpcError(JSONRPC_CODES.invalidRequest, `Invalid JSON-RPC request: ${where} ${describeIssue(issue)}`) };
  }
  return { request: { id: parsed.data.id, method: parsed.data.method, params: parsed.data.params } };
}

/** Params checked against a method's schema; a mismatch is the protocol's invalid-params error naming the field. */
export function readParams<S extends z.ZodType>(schema: S, params: unknown, method: string): z.output<S> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `params.${issue.path.join(".")}` : "params";
  throw invalidParams(`Invalid params for ${method}: ${where} ${describeIssue(issue)}`);
}

export const success = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({ jsonrpc: "2.0", id, result });
export const failure = (id: JsonRpcId, error: JsonRpcError): JsonRpcResponse => ({ jsonrpc: "2.0", id, error: error.toObject() });

function idOf(body: unknown): JsonRpcId {
  const id = typeof body === "object" && body !== null ? (body as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return `is invalid: ${issue.message}`;
}
