// LANGGRAPH_AES_JSON_KEYS: the named top-level keys of a JSON object are stored sealed, each value
// on its own so the object keeps its keys (a metadata patch merges key by key in SQL). A sealed
// value is a string with a fixed prefix; a value without it was written before and reads as it is.
import type { JsonObject } from "../storage/records.js";
import type { KeyRing } from "./key-ring.js";

const PREFIX = "gantry:aes:v1:";

export interface JsonKeyCipher {
  seal(object: JsonObject): JsonObject;
  open(object: JsonObject): JsonObject;
}

export function jsonKeyCipher(ring: KeyRing, keys: readonly string[]): JsonKeyCipher {
  const named = new Set(keys);
  return {
    seal(object) {
      let out: JsonObject | undefined;
      for (const key of Object.keys(object)) {
        if (!named.has(key) || object[key] === undefined) continue;
        out ??= { ...object };
        out[key] = PREFIX + ring.seal(Buffer.from(JSON.stringify(object[key]), "utf8")).toString("base64");
      }
      return out ?? object;
    },
    open(object) {
      let out: JsonObject | undefined;
      for (const key of Object.keys(object)) {
        const value = object[key];
        if (typeof value !== "string" || !value.startsWith(PREFIX)) continue;
        out ??= { ...object };
        out[key] = JSON.parse(ring.open(Buffer.from(value.slice(PREFIX.length), "base64")).toString("utf8"));
      }
      return out ?? object;
    },
  };
}
