// What the run engine refuses, as MCP (JSON-RPC) errors: the same sentences the HTTP API answers
// with, under the protocol's codes. Anything else is a bug and says only where to look, as a 500
// does on the API.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AuthRejection, GantryError, type ErrorKind } from "../errors.js";

/** The request named something that is not there or is not acceptable: the caller's params are at fault. */
const PARAMS_KINDS: ReadonlySet<ErrorKind> = new Set(["not_found", "invalid", "malformed", "unsupported", "too_large"]);

export function isRefusal(err: unknown): err is GantryError | AuthRejection {
  return err instanceof GantryError || err instanceof AuthRejection;
}

/** A refusal (isRefusal) as the JSON-RPC error a client sees; other errors as an internal error naming the request. */
export function toMcpError(err: unknown, requestId: string): McpError {
  if (err instanceof McpError) return err;
  if (err instanceof GantryError) return new McpError(PARAMS_KINDS.has(err.kind) ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest, err.message);
  if (err instanceof AuthRejection) return new McpError(ErrorCode.InvalidRequest, err.message);
  return new McpError(ErrorCode.InternalError, `Internal error (request ${requestId}). The server log has the details.`);
}
