// Picks the backend: PostgreSQL when a database URL is configured, the embedded SQLite file otherwise.
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { StartupError } from "../errors.js";
import type { Logger } from "../logging.js";
import type { Storage } from "./ports.js";
import { openSqliteStorage } from "./sqlite/open-sqlite.js";

export interface OpenedStorage {
  storage: Storage;
  migrated: string[];
  /** Where the data lives, for the start-up log (never includes a password). */
  location: string;
}

export async function openStorage(
  options: {
    sqliteFile: string;
    databaseUrl?: string;
    databaseVariable?: string;
    databaseRequired?: boolean;
    postgresPoolMax: number;
    postgresPreparedStatements?: boolean;
    /** How checkpoints are serialised: an encrypting serde when encryption at rest is on. */
    serde?: SerializerProtocol;
  },
  log?: Logger,
): Promise<OpenedStorage> {
  if (options.databaseUrl) {
    const location = redactUrl(options.databaseUrl);
    const variable = options.databaseVariable ?? "DATABASE_URL";
    // `gantry serve` has no embedded file to fall back on: the advice is to fix the database.
    const otherwise = options.databaseRequired ? "" : `, or unset ${variable} to use the embedded SQLite file`;
    try {
      // Loaded on demand so the embedded default never loads the PostgreSQL driver.
      const { openPostgresStorage } = await import("./postgres/open-postgres.js");
      const storage = await openPostgresStorage({
        url: options.databaseUrl,
        poolMax: options.postgresPoolMax,
        preparedStatements: options.postgresPreparedStatements,
        log,
        ...(options.serde ? { serde: options.serde } : {}),
      });
      return { storage, migrated: storage.migrated, location };
    } catch (err) {
      if (err instanceof StartupError) throw new StartupError(`${err.message} (the database comes from ${variable}${otherwise})`);
      throw new StartupError(
        `Cannot open PostgreSQL at ${location} (from ${variable}): ${(err as Error).message}. Check that the server is running and the URL is right${otherwise}.`,
      );
    }
  }
  try {
    const storage = openSqliteStorage(options.sqliteFile, { ...(log ? { log } : {}), ...(options.serde ? { serde: options.serde } : {}) });
    return { storage, migrated: storage.migrated, location: options.sqliteFile };
  } catch (err) {
    throw new StartupError(
      `Cannot open the SQLite file ${options.sqliteFile}: ${(err as Error).message}. Check that the directory is writable, or choose another with --data-dir.`,
    );
  }
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
