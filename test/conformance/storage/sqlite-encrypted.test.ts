// The storage conformance suite on SQLite seen through encryption at rest (LANGGRAPH_AES_KEY, JSON
// keys, a clear store key): the decorator that seals JSON fields on the way in and opens them on the
// way out answers every case as the bare adapter does, except the searches on what it seals, which
// the platform's rule ("encrypted fields cannot be searched") takes away; those are skipped by name.
// `group` is kept clear: the vector ranking case filters on it, as a user's store search would.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { withEncryptedStorage } from "../../../src/encryption/encrypted-storage.js";
import { keyRing } from "../../../src/encryption/key-ring.js";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/sqlite/open-sqlite.js";
import { describeStorageConformance, openBoth } from "./harness.js";

const ring = keyRing({ key: "conformance-key-32-bytes-long!!!", name: "test" });

async function newFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "gantry-conformance-")), "gantry.sqlite");
}

const encrypted = (storage: SqliteStorage): SqliteStorage =>
  withEncryptedStorage(storage, { ring, jsonKeys: ["secret_key"], storeClearKeys: ["group"] }) as SqliteStorage;

describeStorageConformance<SqliteStorage>("sqlite, encrypted", {
  open: async () => encrypted(await openSqliteStorage(await newFile())),
  reopen: async (storage) => encrypted(await openSqliteStorage(storage.file)),
  openTwiceAtOnce: async () => {
    const file = await newFile();
    return openBoth(async () => encrypted(await openSqliteStorage(file)));
  },
  close: async (storage) => {
    await storage.close();
    await rm(dirname(storage.file), { recursive: true, force: true });
  },
  skip: [
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
  ],
});
