// Applies the numbered migrations in ./migrations, each in its own transaction, recorded in
// gantry_migrations. Processes booting at once serialise on a session advisory lock keyed by the
// schema; the one that waits finds the migrations recorded and skips them. A wait that outlasts
// the bound fails with a message saying how to find the process holding the lock.
import type { Pool, PoolClient } from "pg";
import { fileURLToPath } from "node:url";
import { StartupError } from "../../errors.js";
import { readMigrations } from "../sqlite/migrate.js";
import { isLockTimeout } from "./pg-errors.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

/** First key of the two-key advisory lock ("gant" in ASCII), so other applications' locks never collide with ours. */
export const MIGRATION_LOCK_CLASS = 0x67616e74;

/** Long enough for any migration we ship to finish on a large database; short enough that a stuck holder is noticed at boot. */
const LOCK_WAIT_MS = 60_000;

/** Schema names are interpolated into SQL and the connection options, so only plain identifiers pass. */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new StartupError(`Schema name "${schema}" must be lower-case letters, digits and underscores, not starting with a digit`);
  }
  return schema;
}

export interface MigrateOptions {
  /** Created when missing; the pool's connections must already have it as their search_path. */
  schema?: string;
  lockWaitMs?: number;
  /** Folder of numbered .sql files; the Agent Server's migrations by default. */
  dir?: string;
}

/** Returns the names of the migrations this call applied. */
export async function migratePostgres(pool: Pool, options: MigrateOptions = {}): Promise<string[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const schema = options.schema ?? (await currentSchema(client));
    await lockMigrations(client, schema, options.lockWaitMs ?? LOCK_WAIT_MS);
    try {
      return await applyPending(client, options.schema, options.dir ?? MIGRATIONS_DIR);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]);
    }
  } catch (err) {
    // The session may still hold the lock or sit in a failed transaction: never pool it again.
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}

async function currentSchema(client: PoolClient): Promise<string> {
  const { rows } = await client.query<{ schema: string | null }>("SELECT current_schema() AS schema");
  const schema = rows[0]?.schema;
  if (!schema) throw new StartupError("No schema to create Gantry's tables in: the connection's search_path names no existing schema");
  return schema;
}

async function lockMigrations(client: PoolClient, schema: string, waitMs: number): Promise<void> {
  await client.query(`SET lock_timeout = ${Math.round(waitMs)}`);
  try {
    await client.query("SELECT pg_advisory_lock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]);
  } catch (err) {
    if (!isLockTimeout(err)) throw err;
    throw new StartupError(
      `Timed out after ${waitMs / 1000}s waiting for the migration lock on schema "${schema}": another process is migrating it, or is stuck. ` +
        `Find the holder with SELECT * FROM pg_locks WHERE locktype = 'advisory' AND classid = ${MIGRATION_LOCK_CLASS} ` +
        "(its pid joins pg_stat_activity), then wait for it to finish or end it with SELECT pg_terminate_backend(<pid>).",
    );
  } finally {
    await client.query("RESET lock_timeout");
  }
}

async function applyPending(client: PoolClient, createSchema: string | undefined, dir: string): Promise<string[]> {
  // Schema and bookkeeping table are created under the lock: concurrent CREATE ... IF NOT EXISTS
  // can still fail on a duplicate catalog entry.
  if (createSchema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${checkSchemaName(createSchema)}`);
  await client.query(`CREATE TABLE IF NOT EXISTS gantry_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
  )`);
  const { rows } = await client.query<{ version: number }>("SELECT version FROM gantry_migrations");
  const done = new Set(rows.map((r) => r.version));
  const applied: string[] = [];
  for (const migration of readMigrations(dir)) {
    if (done.has(migration.version)) continue;
    await client.query("BEGIN");
    try {
      await client.query(migration.sql);
      await client.query("INSERT INTO gantry_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [migration.version, migration.name, new Date()]);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK");
      throw new StartupError(`Migration ${migration.name}.sql failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    applied.push(migration.name);
  }
  return applied;
}
