// Store search filters (spec §1.6; the operators of LangGraph's BaseStore.search): a JSON pattern on
// item values in which any value may be an operator object. Plain values match as JSON containment
// (as metadata filters do: a scalar is equality, a nested object matches key by key), so nested keys
// work at any depth; {"$eq": v} is the same as v, and $ne/$gt/$gte/$lt/$lte become comparisons.
import { invalid } from "../errors.js";
import type { Json, JsonObject } from "../storage/records.js";
import type { StoreComparison, StoreComparisonOperator, StoreFilter } from "../storage/store-ports.js";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);

export function parseStoreFilter(filter: JsonObject, field = "filter"): StoreFilter {
  const comparisons: StoreComparison[] = [];
  const contains = walk(filter, [], field, comparisons);
  return { contains, comparisons };
}

function isObject(value: Json): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function walk(pattern: JsonObject, path: string[], field: string, comparisons: StoreComparison[]): JsonObject {
  const contains: JsonObject = {};
  for (const [key, value] of Object.entries(pattern)) {
    if (value === undefined) continue;
    const here = [...path, key];
    const name = `${field}.${here.join(".")}`;
    if (!isObject(value)) {
      contains[key] = value;
      continue;
    }
    const keys = Object.keys(value);
    const operators = keys.filter((k) => k.startsWith("$"));
    if (operators.length === 0) {
      const nested = walk(value, here, field, comparisons);
      // An object made only of operators adds no containment: {"a": {"b": {"$ne": 1}}} must also
      // match items without "a". An empty object given as such still means "an object is here".
      if (keys.length === 0 || Object.keys(nested).length > 0) contains[key] = nested;
      continue;
    }
    if (operators.length !== keys.length) {
      throw invalid(`Field '${name}' mixes operators (${operators.join(", ")}) with plain keys; nest the keys or split the condition`);
    }
    for (const op of operators) {
      if (!OPERATORS.has(op)) {
        throw invalid(`Field '${name}' uses unknown operator '${op}'; use $eq, $ne, $gt, $gte, $lt or $lte`);
      }
      const operand = value[op]!;
      if (op === "$eq" || op === "$ne") {
        if (typeof operand === "object" && operand !== null) {
          throw invalid(`Field '${name}.${op}' must be a string, number, boolean or null`);
        }
        if (op === "$eq") contains[key] = operand;
        else comparisons.push({ path: here, op, operand });
      } else {
        if (typeof operand !== "number" && typeof operand !== "string") {
          throw invalid(`Field '${name}.${op}' must be a number or a string`);
        }
        comparisons.push({ path: here, op: op as StoreComparisonOperator, operand });
      }
    }
  }
  return contains;
}
