import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { readJsonRpcBody } from "./json-rpc-body.js";

const refusal = (text: string) => {
  const read = readJsonRpcBody(text);
  if (read.ok) throw new Error(`expected a refusal of ${text}`);
  return read.error;
};

describe("readJsonRpcBody", () => {
  it("passes requests, notifications and batches through as they came", () => {
    const request = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    expect(readJsonRpcBody(JSON.stringify(request))).toEqual({ ok: true, body: request });
    const batch = [request, { jsonrpc: "2.0", method: "notifications/initialized" }];
    expect(readJsonRpcBody(JSON.stringify(batch))).toEqual({ ok: true, body: batch });
  });

  it("answers text that is not JSON with a parse error and a null id", () => {
    expect(refusal('{"jsonrpc": "2.0",')).toEqual({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError, message: expect.any(String) } });
  });

  it("answers JSON that is no JSON-RPC message with an invalid request naming the field, keeping a readable id", () => {
    expect(refusal('{"jsonrpc": "2.0", "id": "a", "method": 42}')).toMatchObject({
      id: "a",
      error: { code: ErrorCode.InvalidRequest, message: expect.stringContaining("'method'") },
    });
    expect(refusal('{"jsonrpc": "1.0", "id": 3, "method": "ping"}')).toMatchObject({ id: 3, error: { message: expect.stringContaining("'jsonrpc'") } });
    expect(refusal('{"hello": "world"}')).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest, message: expect.stringContaining("'method'") } });
    expect(refusal("42")).toMatchObject({ error: { code: ErrorCode.InvalidRequest } });
  });

  it("refuses an empty batch and a batch with one bad message, with a null id", () => {
    expect(refusal("[]")).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
    expect(refusal('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"id": 2}]')).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
  });
});
