// Turning what comes over the wire into typed values: JSON bodies and query strings through zod,
// path ids as UUIDs. Every failure is a GantryError whose message names the field and the problem.
import type { Context } from "hono";
import { z } from "zod";
import { checkStorableJson, jsonTextTooDeep, MAX_JSON_DEPTH, unstorableText } from "../domain/limits.js";
import { closest } from "../did-you-mean.js";
import { GantryError, invalid, ValidationFailure, type ValidationIssue } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatPath, parseIgnoringUnknownKeys } from "../unknown-keys.js";
import { readBodyText } from "./node-request.js";
import { bodyParsedByUserApp } from "./user-app.js";

/**
 * One sentence from a zod failure: where, then what, then what would do: a missing field is named
 * as required, a value outside a fixed set is quoted beside the values allowed (and the likely one).
 */
export function describeZodError(error: z.ZodError, where: "body" | "query", value?: unknown): string {
  const issue = mostSpecific(error.issues[0]!);
  if (issue.code === "unrecognized_keys") {
    const prefix = issue.path.length ? `'${formatPath(issue.path)}' in the ${where}` : `the ${where}`;
    return `Unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")} in ${prefix}`;
  }
  const field = issue.path.length ? `Field '${formatPath(issue.path)}'` : where === "body" ? "The request body" : "The query";
  const got = valueAt(value, issue.path);
  if (issue.code === "invalid_type" && issue.path.length > 0 && got.found && got.value === undefined)
    return `${field} is required (expected ${issue.expected})`;
  // zod's own wording only; a schema's message of its own already says what is allowed.
  if (issue.code === "invalid_value" && issue.message.startsWith("Invalid option")) {
    const allowed = issue.values.map((v) => `'${String(v)}'`).join(", ");
    const likely = typeof got.value === "string" ? closest(got.value, issue.values.map(String)) : undefined;
    const shown = got.found ? `, got ${JSON.stringify(got.value)}` : "";
    return `${field} must be one of ${allowed}${shown}${likely ? ` (did you mean '${likely}'?)` : ""}`;
  }
  return `${field} is invalid: ${issue.message}`;
}

/** The value at a zod path, `found` when every step above it was an object or a list. */
function valueAt(value: unknown, path: readonly PropertyKey[]): { found: boolean; value?: unknown } {
  let current = value;
  for (const step of path) {
    if (typeof current !== "object" || current === null) return { found: false };
    current = (current as Record<PropertyKey, unknown>)[step];
  }
  return { found: true, value: current };
}

/**
 * A union failure says only "Invalid input"; the branch issue that got furthest into the value
 * (the longest path) is the one that explains what is wrong.
 */
function mostSpecific(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | undefined;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      if (!best || inner.path.length > best.path.length) best = inner;
    }
  }
  // No branch got into the value: a fixed set of values, where one was expected, says the most.
  if (!best || best.path.length === 0) {
    const oneOf = issue.errors.flat().find((inner) => inner.code === "invalid_value");
    return oneOf ? ({ ...oneOf, path: [...issue.path, ...oneOf.path] } as z.core.$ZodIssue) : issue;
  }
  return mostSpecific({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

/**
 * Reads the body as JSON whatever its Content-Type (the platform is as lenient); empty means {}.
 * Nesting and strings are held to what both storage backends can keep (domain/limits.ts).
 */
export async function readJson(c: Context, options: { limits: boolean } = { limits: true }): Promise<unknown> {
  const parsed = bodyParsedByUserApp(c);
  if (parsed)
    return parsed.catch((err: unknown) => {
      throw new GantryError("malformed", `The request body is not valid JSON: ${(err as Error).message}`);
    });
  const text = await readBodyText(c);
  if (text.trim() === "") return undefined;
  if (options.limits && jsonTextTooDeep(text)) throw invalid(`The request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and lists`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GantryError("malformed", `The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (options.limits) checkStorableJson(value, "body");
  return value;
}

/**
 * Parses as the official server does, whose zod objects strip keys they do not know: a newer SDK's
 * new fields must not break an older server. `onIgnored` hears the keys dropped; a known field of
 * the wrong type is still refused.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query", onIgnored?: (ignored: string[]) => void): z.output<S> {
  const parsed = parseIgnoringUnknownKeys(schema, value);
  if (!parsed.success) throw new GantryError("invalid", describeZodError(parsed.error, where, value));
  if (parsed.ignored.length > 0) onIgnored?.(parsed.ignored);
  return parsed.data;
}

/** The same failure in the list form (`{"detail": [{loc, msg, type}]}`) the control-plane API answers with. */
export function parseAsList<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query"): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationFailure(parsed.error.issues.map((issue) => listIssue(mostSpecific(issue), where)));
  return parsed.data;
}

function listIssue(issue: z.core.$ZodIssue, where: "body" | "query"): ValidationIssue {
  const loc = [where, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))];
  if (issue.code === "invalid_type" && issue.message.includes("received undefined")) return { loc, msg: "Field required", type: "missing" };
  if (issue.code === "unrecognized_keys") return { loc, msg: `Unknown field(s) ${issue.keys.map((k) => `'${k}'`).join(", ")}`, type: "extra_forbidden" };
  return { loc, msg: issue.message, type: issue.code };
}

/** Path parameters decode from percent-escapes; ones no storage can hold are refused before any lookup. */
export function checkPathParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    const problem = unstorableText(value);
    if (problem) throw invalid(`Path parameter '${name}' ${problem}`);
  }
}

export function uuidParam(c: Context, name: string): string {
  const value = c.req.param(name);
  if (value === undefined || !isUuid(value)) {
    throw new GantryError("invalid", `Path parameter '${name}' must be a UUID, got '${value ?? ""}'`);
  }
  return value.toLowerCase();
}

/**
 * Query parameters as zod-ready values. Both SDKs' encodings of lists are accepted: repeated keys
 * (Python), a JSON array string (JS), and comma-separated values. An empty value is no value: the
 * Python SDK (httpx) sends a parameter it has no value for as `key=` (join_stream's
 * `stream_mode=`), where the JS SDK leaves the key out.
 */
export function queryObject(c: Context, listKeys: readonly string[], options: { limits: boolean } = { limits: true }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const all = c.req.queries();
  for (const [key, values] of Object.entries(all)) {
    for (const text of options.limits ? [key, ...values] : []) {
      const problem = unstorableText(text);
      if (problem) throw invalid(`Query parameter '${key}' ${problem}`);
    }
    if (listKeys.includes(key)) {
      const list = values.flatMap(splitList);
      if (list.length > 0) out[key] = list;
    } else {
      const value = values[values.length - 1];
      if (value !== undefined && value !== "") out[key] = value;
    }
  }
  return out;
}

function splitList(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // Not JSON after all: fall through to the comma form.
    }
  }
  return trimmed === "" ? [] : trimmed.split(",").map((s) => s.trim());
}

/** A query boolean as the SDKs send it: true/false/1/0, any case. */
export const queryBool = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0"], { error: "must be true, false, 1 or 0" }))
  .transform((s) => s === "true" || s === "1");
