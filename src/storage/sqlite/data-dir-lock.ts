// One `gantry dev` per data directory. The lock is SQLite's own exclusive lock on a small file
// beside the database, held by an open write transaction for the life of the process: the
// operating system drops it when the process ends in any way (kill -9 included), so a crash never
// leaves a stale lock behind and nothing has to guess whether a recorded pid is still alive
// (docs/decisions.md).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { StartupError } from "../../errors.js";

export interface DataDirLock {
  release(): void;
}

export const LOCK_FILE = "gantry.lock";

export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  let db: Database.Database;
  try {
    mkdirSync(dataDir, { recursive: true });
    db = new Database(file, { timeout: 0 });
  } catch (err) {
    throw new StartupError(
      `Cannot create the lock file ${file}: ${(err as Error).message}. Check that the directory is writable, or choose another with --data-dir.`,
    );
  }
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code !== "SQLITE_BUSY") throw err;
    throw new StartupError(
      `The data directory ${dataDir} is in use by another running Gantry (it holds ${file}). Stop that server first, or give this one its own directory with --data-dir.`,
    );
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}
