// Driver errors that mean something to a caller become GantryError kinds here, so pg's SQLSTATE
// codes never leave storage/. Anything not listed is a bug or an outage and passes through as is.
import { GantryError } from "../../errors.js";

const UNIQUE_VIOLATION = "23505";
/** jsonb refuses the escape \u0000, which JSON.stringify writes for a NUL character. */
const UNTRANSLATABLE_CHARACTER = "22P05";
/** TEXT refuses a raw NUL character. */
const CHARACTER_NOT_IN_REPERTOIRE = "22021";
const LOCK_NOT_AVAILABLE = "55P03";

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === UNIQUE_VIOLATION;

export const isLockTimeout = (err: unknown): boolean => sqlState(err) === LOCK_NOT_AVAILABLE;

export function translatePgError(err: unknown): unknown {
  const code = sqlState(err);
  if (code === UNTRANSLATABLE_CHARACTER || code === CHARACTER_NOT_IN_REPERTOIRE) {
    return new GantryError("invalid", "Strings cannot contain the NUL character (\\u0000) when stored in PostgreSQL; remove it and try again");
  }
  return err;
}
