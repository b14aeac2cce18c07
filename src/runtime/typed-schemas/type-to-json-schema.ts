// Turns a TypeScript type, as the compiler resolved it, into the JSON Schema (draft-07) a form can be
// drawn from: what Studio renders for a graph whose state is typed with Annotation<T> rather than
// zod. Only data shapes are kept; functions and symbol keys are dropped, and LangGraph's own wrapper
// types (Overwrite, message unions) are reduced to what a client actually sends.
import ts from "typescript";

export type JsonSchema = Record<string, unknown>;

/** The one definition every message-typed field points at. */
const MESSAGE_DEFINITION = "BaseMessage";

// A message on the wire (the SDK's Message): a type and content, the rest optional.
const MESSAGE_SCHEMA: JsonSchema = {
  type: "object",
  description: "A chat message: a LangChain message or its serialized form ({type, content, ...}).",
  properties: {
    type: { type: "string" },
    content: { anyOf: [{ type: "string" }, { type: "array", items: { type: "object" } }] },
    id: { type: "string" },
    name: { type: "string" },
    additional_kwargs: { type: "object" },
    response_metadata: { type: "object" },
    tool_calls: { type: "array", items: { type: "object" } },
    tool_call_id: { type: "string" },
  },
  required: ["content"],
};

// Nesting past this depth is left open ({}): it keeps a pathological type from producing a
// megabyte of schema, and no form is drawn that deep.
const MAX_DEPTH = 12;

const PRIMITIVE_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * A converter bound to one program's checker. Schemas made by one converter share its
 * definitions (only the message type today), which `withDefinitions` attaches to a root schema.
 */
export class TypeSchemaConverter {
  private readonly definitions = new Map<string, JsonSchema>();
  private readonly stack: ts.Type[] = [];

  constructor(private readonly checker: ts.TypeChecker) {}

  /** The schema of a top-level object type, with `$schema` and the definitions it refers to. */
  root(type: ts.Type): JsonSchema {
    this.definitions.clear();
    return this.rooted(this.convert(type));
  }

  private rooted(schema: JsonSchema): JsonSchema {
    const rooted: JsonSchema = { ...schema, $schema: "http://json-schema.org/draft-07/schema#" };
    if (this.definitions.size > 0) rooted.definitions = Object.fromEntries(this.definitions);
    return rooted;
  }

  /** A root object schema from fields given one by one, every one optional. */
  rootObject(fields: Array<{ name: string; type: ts.Type; description: string }>): JsonSchema {
    this.definitions.clear();
    const properties: Record<string, JsonSchema> = {};
    for (const { name, type, description } of fields) {
      const schema = this.convert(type);
      properties[name] = description ? { description, ...schema } : schema;
    }
    return this.rooted({ type: "object", properties });
  }

  convert(type: ts.Type): JsonSchema {
    if (this.stack.length >= MAX_DEPTH || this.stack.includes(type)) return {};
    this.stack.push(type);
    try {
      return this.convertType(type);
    } finally {
      this.stack.pop();
    }
  }

