// Turning what comes over the wire into typed values: JSON bodies and query strings through zod,
// path ids as UUIDs. Every failure is a GantryError whose message names the field and the problem.
import type { Context } from "hono";
import { z } from "zod";
import { GantryError, ValidationFailure, type ValidationIssue } from "../errors.js";
import { isUuid } from "../ids.js";
import { readBodyText } from "./node-request.js";

/** One sentence from a zod failure: where, then what. */
export function describeZodError(error: z.ZodError, where: "body" | "query"): string {
  const issue = mostSpecific(error.issues[0]!);
  if (issue.code === "unrecognized_keys") {
    const prefix = issue.path.length ? `'${formatPath(issue.path)}' in the ${where}` : `the ${where}`;
    return `Unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")} in ${prefix}`;
  }
  const field = issue.path.length ? `Field '${formatPath(issue.path)}'` : where === "body" ? "The request body" : "The query";
  return `${field} is invalid: ${issue.message}`;
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
  if (!best || best.path.length === 0) return issue;
  return mostSpecific({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

function formatPath(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

/** Reads the body as JSON whatever its Content-Type (the platform is as lenient); empty means {}. */
export async function readJson(c: Context): Promise<unknown> {
  const text = await readBodyText(c);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new GantryError("malformed", `The request body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Parses as the official server does, whose zod objects strip keys they do not know: a newer SDK's
 * new fields must not break an older server. The schemas here are strict so that those keys can be
 * named (`ignored`, e.g. `raise_error` or `checkpoint.extra`) before they are dropped; a known
 * field of the wrong type is still refused.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "body" | "query",
  onIgnored?: (ignored: string[]) => void,
): z.output<S> {
  const ignored: string[] = [];
  let parsed = schema.safeParse(value);
  // Each pass drops what the last failure named; a union or a refinement can name more once the
  // first keys are gone, so a few passes may be needed.
  for (let pass = 0; !parsed.success && pass < MAX_STRIP_PASSES; pass++) {
    const unknown = unknownKeys(parsed.error.issues);
    const stripped = unknown && withoutKeys(value, unknown);
    if (!unknown || stripped === undefined) break;
    value = stripped;
    ignored.push(...unknown.map(({ path, key }) => formatPath([...path, key])));
    parsed = schema.safeParse(value);
  }
  if (!parsed.success) throw new GantryError("invalid", describeZodError(withoutUnknownKeyIssues(parsed.error), where));
  if (ignored.length > 0) onIgnored?.(ignored);
  return parsed.data;
}

const MAX_STRIP_PASSES = 16;

interface UnknownKey {
  path: PropertyKey[];
  key: string;
}

/**
 * The keys to drop when every issue is an unknown key, undefined when some issue is a real one. Of
 * a union's branches the first that failed on unknown keys alone is the one taken.
 */
function unknownKeys(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): UnknownKey[] | undefined {
  const out: UnknownKey[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      out.push(...issue.keys.map((key) => ({ path, key })));
      continue;
    }
    if (issue.code !== "invalid_union") return undefined;
    const branch = issue.errors.map((branchIssues) => unknownKeys(branchIssues, path)).find((keys) => keys !== undefined);
    if (!branch) return undefined;
    out.push(...branch);
  }
  return out;
}

/** A copy of the value without the keys; undefined when one of them is not where zod saw it. */
function withoutKeys(value: unknown, keys: UnknownKey[]): unknown {
  const copy = structuredClone(value);
  for (const { path, key } of keys) {
    let at: unknown = copy;
    for (const step of path) at = isRecord(at) ? at[step as string] : undefined;
    if (!isRecord(at) || !Object.hasOwn(at, key)) return undefined;
    delete at[key];
  }
  return copy;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Unknown keys are never the reason given for a refusal: the known field that is wrong is. */
function withoutUnknownKeyIssues(error: z.ZodError): z.ZodError {
  const real = (issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] =>
    issues
      .filter((issue) => issue.code !== "unrecognized_keys")
      .map((issue) => (issue.code === "invalid_union" ? ({ ...issue, errors: issue.errors.map(real) } as z.core.$ZodIssue) : issue));
  const issues = real(error.issues);
  return issues.length > 0 ? new z.ZodError(issues) : error;
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
export function queryObject(c: Context, listKeys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const all = c.req.queries();
  for (const [key, values] of Object.entries(all)) {
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
