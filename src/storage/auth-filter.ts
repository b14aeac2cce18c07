// The filter a custom auth handler returned (spec §6.5), as storage receives it: conditions on
// top-level metadata keys (store: on the item's value), all ANDed. Adapters turn it into their
// JSON containment, so a filtered-out row is never read, listed, counted, changed or deleted.
import type { Json, JsonObject } from "./records.js";

export interface AuthCondition {
  key: string;
  /** `eq`: the stored value equals `value` (a scalar); `contains`: the stored array holds every element of `values`. */
  op: "eq" | "contains";
  value: Json;
}

export type AuthFilter = readonly AuthCondition[];

/**
 * The filter as JSON containment (`jsonb @>`): a scalar member is contained only by an equal
 * scalar, and an array member by an array holding each of its elements. Both adapters build
 * their condition from this one object, so the two backends cannot drift apart.
 */
export function authContainment(filter: AuthFilter): JsonObject {
  const out: JsonObject = {};
  for (const condition of filter) {
    out[condition.key] = condition.op === "eq" ? condition.value : Array.isArray(condition.value) ? condition.value : [condition.value];
  }
  return out;
}

/** True when there is something to filter on; an empty filter is no filter. */
export function hasAuthFilter(filter: AuthFilter | undefined): filter is AuthFilter {
  return filter !== undefined && filter.length > 0;
}

/**
 * The same test in JavaScript, for a document that is not stored yet (a new store item, which
 * must match the filter it is written under).
 */
export function matchesAuthFilter(doc: JsonObject, filter: AuthFilter): boolean {
  const same = (a: Json | undefined, b: Json) => JSON.stringify(a) === JSON.stringify(b);
  return filter.every((condition) => {
    const stored = doc[condition.key];
    if (condition.op === "eq") return same(stored, condition.value);
    const wanted = Array.isArray(condition.value) ? condition.value : [condition.value];
    return Array.isArray(stored) && wanted.every((w) => stored.some((s) => same(s, w)));
  });
}
