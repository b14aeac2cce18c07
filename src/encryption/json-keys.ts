// LANGGRAPH_AES_JSON_KEYS: the named top-level keys of a JSON object are stored sealed, each value
// on its own so the object keeps its keys (a metadata patch merges key by key in SQL). A sealed
// value is a string with a fixed prefix; a value without it was written before and reads as it is.
import type { Json, JsonObject } from "../storage/records.js";
import type { KeyRing } from "./key-ring.js";

const PREFIX = "gantry:aes:v1:";

/** A JSON value sealed into one JSON string, which any JSON column holds as it holds the value. */
export function sealJson(ring: KeyRing, value: Json | undefined): string {
  return PREFIX + ring.seal(Buffer.from(JSON.stringify(value ?? null), "utf8")).toString("base64");
}

export const isSealedJson = (value: unknown): value is string => typeof value === "string" && value.startsWith(PREFIX);

/** The value `sealJson` sealed, or `value` itself when it is not sealed (written before a key was set). */
export function openJson<T>(ring: KeyRing, value: T): T {
  if (!isSealedJson(value)) return value;
  return JSON.parse(ring.open(Buffer.from(value.slice(PREFIX.length), "base64")).toString("utf8")) as T;
}

export interface JsonKeyCipher {
  seal(object: JsonObject): JsonObject;
  open(object: JsonObject): JsonObject;
}

/** Seals the values of the named keys, or of every key but those named in `except`. */
export function jsonKeyCipher(ring: KeyRing, keys: readonly string[] | { except: readonly string[] }): JsonKeyCipher {
  const named = new Set("except" in keys ? keys.except : keys);
  const sealed = "except" in keys ? (key: string) => !named.has(key) : (key: string) => named.has(key);
  return {
    seal(object) {
      let out: JsonObject | undefined;
      for (const key of Object.keys(object)) {
        if (!sealed(key) || object[key] === undefined) continue;
        out ??= { ...object };
        out[key] = sealJson(ring, object[key]);
      }
      return out ?? object;
    },
    open(object) {
      let out: JsonObject | undefined;
      for (const key of Object.keys(object)) {
        if (!isSealedJson(object[key])) continue;
        out ??= { ...object };
        out[key] = openJson(ring, object[key]);
      }
      return out ?? object;
    },
  };
}
