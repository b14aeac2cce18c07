// The bounds every /v2 value is held to before it reaches storage or git: string lengths, the
// characters a field may hold, JSON nesting, list sizes. They are the same whichever store is used:
// PostgreSQL refuses NUL and lone surrogates (in TEXT and JSONB) where SQLite would keep them, so both
// are refused here, and a value SQLite accepts is never one PostgreSQL would fail on.
import { z } from "zod";
import { gitProtocolOf } from "../git-url.js";

export const LIMITS = {
  /**
   * Nesting of the values typed as free JSON (resource_spec, secret_references). Elsewhere a body
   * is as deep as its schema: anything deeper is a type error, or an unknown field dropped unread.
   */
  jsonDepth: 8,
  repoUrl: 2048,
  /** git's own refname limit is the file system's: 255 bytes per component keeps every one valid. */
  repoRef: 255,
  path: 1024,
  command: 8192,
  secretName: 256,
  secretValue: 65_536,
  secrets: 200,
  url: 2048,
  /** Query filters and other short strings. */
  short: 1024,
  list: 100,
  resourceSpecBytes: 16_384,
} as const;

/** A lone UTF-16 surrogate: JSON allows one as `\ud800`, PostgreSQL refuses it, git and shells mangle it. */
const LONE_SURROGATE = /\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** One line of text: no control characters (NUL, newlines, escapes) and no lone surrogates. */
export function line(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !CONTROL.test(s), "must not hold control characters (NUL, newlines, escapes)")
    .refine((s) => !LONE_SURROGATE.test(s), "must be valid Unicode (no lone surrogates)");
}

/** Text that may span lines (commands, secret values): no NUL, which no process argument or environment can carry. */
export function text(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !s.includes("\u0000"), "must not hold NUL characters")
    .refine((s) => !LONE_SURROGATE.test(s), "must be valid Unicode (no lone surrogates)");
}

/**
 * Any JSON value nested at most `max` deep whose every string (keys too) is storable; the walk
 * stops at the first level past the limit, so a megabyte of `[[[[` costs nothing.
 */
export function jsonProblem(value: unknown, max: number): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\u0000") || LONE_SURROGATE.test(v)) return "must not hold NUL characters or lone surrogates";
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return `must not be nested more than ${max} levels deep`;
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
    } else {
      for (const [key, item] of Object.entries(v)) {
        stack.push({ value: key, depth: depth + 1 });
        stack.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

export const repoUrl = line(LIMITS.repoUrl)
  .min(1, "must not be empty")
  .refine((s) => !s.startsWith("-"), "must not start with '-' (git would read it as an option)")
  .refine((s) => !/\s/.test(s), "must not hold spaces")
  .refine((s) => !/(:\/\/|@)-/.test(s), "must not name a host starting with '-'")
  .refine(
    (s) => gitProtocolOf(s) !== undefined,
    "must be a git URL over https, http, ssh, git or file (https://host/owner/repo.git, git@host:owner/repo.git, file:///path or /path)",
  );

/** git check-ref-format's rules, plus no leading '-'; a full commit sha passes too. */
export const repoRef = line(LIMITS.repoRef)
  .min(1, "must not be empty")
  .refine(
    (s) =>
      !s.startsWith("-") &&
      !s.startsWith("/") &&
      !s.endsWith("/") &&
      !s.endsWith(".") &&
      !s.endsWith(".lock") &&
      !s.includes("..") &&
      !s.includes("//") &&
      !s.includes("@{") &&
      s !== "@" &&
      !/[\s~^:?*[\\]/.test(s),
    "must be a branch, tag, refs/... name or commit sha (git check-ref-format rules; no leading '-')",
  );

export const secretName = line(LIMITS.secretName).regex(
  /^[A-Za-z_][A-Za-z0-9_]*$/,
  "must be a valid environment variable name (letters, digits, '_', not starting with a digit)",
);
