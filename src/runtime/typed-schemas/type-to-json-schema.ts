// Turns a TypeScript type, as the compiler resolved it, into the JSON Schema (draft-07) a form can be
// drawn from: what Studio renders for a graph whose state is typed with Annotation<T> rather than
// zod. Only data shapes are kept; functions and symbol keys are dropped, and LangGraph's own wrapper
// types (Overwrite, message unions) are reduced to what a client actually sends.
import ts from "typescript";

export type JsonSchema = Record<string, unknown>;

/** LangChain's root message class: every class that extends it is a message. */
const BASE_MESSAGE = "BaseMessage";

// A message on the wire (the SDK's Message): a type and content, the rest optional. Every concrete
// message class is defined so, under its own name and description.
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
 * A converter bound to one program. Schemas made by one converter share its definitions (only
 * message classes today), which `rooted` attaches to a root schema.
 */
export class TypeSchemaConverter {
  private readonly checker: ts.TypeChecker;
  private readonly definitions = new Map<string, JsonSchema>();
  private readonly stack: ts.Type[] = [];
  /** Every class of the program by the name of the type it extends, read on the first abstract message class met. */
  private subclasses: Map<string, ts.Type[]> | undefined;

  constructor(private readonly program: ts.Program) {
    this.checker = program.getTypeChecker();
  }

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
    if (this.isMessage(type)) return this.messageRef(type);
    return this.convertObject(type);
  }

  private convertUnion(members: readonly ts.Type[]): JsonSchema {
    const kept = members.filter((t) => !isUndefined(t) && !this.isOverwrite(t));
    if (kept.length === 0) return {};
    // Messages (BaseMessageLike, the Messages update type) are one or many messages, whatever
    // mix of classes, tuples and strings the union spells out.
    if (kept.some((t) => this.isMessage(t))) {
      const ref = this.messageRef(this.widestMessage(kept));
      return kept.some((t) => this.isMessageArray(t)) ? { type: "array", items: ref } : ref;
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

  /**
   * A message class's definition, named and described as the official server's generator does
   * (the class and its type arguments, its doc comment), so clients keyed to those names find
   * them: an abstract class (BaseMessage) is one of the classes that extend it as it is, a
   * concrete one the wire message.
   */
  private messageRef(type: ts.Type): JsonSchema {
    const name = this.typeName(type);
    if (!this.definitions.has(name)) {
      const symbol = type.getSymbol();
      const description = symbol ? ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim() : "";
      const definition: JsonSchema = description ? { description } : {};
      // Set before the subclasses are read, so a subclass that refers back to it ends there.
      this.definitions.set(name, definition);
      const subclasses = isAbstractClass(symbol) ? this.subclassesOf(name) : [];
      if (subclasses.length > 0) definition.oneOf = subclasses.map((subclass) => this.messageRef(subclass));
      else Object.assign(definition, MESSAGE_SCHEMA, description ? { description } : {});
    }
    return { $ref: `#/definitions/${name.replace(/~/g, "~0").replace(/\//g, "~1")}` };
  }

  // By name, as the official generator matches them: the checker may hold two instantiations of one
  // class with the same arguments (BaseMessage with its defaults, from different places).
  private typeName(type: ts.Type): string {
    return this.checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation).replace(/\s/g, "");
  }

  /** The classes whose `extends` names exactly this type, in the program's file order. */
  private subclassesOf(name: string): ts.Type[] {
    if (!this.subclasses) {
      this.subclasses = new Map();
      const visit = (node: ts.Node) => {
        if (ts.isClassDeclaration(node) && node.name && node.heritageClauses) {
          const declared = this.checker.getTypeAtLocation(node.name) as ts.InterfaceType;
          for (const base of this.checker.getBaseTypes(declared)) {
            const baseName = this.typeName(base);
            this.subclasses!.set(baseName, [...(this.subclasses!.get(baseName) ?? []), declared]);
          }
        } else if (ts.isModuleDeclaration(node) || ts.isModuleBlock(node) || ts.isSourceFile(node)) {
          ts.forEachChild(node, visit);
        }
      };
      for (const file of this.program.getSourceFiles()) visit(file);
    }
    return this.subclasses.get(name) ?? [];
  }

  /** Of the message types a union holds (directly or as array elements), LangChain's base class if it is one. */
  private widestMessage(members: readonly ts.Type[]): ts.Type {
    const messages = members.flatMap((t) => (this.checker.isArrayType(t) ? unionMembers(this.checker.getTypeArguments(t as ts.TypeReference)[0]) : [t]));
    const found = messages.filter((t) => this.isMessage(t));
    return found.find((t) => t.getSymbol()?.getName() === BASE_MESSAGE) ?? found[0]!;
  }

  /** BaseMessage or any class that extends it (AIMessage, HumanMessage, RemoveMessage, ...). */
  private isMessage(type: ts.Type, seen = new Set<ts.Type>()): boolean {
    if (seen.has(type) || !(type.flags & ts.TypeFlags.Object)) return false;
    seen.add(type);
    if (type.getSymbol()?.getName() === BASE_MESSAGE) return true;
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

function unionMembers(type: ts.Type | undefined): readonly ts.Type[] {
  if (!type) return [];
  return type.isUnion() ? type.types : [type];
}

function isAbstractClass(symbol: ts.Symbol | undefined): boolean {
  return Boolean(symbol?.declarations?.some((d) => ts.isClassDeclaration(d) && ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Abstract));
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
