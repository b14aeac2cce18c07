import { describe, expect, it } from "vitest";
import { compileSource } from "./compile-source.test-support.js";
import { TypeSchemaConverter } from "./type-to-json-schema.js";

const schemaOf = (text: string, name = "T") => {
  const compiled = compileSource(text);
  return new TypeSchemaConverter(compiled.program).root(compiled.typeOf(name));
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

  it("reduces LangGraph's Overwrite wrapper to the value and any mix of messages to the base message class", () => {
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
      last: { $ref: "#/definitions/AIMessage" },
      turns: { type: "number" },
    });
    expect(Object.keys(schema.definitions as object)).toEqual(["BaseMessage", "AIMessage"]);
  });

  // What the official server's generator answers for LangChain's abstract BaseMessage (reference
  // test "assistants > schemas"): named with its type arguments, described by its doc comment, one
  // of the classes that extend it as it is (not AIMessage, which extends BaseMessage<S, "ai">).
  it("names message definitions after their classes, an abstract one being one of the classes that extend it as it is", () => {
    const schema = schemaOf(`
      type Role = "ai" | "human" | "remove";
      interface Structure<Tools = string> { tools: Tools }
      /** Base class for all types of messages in a conversation. */
      declare abstract class BaseMessage<S extends Structure = Structure, R extends Role = Role> { content: string; role?: R; s?: S }
      declare class AIMessage<S extends Structure = Structure> extends BaseMessage<S, "ai"> { tool_calls: unknown[] }
      /** Removes a message from the history. */
      declare class RemoveMessage extends BaseMessage { }
      type T = { messages: BaseMessage[] };`);
    const name = "BaseMessage<Structure<string>,Role>";
    expect(schema.properties).toEqual({ messages: { type: "array", items: { $ref: `#/definitions/${name}` } } });
    expect(schema.definitions).toEqual({
      [name]: { description: "Base class for all types of messages in a conversation.", oneOf: [{ $ref: "#/definitions/RemoveMessage" }] },
      RemoveMessage: expect.objectContaining({ description: "Removes a message from the history.", type: "object", required: ["content"] }),
    });
  });
});
