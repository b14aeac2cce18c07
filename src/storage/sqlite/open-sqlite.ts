// The embedded default: one SQLite file in WAL mode, migrated on open, checkpointed by a thread of
// its own (wal-checkpointer.ts). One process owns it.
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import Database from "better-sqlite3";
import { load as loadSqliteVec } from "sqlite-vec";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../../logging.js";
import type { Storage } from "../ports.js";
import { sqliteAssistants } from "./assistants.js";
import { sqliteCheckpoints } from "./checkpoints.js";
import { sqliteCrons } from "./crons.js";
import { migrateSqlite } from "./migrate.js";
import { sqliteRuns } from "./runs.js";
import { sqliteStore } from "./store.js";
import { sqliteThreads } from "./threads.js";
import { startWalCheckpointer } from "./wal-checkpointer.js";
import { sqliteWebhooks } from "./webhooks.js";

const CHECKPOINT_INTERVAL_MS = 500;
/** A WAL that grew during a burst is cut back to this size once it is checkpointed. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export interface SqliteStorage extends Storage {
  readonly file: string;
  /** Names of the migrations applied when this storage was opened. */
  readonly migrated: string[];
}

/** `serde`: how checkpoints are serialised (an encrypting one when a key is configured). */
export function openSqliteStorage(file: string, options: { log?: Logger; serde?: SerializerProtocol } = {}): SqliteStorage {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  // Store vectors are scored by sqlite-vec's functions, and migration 0006 converts vectors with them.
  loadSqliteVec(db);
  db.function("casefold", { deterministic: true }, (text: unknown) => (typeof text === "string" ? text.toLowerCase() : text));
  const migrated = migrateSqlite(db);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  const checkpointer =
    file === ":memory:"
      ? undefined
      : startWalCheckpointer(db, file, {
          intervalMs: CHECKPOINT_INTERVAL_MS,
          restartFrames: WAL_SIZE_LIMIT_BYTES / (db.pragma("page_size", { simple: true }) as number),
          onProblem: (message) => options.log?.warn(message, { file }),
        });
  return {
    backend: "sqlite",
    file,
    migrated,
    assistants: sqliteAssistants(db),
    threads: sqliteThreads(db),
    runs: sqliteRuns(db),
    checkpoints: sqliteCheckpoints(db, options.serde),
    store: sqliteStore(db, { onProblem: (err) => options.log?.warn("store vector index build failed", { file, err }) }),
    crons: sqliteCrons(db),
    webhooks: sqliteWebhooks(db),
    async ping() {
      return db.prepare("SELECT 1 AS ok").get() !== undefined;
    },
    async close() {
      await checkpointer?.stop();
      db.close();
    },
  };
}