  private convertType(type: ts.Type): JsonSchema {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never | ts.TypeFlags.ESSymbolLike)) return {};
    if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) return { type: "string" };
    if (f & ts.TypeFlags.Number) return { type: "number" };
    if (f & ts.TypeFlags.BigInt) return { type: "integer" };
    if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
    if (f & ts.TypeFlags.Null) return { type: "null" };
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return {};
    if (type.isStringLiteral()) return { type: "string", const: type.value };
    if (type.isNumberLiteral()) return { type: "number", const: type.value };
    if (f & ts.TypeFlags.BooleanLiteral) return { type: "boolean", const: this.checker.typeToString(type) === "true" };
    if (type.isUnion()) return this.convertUnion(type.types);
    if (type.isIntersection()) {
      // A branded primitive (string & { __brand: "Id" }) is that primitive.
      const primitive = type.types.find(
        (t) => t.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike | ts.TypeFlags.BigIntLike),
      );
      if (primitive) return this.convert(primitive);
    }
    if (this.isMessage(type)) return this.messageRef();
    return this.convertObject(type);
  }

  private convertUnion(members: readonly ts.Type[]): JsonSchema {
    const kept = members.filter((t) => !isUndefined(t) && !this.isOverwrite(t));
    if (kept.length === 0) return {};
    // Messages (BaseMessageLike, the Messages update type) are one or many messages, whatever
    // mix of classes, tuples and strings the union spells out.
    if (kept.some((t) => this.isMessage(t))) {
      return kept.some((t) => this.isMessageArray(t)) ? { type: "array", items: this.messageRef() } : this.messageRef();
    }
    const schemas: JsonSchema[] = [];
    const literals = new Map<string, Array<string | number | boolean>>();
    for (const member of kept) {
      if (member.isStringLiteral() || member.isNumberLiteral() || member.flags & ts.TypeFlags.BooleanLiteral) {
        const converted = this.convert(member);
        const kind = converted.type as string;
        literals.set(kind, [...(literals.get(kind) ?? []), converted.const as string | number | boolean]);
      } else {
        schemas.push(this.convert(member));
      }
    }
    for (const [kind, values] of literals) {
      if (kind === "boolean" && values.length === 2) schemas.push({ type: "boolean" });
      else schemas.push({ type: kind, enum: [...new Set(values)].sort(compareValues) });
    }
    if (schemas.length === 1) return schemas[0]!;
    if (schemas.some((s) => Object.keys(s).length === 0)) return {};
    if (schemas.every(isBarePrimitive)) {
      const types = [...new Set(schemas.map((s) => s.type as string))];
      // "null" last, as people write it: ["string", "null"].
      return { type: [...types.filter((t) => t !== "null"), ...types.filter((t) => t === "null")] };
    }
    return { anyOf: schemas };
  }

  private convertObject(type: ts.Type): JsonSchema {
    const symbolName = type.getSymbol()?.getName();
    if (symbolName === "Date") return { type: "string", format: "date-time" };
    if (this.checker.isTupleType(type)) {
      const items = this.checker.getTypeArguments(type as ts.TypeReference).map((t) => this.convert(t));
      return { type: "array", items, minItems: items.length, maxItems: items.length };
    }
    if (this.checker.isArrayType(type)) {
      const element = this.checker.getTypeArguments(type as ts.TypeReference)[0];
      return { type: "array", items: element ? this.convert(element) : {} };
    }
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of this.checker.getPropertiesOfType(type)) {
      const name = property.getName();
      if (name.startsWith("__@") || name.startsWith("~")) continue;
      const propertyType = this.checker.getTypeOfSymbol(property);
      if (isFunction(propertyType)) continue;
      const schema = this.convert(propertyType);
      const description = ts.displayPartsToString(property.getDocumentationComment(this.checker)).trim();
      properties[name] = description ? { description, ...schema } : schema;
      const optional = property.flags & ts.SymbolFlags.Optional || (propertyType.isUnion() && propertyType.types.some(isUndefined));
      if (!optional) required.push(name);
    }
    const schema: JsonSchema = { type: "object", properties };
    if (required.length > 0) schema.required = required;
    const index = this.checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    if (index) schema.additionalProperties = this.convert(index.type);
    return schema;
  }

  private messageRef(): JsonSchema {
    this.definitions.set(MESSAGE_DEFINITION, MESSAGE_SCHEMA);
    return { $ref: `#/definitions/${MESSAGE_DEFINITION}` };
  }

  /** BaseMessage or any class that extends it (AIMessage, HumanMessage, RemoveMessage, ...). */
  private isMessage(type: ts.Type, seen = new Set<ts.Type>()): boolean {
    if (seen.has(type) || !(type.flags & ts.TypeFlags.Object)) return false;
    seen.add(type);
    if (type.getSymbol()?.getName() === MESSAGE_DEFINITION) return true;
    const objectFlags = (type as ts.ObjectType).objectFlags;
    const target = objectFlags & ts.ObjectFlags.Reference ? (type as ts.TypeReference).target : type;
    if (!((target as ts.ObjectType).objectFlags & ts.ObjectFlags.ClassOrInterface)) return false;
    return this.checker.getBaseTypes(target as ts.InterfaceType).some((base) => this.isMessage(base, seen));
  }

  private isMessageArray(type: ts.Type): boolean {
    if (!this.checker.isArrayType(type)) return false;
    const element = this.checker.getTypeArguments(type as ts.TypeReference)[0];
    if (!element) return false;
    return element.isUnion() ? element.types.some((t) => this.isMessage(t)) : this.isMessage(element);
  }

  /** LangGraph's Overwrite wrapper, part of every reducer channel's update type. */
  private isOverwrite(type: ts.Type): boolean {
    return Boolean(type.flags & ts.TypeFlags.Object) && this.checker.getPropertyOfType(type, "__overwrite__") !== undefined;
  }
}

function isUndefined(type: ts.Type): boolean {
  return Boolean(type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
}

function isFunction(type: ts.Type): boolean {
  const members = type.isUnion() ? type.types.filter((t) => !isUndefined(t)) : [type];
  return members.length > 0 && members.every((t) => t.getCallSignatures().length > 0 && t.getProperties().length === 0);
}

function isBarePrimitive(schema: JsonSchema): boolean {
  const keys = Object.keys(schema);
  return keys.length === 1 && typeof schema.type === "string" && PRIMITIVE_TYPES.has(schema.type);
}

function compareValues(a: string | number | boolean, b: string | number | boolean): number {
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}
