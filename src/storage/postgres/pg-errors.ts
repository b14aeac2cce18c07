// Driver errors that mean something to a caller become GantryError kinds here, so pg's SQLSTATE
// codes never leave storage/: bad input, and the database being away (an outage, which the HTTP
// layer answers with 503 and the loops wait out). Anything not listed is a bug and passes through.
import { GantryError } from "../../errors.js";

const UNIQUE_VIOLATION = "23505";
/** jsonb refuses the escape \u0000, which JSON.stringify writes for a NUL character. */
const UNTRANSLATABLE_CHARACTER = "22P05";
/** TEXT refuses a raw NUL character. */
const CHARACTER_NOT_IN_REPERTOIRE = "22021";
const LOCK_NOT_AVAILABLE = "55P03";

/** Server-side refusals of a connection that a retry can get past: shutdown, startup, connection limit. */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** Socket errors from Node when the server is down or out of reach. */
const UNREACHABLE_SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);
// pg reports a connection that ended under it, and a connect that timed out, with messages only.
const UNREACHABLE_MESSAGES = [/^Connection terminated/, /connection error and is not queryable/, /^timeout expired$/];

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === UNIQUE_VIOLATION;

export const isLockTimeout = (err: unknown): boolean => sqlState(err) === LOCK_NOT_AVAILABLE;

/** True when the error says the database cannot be reached right now, not that the statement is wrong. */
export function isUnreachable(err: unknown): boolean {
  const code = sqlState(err);
  if (code !== undefined && (code.startsWith("08") || UNAVAILABLE_STATES.has(code) || UNREACHABLE_SOCKET_CODES.has(code))) return true;
  if (Array.isArray((err as { errors?: unknown } | null)?.errors)) return (err as AggregateError).errors.some(isUnreachable);
  const message = err instanceof Error ? err.message : "";
  return UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message));
}

export function translatePgError(err: unknown): unknown {
  if (err instanceof GantryError) return err;
  if (isUnreachable(err)) {
    const reason = err instanceof Error && err.message ? err.message : String(err);
    return new GantryError("unavailable", `PostgreSQL cannot be reached (${reason}); try again once it is back`, { cause: err });
  }
  const code = sqlState(err);
  if (code === UNTRANSLATABLE_CHARACTER || code === CHARACTER_NOT_IN_REPERTOIRE) {
    return new GantryError("invalid", "Strings cannot contain the NUL character (\\u0000) when stored in PostgreSQL; remove it and try again");
  }
  return err;
}
