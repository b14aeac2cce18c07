import { describe, expect, it } from "vitest";
import { z } from "zod";
import { JSONRPC_CODES, JsonRpcError, readEnvelope, readParams } from "./json-rpc.js";

describe("readEnvelope", () => {
  it("reads a request", () => {
    expect(readEnvelope({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: "x" }, extra: 1 })).toEqual({
      request: { id: 3, method: "tasks/get", params: { id: "x" } },
    });
  });

  it.each([
    [[{ jsonrpc: "2.0", id: 1, method: "m" }], null],
    [{ id: 2, method: "m" }, 2],
    [{ jsonrpc: "2.0", method: "m" }, null],
    [{ jsonrpc: "2.0", id: "a", method: "" }, "a"],
    ["text", null],
  ])("refuses %j as an invalid request, echoing id %j", (body, id) => {
    const answer = readEnvelope(body);
    expect(answer).toMatchObject({ id, error: { code: JSONRPC_CODES.invalidRequest } });
  });
});

describe("readParams", () => {
  it("names the field that is wrong in an invalid-params error", () => {
    const schema = z.object({ id: z.string() });
    expect(readParams(schema, { id: "x" }, "tasks/get")).toEqual({ id: "x" });
    try {
      readParams(schema, { id: 1 }, "tasks/get");
      throw new Error("expected a refusal");
    } catch (err) {
      expect(err).toBeInstanceOf(JsonRpcError);
      expect((err as JsonRpcError).code).toBe(JSONRPC_CODES.invalidParams);
      expect((err as JsonRpcError).message).toContain("params.id");
    }
  });
});
