// The bounds the Agent Server holds every request to, stated once (README "Limits" lists them).
// Each exists because something past it fails inside a dependency rather than as a clear refusal:
// a stack overflow in JSON.stringify, SQLite's JSON and expression-depth limits, PostgreSQL's jsonb
// (no U+0000, no unpaired surrogates), its integer columns and btree entry size, Date's range.
import { invalid } from "../errors.js";

/**
 * Nesting of any JSON body. Real graph state (LangChain messages with tool calls inside a state
 * inside a run's kwargs) stays under 20; SQLite's JSON functions stop at 1,000.
 */
export const MAX_JSON_DEPTH = 100;

/** Keys and array elements, counted at every level, in one metadata, values or store filter. */
export const MAX_FILTER_ENTRIES = 100;

/** Minutes of a thread or store item ttl: ten years. */
export const MAX_TTL_MINUTES = 5_256_000;

/** Seconds a run may be delayed (`after_seconds`): one year. */
export const MAX_AFTER_SECONDS = 31_536_000;

/** Paging: `limit` is 1 to MAX_LIMIT, `offset` 0 to MAX_OFFSET. */
export const MAX_LIMIT = 1000;
export const MAX_OFFSET = 1_000_000_000;

/** Counters stored in PostgreSQL INTEGER columns (assistant versions, recursion limits). */
export const MAX_INT32 = 2_147_483_647;

/** Labels in a store namespace, prefix or suffix (each label is one SQL condition in a search). */
export const MAX_NAMESPACE_LABELS = 32;

/** A store item's namespace (labels joined by ".") and key together, in UTF-8: PostgreSQL indexes them as one btree entry. */
export const MAX_STORE_PATH_BYTES = 1024;

/** Time for a client to send a request's headers (longer than the 65 s keep-alive of listen-http.ts), and its whole request. */
export const HEADERS_TIMEOUT_MS = 66_000;
export const REQUEST_TIMEOUT_MS = 120_000;

/** Time a request body may go without a byte arriving before the request is answered 408. */
export const BODY_IDLE_TIMEOUT_MS = 10_000;

/**
 * True when the JSON text nests deeper than `max`, found by counting brackets outside strings, so
 * neither this check nor the parser that follows it meets a deep document.
 */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored, or undefined: PostgreSQL's jsonb and text hold neither U+0000 nor
 * half of a surrogate pair, and SQLite's JSON paths cannot name a key with U+0000.
 */
export function unstorableText(text: string): string | undefined {
  if (text.includes("\u0000")) return "contains U+0000 (\\u0000), which cannot be stored";
  if (UNPAIRED_SURROGATE.test(text)) return "contains an unpaired UTF-16 surrogate, which is not valid Unicode";
  return undefined;
}

/**
 * Checks every key and string of a parsed JSON value (depth-first with an explicit stack: the value
 * may be as deep as MAX_JSON_DEPTH) and refuses the first unstorable one, naming where it is.
 */
export function checkStorableJson(value: unknown, where: string): void {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: "" }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === "string") {
      const problem = unstorableText(current);
      if (problem) throw invalid(`${describe(path, where)} ${problem}`);
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (typeof current === "object" && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const problem = unstorableText(key);
        if (problem) throw invalid(`${describe(path, where)} has a key ${JSON.stringify(key)} that ${problem}`);
        stack.push({ value: item, path: path === "" ? key : `${path}.${key}` });
      }
    }
  }
}

function describe(path: string, where: string): string {
  if (path === "") return where === "body" ? "The request body" : `The ${where}`;
  return `Field '${path}'`;
}

/** True when a filter holds more than MAX_FILTER_ENTRIES keys and list elements, counted at every level. */
export function filterTooLarge(filter: unknown): boolean {
  let entries = 0;
  const stack: unknown[] = [filter];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== "object" || current === null) continue;
    const children = Array.isArray(current) ? current : Object.values(current);
    entries += children.length;
    if (entries > MAX_FILTER_ENTRIES) return true;
    stack.push(...children);
  }
  return false;
}
