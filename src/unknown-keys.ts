// Parsing that ignores the keys a strict zod schema does not know, as the official server's and
// CLI's zod objects (which strip) do, yet names them: the schemas stay strict so that zod reports
// those keys, which are then dropped and the value parsed again. A known key of the wrong type is
// still a failure, and it is the one reported.
import { z } from "zod";

export type LenientParse<T> = { success: true; data: T; ignored: string[] } | { success: false; error: z.ZodError };

/** `ignored` holds the dropped keys as paths (`raise_error`, `checkpoint.extra`, `[0].colour`). */
export function parseIgnoringUnknownKeys<S extends z.ZodType>(schema: S, value: unknown): LenientParse<z.output<S>> {
  const ignored: string[] = [];
  let parsed = schema.safeParse(value);
  // Each pass drops what the last failure named; a union or a refinement can name more once the
  // first keys are gone, so a few passes may be needed.
  for (let pass = 0; !parsed.success && pass < MAX_PASSES; pass++) {
    const unknown = unknownKeys(parsed.error.issues);
    const stripped = unknown && withoutKeys(value, unknown);
    if (!unknown || stripped === undefined) break;
    value = stripped;
    ignored.push(...unknown.map(({ path, key }) => formatPath([...path, key])));
    parsed = schema.safeParse(value);
  }
  if (!parsed.success) return { success: false, error: withoutUnknownKeyIssues(parsed.error) };
  return { success: true, data: parsed.data, ignored };
}

/** `a.b[0].c`, the way error messages name a field. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

const MAX_PASSES = 16;

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

/** Unknown keys are never the reason given for a failure: the known field that is wrong is. */
function withoutUnknownKeyIssues(error: z.ZodError): z.ZodError {
  const real = (issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] =>
    issues
      .filter((issue) => issue.code !== "unrecognized_keys")
      .map((issue) => (issue.code === "invalid_union" ? ({ ...issue, errors: issue.errors.map(real) } as z.core.$ZodIssue) : issue));
  const issues = real(error.issues);
  return issues.length > 0 ? new z.ZodError(issues) : error;
}
