// The embedded default: one SQLite file in WAL mode, migrated on open. One process owns it.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Storage } from "../ports.js";
import { sqliteAssistants } from "./assistants.js";
import { sqliteCheckpoints } from "./checkpoints.js";
import { sqliteCrons } from "./crons.js";
import { migrateSqlite } from "./migrate.js";
import { sqliteRuns } from "./runs.js";
import { sqliteStore } from "./store.js";
import { sqliteThreads } from "./threads.js";
import { sqliteWebhooks } from "./webhooks.js";

export interface SqliteStorage extends Storage {
  readonly file: string;
  /** Names of the migrations applied when this storage was opened. */
  readonly migrated: string[];
}

export function openSqliteStorage(file: string): SqliteStorage {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.function("casefold", { deterministic: true }, (text: unknown) => (typeof text === "string" ? text.toLowerCase() : text));
  const migrated = migrateSqlite(db);
  return {
    backend: "sqlite",
    file,
    migrated,
    assistants: sqliteAssistants(db),
    threads: sqliteThreads(db),
    runs: sqliteRuns(db),
    checkpoints: sqliteCheckpoints(db),
    store: sqliteStore(db),
    crons: sqliteCrons(db),
    webhooks: sqliteWebhooks(db),
    async ping() {
      return db.prepare("SELECT 1 AS ok").get() !== undefined;
    },
    async close() {
      db.close();
    },
  };
}
