// The storage conformance suite on SQLite seen through encryption at rest: the decorator that seals
// JSON fields on the way in and opens them on the way out answers every case as the bare adapter
// does, except the searches on what it seals (encrypted.ts), skipped by name.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/sqlite/open-sqlite.js";
import { encrypted, SEALED_SEARCH_SKIPS } from "./encrypted.js";
import { describeStorageConformance, openBoth } from "./harness.js";

async function newFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "gantry-conformance-")), "gantry.sqlite");
}

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
  skip: SEALED_SEARCH_SKIPS,
});
