// The storage a Gantry under test runs on: a data dir for the embedded SQLite file, or a fresh
// PostgreSQL schema. A store outlives the processes started on it, so a test can stop a server and
// start another on the same data; dispose() removes the data.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "../../src/storage/ports.js";
import { openPostgresStorage } from "../../src/storage/postgres/open-postgres.js";
import { openSqliteStorage } from "../../src/storage/sqlite/open-sqlite.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";

export type Backend = "sqlite" | "postgres";

export interface GantryStore {
  backend: Backend;
  start(config: string, env?: Record<string, string>): Promise<RunningGantry>;
  /** Opens the storage the servers use, as another process would, to check what they wrote. */
  openStorage(): Promise<Storage>;
  /** Where the rows are, for a test that reads them directly: the SQLite file, or the schema. */
  sqliteFile?: string;
  schema?: string;
  dispose(): Promise<void>;
}

export type OpenStore = () => Promise<GantryStore>;

export const openSqliteStore: OpenStore = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "gantry-e2e-"));
  return {
    backend: "sqlite",
    sqliteFile: join(dataDir, "gantry.sqlite"),
    start: (config, env) => startGantry({ config, dataDir, ...(env ? { env } : {}) }),
    openStorage: async () => openSqliteStorage(join(dataDir, "gantry.sqlite")),
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
};

/**
 * The server is pointed at its schema the way a user would do it, through DATABASE_URL alone:
 * libpq's `options` parameter sets search_path on every connection. The schema is created first
 * because Gantry creates tables, not the schema a URL names.
 */
export const openPostgresStore: OpenStore = async () => {
  const schema = freshSchemaName();
  await onTestDatabase(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    backend: "postgres",
    schema,
    start: (config, env) => startGantry({ config, env: { ...env, DATABASE_URL: url.toString() } }),
    openStorage: () => openPostgresStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 }),
    dispose: () => onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
};
