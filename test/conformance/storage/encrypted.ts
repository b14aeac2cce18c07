// A storage seen through encryption at rest (a key ring, a JSON key, one clear store key), for the
// conformance runners that hold the decorator to the bare adapters' behaviour, and the cases it
// takes away by the platform's rule ("encrypted fields cannot be searched").
import { withEncryptedStorage } from "../../../src/encryption/encrypted-storage.js";
import { keyRing } from "../../../src/encryption/key-ring.js";
import type { Storage } from "../../../src/storage/ports.js";
import type { SkippedCase } from "./harness.js";

const ring = keyRing({ key: "conformance-key-32-bytes-long!!!", name: "test" });

/** `group` stays clear: the vector ranking case filters on it, as a user's store search would. */
export const encrypted = <S extends Storage>(storage: S): S =>
  withEncryptedStorage(storage, { ring, jsonKeys: ["secret_key"], storeClearKeys: ["group"] }) as S;

export const SEALED_SEARCH_SKIPS: SkippedCase[] = [
  ...[
    "filters store items on plain values: equality by type, and arrays and objects by containment",
    "filters store items with $eq and $ne, where a missing key is not equal",
    "filters store items with $gt, $gte, $lt and $lte on numbers and on strings, by type",
    "filters store items on nested keys, with operators at any depth",
    "takes store filter keys with dots, quotes or spaces as one key",
  ].map((name) => ({ case: name, reason: "store filters on sealed value keys find nothing; only GANTRY_AES_STORE_CLEAR_KEYS stay filterable" })),
  {
    case: "an auth filter on store items hides non-matching ones from get, put, delete, search and namespace listings",
    reason: "an auth filter on a sealed store value key matches nothing; its keys must be in GANTRY_AES_STORE_CLEAR_KEYS",
  },
];
