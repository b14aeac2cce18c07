import { describe, expect, it } from "vitest";
import { compileSource } from "./compile-source.test-support.js";
import { TypeSchemaConverter } from "./type-to-json-schema.js";

const schemaOf = (text: string, name = "T") => {
  const compiled = compileSource(text);
  return new TypeSchemaConverter(compiled.checker).root(compiled.typeOf(name));
};

describe("JSON Schema from a TypeScript type", () => {
  it("turns a union of string literals into a string enum, and one literal into a const", () => {
    const schema = schemaOf(`type T = { tone: "friendly" | "formal"; kind: "ticket" };`);
    expect(schema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { tone: { type: "string", enum: ["formal", "friendly"] }, kind: { type: "string", const: "ticket" } },
      required: ["tone", "kind"],
    });
  });

  it("leaves optional and undefined-able fields out of required and describes fields from their doc comments", () => {
    const schema = schemaOf(`
      interface T {
        id: string;
        /** Who picked the ticket up. */
        assignee?: string;
        closedAt: number | undefined;
      }`);
    expect(schema.required).toEqual(["id"]);
    expect(schema.properties).toEqual({
      id: { type: "string" },
      assignee: { description: "Who picked the ticket up.", type: "string" },
      closedAt: { type: "number" },
    });
  });

  it("writes nullable primitives as a type list and mixed unions as anyOf", () => {
    const { properties } = schemaOf(`type T = { label: string | null; size: number | "auto"; flag: boolean };`);
    expect(properties).toEqual({
      label: { type: ["string", "null"] },
      size: { anyOf: [{ type: "number" }, { type: "string", enum: ["auto"] }] },
      flag: { type: "boolean" },
    });
  });

  it("describes arrays, tuples, records and dates", () => {
    const { properties } = schemaOf(`type T = { tags: string[]; pair: [string, number]; scores: Record<string, number>; at: Date };`);
    expect(properties).toEqual({
      tags: { type: "array", items: { type: "string" } },
      pair: { type: "array", items: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 },
      scores: { type: "object", properties: {}, additionalProperties: { type: "number" } },
      at: { type: "string", format: "date-time" },
    });
  });

  it("drops methods and leaves a recursive reference open", () => {
    const schema = schemaOf(`interface T { name: string; children: T[]; visit(): void }`);
    expect(schema.properties).toEqual({ name: { type: "string" }, children: { type: "array", items: {} } });
  });

  it("reduces LangGraph's Overwrite wrapper to the value and any mix of messages to one message definition", () => {
    const schema = schemaOf(`
      declare class BaseMessage { content: string; toDict(): object }
      declare class AIMessage extends BaseMessage { tool_calls: unknown[] }
      type MessageLike = BaseMessage | string | [string, string];
      type T = {
        messages?: Array<MessageLike> | MessageLike;
        last?: AIMessage;
        turns?: number | { __overwrite__: number };
      };`);
    expect(schema.properties).toEqual({
      messages: { type: "array", items: { $ref: "#/definitions/BaseMessage" } },
      last: { $ref: "#/definitions/BaseMessage" },
      turns: { type: "number" },
    });
    expect(Object.keys(schema.definitions as object)).toEqual(["BaseMessage"]);
  });
});
