// Runs the storage conformance suite on SQLite: a real file in a fresh temp directory per storage.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/sqlite/open-sqlite.js";
import { describeStorageConformance, openBoth } from "./harness.js";

async function newFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "gantry-conformance-")), "gantry.sqlite");
}

describeStorageConformance<SqliteStorage>("sqlite", {
  open: async () => openSqliteStorage(await newFile()),
  reopen: async (storage) => openSqliteStorage(storage.file),
  openTwiceAtOnce: async () => {
    const file = await newFile();
    return openBoth(async () => openSqliteStorage(file));
  },
  close: async (storage) => {
    await storage.close();
    await rm(dirname(storage.file), { recursive: true, force: true });
  },
  skip: [],
});
