// Upgrading keeps the store's vectors: a database written by the schema before 0006 (vectors as
// JSON text on SQLite, float8[] on PostgreSQL) is opened by the current code, which migrates it,
// and a search still ranks the old items by their vectors.
import Database from "better-sqlite3";
import { copyFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { parseStoreFilter } from "../../../src/domain/store-filter.js";
import { migratePostgres } from "../../../src/storage/postgres/migrate.js";
import { openPostgresStorage } from "../../../src/storage/postgres/open-postgres.js";
import { migrateSqlite } from "../../../src/storage/sqlite/migrate.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/open-sqlite.js";
import type { Storage } from "../../../src/storage/ports.js";
import { describeWithPostgres, freshSchemaName, TEST_DATABASE_URL } from "../../support/postgres.js";

const NOW = new Date("2031-05-04T10:00:00.000Z");
const OLD_ITEMS = [
  { key: "east", vector: [1, 0, 0] },
  { key: "north-east", vector: [1, 1, 0] },
  { key: "north", vector: [0, 3, 0] },
];

/** A folder holding the migrations up to 0005, the schema a user upgrading from it has. */
async function migrationsBefore0006(backend: "sqlite" | "postgres"): Promise<string> {
  const source = fileURLToPath(new URL(`../../../src/storage/${backend}/migrations/`, import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), "gantry-old-migrations-"));
  for (const name of await readdir(source)) if (Number(name.slice(0, 4)) <= 5) await copyFile(join(source, name), join(dir, name));
  return `${dir}/`;
}

async function expectOldVectorsRanked(storage: Storage): Promise<void> {
  const found = await storage.store.search(
    { namespacePrefix: ["memories"], filter: parseStoreFilter({}), limit: 10, offset: 0, refreshTtl: false, queryVector: [0, 1, 0] },
    NOW,
  );
  expect(found.map((i) => i.key)).toEqual(["north", "north-east", "east"]);
  expect(found.map((i) => i.score)).toEqual([expect.closeTo(1, 6), expect.closeTo(Math.SQRT1_2, 6), 0]);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("store vectors after an upgrade: sqlite", () => {
  it("migrates JSON vectors to float32 blobs and ranks by them", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gantry-upgrade-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const oldMigrations = await migrationsBefore0006("sqlite");
    cleanups.push(() => rm(oldMigrations, { recursive: true, force: true }));
    const file = join(dir, "gantry.sqlite");
    const old = new Database(file);
    migrateSqlite(old, oldMigrations);
    for (const { key, vector } of OLD_ITEMS) {
      old
        .prepare("INSERT INTO store_items (namespace, key, labels, value, created_at, updated_at) VALUES ('memories', ?, '[\"memories\"]', '{}', ?, ?)")
        .run(key, NOW.toISOString(), NOW.toISOString());
      old
        .prepare("INSERT INTO store_vectors (namespace, key, field, vector, norm) VALUES ('memories', ?, '$', ?, ?)")
        .run(key, JSON.stringify(vector), Math.hypot(...vector));
    }
    old.close();

    const storage = openSqliteStorage(file);
    cleanups.push(() => storage.close());
    expect(storage.migrated).toEqual(expect.arrayContaining(["0006_store_vector_blobs", "0007_store_vector_index"]));
    await expectOldVectorsRanked(storage);
  });
});

await describeWithPostgres("store vectors after an upgrade: postgres", () => {
  it("migrates float8[] vectors to real[] and ranks by them", async () => {
    const schema = freshSchemaName();
    const oldMigrations = await migrationsBefore0006("postgres");
    cleanups.push(() => rm(oldMigrations, { recursive: true, force: true }));
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}`, max: 1 });
    await migratePostgres(pool, { schema, dir: oldMigrations });
    for (const { key, vector } of OLD_ITEMS) {
      await pool.query("INSERT INTO store_items (namespace, key, value, created_at, updated_at) VALUES ('memories', $1, '{}', $2, $2)", [key, NOW]);
      await pool.query("INSERT INTO store_vectors (namespace, key, field, vector, norm) VALUES ('memories', $1, '$', $2::float8[], $3)", [
        key,
        vector,
        Math.hypot(...vector),
      ]);
    }
    await pool.end();

    const storage = await openPostgresStorage({ url: TEST_DATABASE_URL, schema });
    cleanups.push(() => storage.dropSchemaAndClose());
    expect(storage.migrated).toEqual(expect.arrayContaining(["0006_store_vector_reals"]));
    await expectOldVectorsRanked(storage);
  });
});
