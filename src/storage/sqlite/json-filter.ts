// JSON containment for SQLite, with the meaning of PostgreSQL's `jsonb @>`: objects match when
// every filter key is contained, arrays when every filter element is contained in some element,
// scalars when type and value are equal. Built as SQL over json_type/json_extract/json_each, so the
// filter runs inside the query and never as a scan in JavaScript.
import { authContainment, type AuthFilter } from "../auth-filter.js";
import type { Json, JsonObject } from "../records.js";

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

export function jsonContains(column: string, filter: Json): SqlFragment {
  const params: unknown[] = [];
  const sql = containment(column, "$", filter, params, 0);
  return { sql, params };
}

/** Top-level string and boolean entries as (key, JSON text) pairs, for the thread metadata side table. */
export function indexableEntries(filter: JsonObject): Array<[string, string]> {
  return Object.entries(filter)
    .filter(([, v]) => typeof v === "string" || typeof v === "boolean")
    .map(([k, v]) => [k, JSON.stringify(v)]);
}

function containment(doc: string, path: string, filter: Json, params: unknown[], depth: number): string {
  params.push(path);
  const type = `json_type(${doc}, ?)`;
  if (filter === null) return `${type} = 'null'`;
  if (typeof filter === "boolean") return `${type} = '${filter ? "true" : "false"}'`;
  if (typeof filter === "number") {
    params.push(path, filter);
    return `(${type} IN ('integer', 'real') AND json_extract(${doc}, ?) = ?)`;
  }
  if (typeof filter === "string") {
    params.push(path, filter);
    return `(${type} = 'text' AND json_extract(${doc}, ?) = ?)`;
  }
  if (Array.isArray(filter)) {
    const parts = [`${type} = 'array'`];
    for (const element of filter) {
      const alias = `e${depth}`;
      params.push(path);
      parts.push(`EXISTS (SELECT 1 FROM json_each(${doc}, ?) AS ${alias} WHERE ${elementMatches(alias, element, params, depth + 1)})`);
    }
    return `(${parts.join(" AND ")})`;
  }
  const parts = [`${type} = 'object'`];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    parts.push(containment(doc, `${path}.${quoteKey(key)}`, value, params, depth));
  }
  return `(${parts.join(" AND ")})`;
}

/** Matches one json_each row (alias.type / alias.atom / alias.value) against a filter element. */
function elementMatches(alias: string, filter: Json, params: unknown[], depth: number): string {
  if (filter === null) return `${alias}.type = 'null'`;
  if (typeof filter === "boolean") return `${alias}.type = '${filter ? "true" : "false"}'`;
  if (typeof filter === "number") {
    params.push(filter);
    return `(${alias}.type IN ('integer', 'real') AND ${alias}.atom = ?)`;
  }
  if (typeof filter === "string") {
    params.push(filter);
    return `(${alias}.type = 'text' AND ${alias}.atom = ?)`;
  }
  // Containers: json_each gives their JSON text in `value`, which nests like a document.
  const kind = Array.isArray(filter) ? "array" : "object";
  return `(${alias}.type = '${kind}' AND ${containment(`${alias}.value`, "$", filter, params, depth)})`;
}

/** A JSON path member, quoted so dots, spaces and quotes in keys stay one member. */
function quoteKey(key: string): string {
  return `"${key.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The condition an auth filter puts on a JSON column (the one place SQLite translates it). */
export function authFilterSql(column: string, filter: AuthFilter): SqlFragment {
  return jsonContains(column, authContainment(filter));
}
