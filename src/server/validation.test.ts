import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GantryError } from "../errors.js";
import { RunBatch } from "./schemas/runs.js";
import { parseWith, queryBool, queryObject } from "./validation.js";

async function queryOf(url: string, listKeys: string[]): Promise<Record<string, unknown>> {
  const app = new Hono();
  app.get("/q", (c) => c.json(queryObject(c, listKeys)));
  const response = await app.request(url);
  return (await response.json()) as Record<string, unknown>;
}

describe("query lists", () => {
  it("accepts repeated keys, JSON arrays and comma lists alike", async () => {
    expect(await queryOf("/q?select=a&select=b", ["select"])).toEqual({ select: ["a", "b"] });
    expect(await queryOf(`/q?select=${encodeURIComponent('["a","b"]')}`, ["select"])).toEqual({ select: ["a", "b"] });
    expect(await queryOf("/q?select=a,b", ["select"])).toEqual({ select: ["a", "b"] });
    expect(await queryOf("/q?x=1&x=2", [])).toEqual({ x: "2" });
  });
});

describe("query booleans", () => {
  it("reads true/false/1/0 in any case and refuses anything else", () => {
    const schema = z.object({ b: queryBool });
    expect(parseWith(schema, { b: "TRUE" }, "query").b).toBe(true);
    expect(parseWith(schema, { b: "1" }, "query").b).toBe(true);
    expect(parseWith(schema, { b: "false" }, "query").b).toBe(false);
    expect(parseWith(schema, { b: "0" }, "query").b).toBe(false);
    expect(() => parseWith(schema, { b: "yes" }, "query")).toThrow(/Field 'b' is invalid: must be true, false, 1 or 0/);
  });
});

describe("zod failures", () => {
  it("become one sentence naming the field", () => {
    const schema = z.object({ limit: z.int().max(1000), nested: z.object({ a: z.string() }) }).strict();
    const attempt = (value: unknown) => {
      try {
        parseWith(schema, value, "body");
      } catch (err) {
        expect(err).toBeInstanceOf(GantryError);
        expect((err as GantryError).kind).toBe("invalid");
        return (err as Error).message;
      }
      throw new Error("expected a failure");
    };
    expect(attempt({ limit: 5000, nested: { a: "x" } })).toMatch(/^Field 'limit' is invalid/);
    expect(attempt({ limit: 1, nested: { a: 1 } })).toMatch(/^Field 'nested.a' is invalid/);
    expect(attempt({ limit: 1, nested: { a: 1 }, extra: 1 })).toMatch(/^Field 'nested.a' is invalid/);
    expect(attempt(undefined)).toMatch(/^The request body is invalid/);
  });
});

describe("unknown fields", () => {
  const checkpoint = z.object({ checkpoint_id: z.string() }).strict();
  const schema = z
    .object({
      limit: z.int().optional(),
      checkpoint: checkpoint.optional(),
      before: z.union([z.string(), checkpoint]).optional(),
      items: z.array(z.object({ key: z.string() }).strict()).optional(),
    })
    .strict();
  const parse = (value: unknown) => {
    let ignored: string[] = [];
    const data = parseWith(schema, value, "body", (fields) => (ignored = fields));
    return { data, ignored };
  };

  it("are dropped and named, at the top and in nested objects, arrays and unions", () => {
    expect(parse({ limit: 2, raise_error: true })).toEqual({ data: { limit: 2 }, ignored: ["raise_error"] });
    const nested = parse({ checkpoint: { checkpoint_id: "a", ns: "" }, before: { checkpoint_id: "b", map: {} }, items: [{ key: "k", ttl: 1 }] });
    expect(nested.data).toEqual({ checkpoint: { checkpoint_id: "a" }, before: { checkpoint_id: "b" }, items: [{ key: "k" }] });
    expect(nested.ignored.sort()).toEqual(["before.map", "checkpoint.ns", "items[0].ttl"]);
  });

  it("are dropped from the JS SDK's camelCase batch items under their own names", () => {
    let ignored: string[] = [];
    const data = parseWith(RunBatch, [{ assistantId: "echo", streamMode: "values", futureOption: 1 }], "body", (fields) => (ignored = fields));
    expect(data).toEqual([{ assistant_id: "echo", stream_mode: "values" }]);
    expect(ignored).toEqual(["[0].futureOption"]);
  });

  it("report nothing when there are none", () => {
    expect(parse({ limit: 1 })).toEqual({ data: { limit: 1 }, ignored: [] });
  });

  it("never hide a known field of the wrong type", () => {
    expect(() => parse({ limit: "many", extra: 1 })).toThrow(/^Field 'limit' is invalid/);
    expect(() => parse({ before: 5, extra: 1 })).toThrow(/^Field 'before' is invalid/);
    expect(() => parse({ checkpoint: { checkpoint_id: 7, extra: 1 } })).toThrow(/^Field 'checkpoint.checkpoint_id' is invalid/);
  });
});

describe("empty query values", () => {
  it("count as absent, as the Python SDK sends a parameter it has no value for as `key=`", async () => {
    expect(await queryOf("/q?stream_mode=&cancel_on_disconnect=false", ["stream_mode"])).toEqual({ cancel_on_disconnect: "false" });
    expect(await queryOf("/q?xray=", [])).toEqual({});
  });
});
