// fast-check arbitraries from the JSON Schemas of /openapi.json (what zod's toJSONSchema writes):
// values a schema-abiding client could send, with strings that name things (ids, graph ids) drawn
// from what the server under test knows, so requests reach past "not found" into real work.
import fc from "fast-check";

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

/** Strings worth sending where a schema only says "string": ids and names the server holds. */
export type KnownStrings = fc.Arbitrary<string>;

const smallJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 3 }),
  ),
})).value;

export function fromSchema(schema: JsonSchema | boolean | undefined, known: KnownStrings, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || (typeof schema === "object" && Object.keys(schema).length === 0)) return smallJson;
  if (schema === false) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => fromSchema(b, known, depth + 1)));
  if (schema.allOf?.length) return fromSchema(schema.allOf[0], known, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (type.length > 1) return fc.oneof(...type.map((t) => fromSchema({ ...schema, type: t }, known, depth + 1)));
  switch (type[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: Math.ceil(schema.minimum ?? schema.exclusiveMinimum ?? -1000), max: Math.floor(schema.maximum ?? 1000) });
    case "number": {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 0.001 : -1000);
      return fc.double({ min, max: schema.maximum ?? Math.max(min + 1000, 1000), noNaN: true, noDefaultInfinity: true });
    }
    case "string":
      return stringFor(schema, known);
    case "array": {
      if (schema.prefixItems) return fc.tuple(...schema.prefixItems.map((s) => fromSchema(s, known, depth + 1)));
      const maxLength = Math.min(schema.maxItems ?? 3, 3);
      return fc.array(fromSchema(schema.items, known, depth + 1), { minLength: Math.min(schema.minItems ?? 0, maxLength), maxLength });
    }
    case "object":
      return objectFor(schema, known, depth);
    default:
      return smallJson;
  }
}

function stringFor(schema: JsonSchema, known: KnownStrings): fc.Arbitrary<string> {
  if (schema.format === "uuid") return fc.oneof(known, fc.uuid());
  if (schema.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 16, 16));
  return fc.oneof(known, fc.string({ minLength: min, maxLength: max }));
}

function objectFor(schema: JsonSchema, known: KnownStrings, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  if (Object.keys(properties).length === 0) {
    if (depth > 3) return fc.constant({});
    const values = typeof schema.additionalProperties === "object" ? fromSchema(schema.additionalProperties, known, depth + 1) : smallJson;
    return fc.dictionary(fc.oneof(known, fc.string({ maxLength: 8 })), values, { maxKeys: 3 });
  }
  const entries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) entries[name] = fromSchema(sub, known, depth + 1);
  return fc.record(entries, { requiredKeys: schema.required ?? [] });
}
