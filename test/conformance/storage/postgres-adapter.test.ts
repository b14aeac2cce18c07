// What only the PostgreSQL adapter does, beside the shared suite: its boot failures, the migration
// lock's bounded wait, schema handling, the one input jsonb cannot hold, and a grouped statement's
// failure staying with the finish or enqueue that caused it.
import { createServer } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GantryError, StartupError } from "../../../src/errors.js";
import { MIGRATION_LOCK_CLASS, migratePostgres } from "../../../src/storage/postgres/migrate.js";
import { openPostgresStorage, type PostgresStorage } from "../../../src/storage/postgres/open-postgres.js";
import { describeWithPostgres, freshSchemaName, TEST_DATABASE_URL } from "../../support/postgres.js";
import { newId, newRun, newThread } from "./builders.js";

await describeWithPostgres("postgres adapter", () => {
  let storage: PostgresStorage | undefined;
  beforeAll(async () => {
    storage = await openPostgresStorage({ url: TEST_DATABASE_URL, schema: freshSchemaName(), poolMax: 2 });
  });
  afterAll(async () => {
    await storage?.dropSchemaAndClose();
  });

  it("refuses strings containing the NUL character with an invalid error", async () => {
    const creating = storage!.threads.create(newThread({ metadata: { note: "a\u0000b" } }));
    await expect(creating).rejects.toBeInstanceOf(GantryError);
    await expect(creating).rejects.toMatchObject({ kind: "invalid" });
    const naming = storage!.assistants.create({
      assistant_id: "a",
      graph_id: "g",
      config: {},
      context: {},
      metadata: {},
      name: "a\u0000b",
      description: null,
    });
    await expect(naming).rejects.toMatchObject({ kind: "invalid" });
  });

  it("fails only the stateless finish PostgreSQL refuses, and lands the finishes grouped with it", async () => {
    const runs = Array.from({ length: 6 }, () => newRun(newId()));
    for (const run of runs) await storage!.runs.enqueue(run, { threadMetadata: {}, multitask: "enqueue", createThread: { metadata: {}, temporary: true } });
    expect(await storage!.runs.claim("worker-1", 30_000, new Date(), runs.length)).toHaveLength(runs.length);
    const stateless = { status: "success", thread_status: "idle", delete_thread: true } as const;

    // The first two go at once; the rest, the refused one last, leave together in one statement.
    const finishing = runs.map((run) => storage!.runs.finish(run.run_id, "worker-1", stateless));
    const refused = storage!.runs.finish("a\u0000b", "worker-1", stateless);
    await expect(refused).rejects.toMatchObject({ kind: "invalid" });
    expect(await Promise.all(finishing)).toEqual(runs.map(() => true));
    for (const run of runs) expect(await storage!.threads.get(run.thread_id)).toBeNull();
  });

  it("fails only the unclaimed enqueue PostgreSQL refuses, and creates the runs grouped with it", async () => {
    const runs = Array.from({ length: 6 }, () => newRun(newId()));
    const options = { threadMetadata: {}, multitask: "enqueue", createThread: { metadata: {}, temporary: true } } as const;

    // The first two go at once; the rest, the refused one last, leave together in one statement.
    const enqueueing = runs.map((run) => storage!.runs.enqueue(run, options));
    const refusedThread = newId();
    const refused = storage!.runs.enqueue({ ...runs[0]!, run_id: "a\u0000b", thread_id: refusedThread }, options);
    await expect(refused).rejects.toMatchObject({ kind: "invalid" });
    expect(await storage!.threads.get(refusedThread)).toBeNull();
    expect((await Promise.all(enqueueing)).map((r) => r.kind)).toEqual(runs.map(() => "created"));
    for (const run of runs) expect(await storage!.runs.get(run.run_id)).toMatchObject({ status: "pending", thread_id: run.thread_id });
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    const opening = openPostgresStorage({ url: TEST_DATABASE_URL, schema: "x; DROP SCHEMA public" });
    await expect(opening).rejects.toBeInstanceOf(StartupError);
    await expect(opening).rejects.toThrow(/lower-case letters, digits and underscores/);
  });

  it("names the server and the next step when PostgreSQL cannot be reached", async () => {
    const opening = openPostgresStorage({ url: "postgres://postgres:secret@127.0.0.1:1/test" });
    await expect(opening).rejects.toBeInstanceOf(StartupError);
    await expect(opening).rejects.toThrow(/127\.0\.0\.1:1\/test.*Check that it is running/);
    await expect(opening).rejects.not.toThrow(/secret/);
  });

  it("gives up connecting to a server that accepts but never answers, instead of hanging", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((listening) => silent.listen(0, "127.0.0.1", () => listening()));
    const { port } = silent.address() as { port: number };
    try {
      const opening = openPostgresStorage({ url: `postgres://postgres@127.0.0.1:${port}/test` });
      await expect(opening).rejects.toBeInstanceOf(StartupError);
      await expect(opening).rejects.toThrow(/Cannot connect to PostgreSQL.*timeout expired/);
    } finally {
      silent.close();
    }
  }, 20_000);

  it("gives up waiting for a migration lock held elsewhere, saying how to find the holder", async () => {
    const schema = freshSchemaName();
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}`, max: 1 });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]);
      const migrating = migratePostgres(pool, { schema, lockWaitMs: 200 });
      await expect(migrating).rejects.toBeInstanceOf(StartupError);
      await expect(migrating).rejects.toThrow(/SELECT \* FROM pg_locks WHERE locktype = 'advisory'/);
    } finally {
      await holder.end();
      await pool.end();
    }
  });

  it("drops its schema with everything in it", async () => {
    const schema = freshSchemaName();
    const dropped = await openPostgresStorage({ url: TEST_DATABASE_URL, schema });
    await dropped.threads.create(newThread());
    await dropped.dropSchemaAndClose();

    const observer = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await observer.connect();
    try {
      const { rows } = await observer.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [schema]);
      expect(rows).toEqual([]);
    } finally {
      await observer.end();
    }
  });
});
