// Reads the filter a handler returned (spec §6.5) into the typed filter storage applies: each key
// names a top-level metadata field; its value is a scalar or `{$eq: scalar}` (equality), or
// `{$contains: v}` / `{$contains: [v1, v2]}` (the stored array holds every one). Keys are ANDed.
import type { AuthCondition, AuthFilter } from "../storage/auth-filter.js";
import type { Json } from "../storage/records.js";

const isScalar = (v: unknown): v is string | number | boolean | null => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

export function parseAuthFilter(returned: Record<string, unknown>, event: string): AuthFilter {
  const bad = (key: string, why: string) => new Error(`The auth handler for ${event} returned an unusable filter: '${key}' ${why}`);
  return Object.entries(returned).map(([key, value]): AuthCondition => {
    if (isScalar(value)) return { key, op: "eq", value };
    if (typeof value !== "object" || Array.isArray(value)) throw bad(key, "must be a scalar, {$eq: scalar} or {$contains: value}");
    const ops = Object.keys(value);
    const operand = (value as Record<string, unknown>)[ops[0]!];
    if (ops.length === 1 && ops[0] === "$eq" && isScalar(operand)) return { key, op: "eq", value: operand };
    if (ops.length === 1 && ops[0] === "$contains" && (isScalar(operand) || (Array.isArray(operand) && operand.every(isScalar)))) {
      return { key, op: "contains", value: operand as Json };
    }
    throw bad(key, "must be a scalar, {$eq: scalar} or {$contains: scalar or list of scalars}");
  });
}
