// Applies the numbered migrations in ./migrations, each in its own IMMEDIATE transaction, recorded
// in gantry_migrations. Two processes booting at once serialise on SQLite's write lock; the loser
// finds the migration recorded and skips it.
import type Database from "better-sqlite3";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir: string): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f.replace(/\.sql$/, ""), sql: readFileSync(dir + f, "utf8") }));
}

/** Returns the names of the migrations this call applied. `dir` defaults to the Agent Server's migrations. */
export function migrateSqlite(db: Database.Database, dir: string = MIGRATIONS_DIR): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS gantry_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied: string[] = [];
  for (const migration of readMigrations(dir)) {
    const apply = db.transaction(() => {
      const done = db.prepare("SELECT 1 FROM gantry_migrations WHERE version = ?").get(migration.version);
      if (done) return false;
      db.exec(migration.sql);
      db.prepare("INSERT INTO gantry_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(migration.version, migration.name, new Date().toISOString());
      return true;
    });
    if (apply.immediate()) applied.push(migration.name);
  }
  return applied;
}
