// The one-statement saver writes exactly the rows the official PostgresSaver writes: the same
// calls go to each, on schemas of their own, and every row of the three tables is compared — blobs
// of changed and emptied channels, a second put of the same checkpoint, writes to ordinary
// channels (kept first) and to the special ones (replaced, repeats within one call included).
// A held run's writes (a stateless run's) reach the database only when their time is up, their
// thread is read, or the hold ends keeping them, and then as the same rows.
import { emptyCheckpoint, type Checkpoint, type PendingWrite } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { HOLD_MS } from "../../../src/storage/postgres/held-checkpoint-writes.js";
import { OneStatementPostgresSaver } from "../../../src/storage/postgres/one-statement-saver.js";
import { describeWithPostgres, freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../../support/postgres.js";

const THREAD = "thread-1";

function checkpoint(id: string, values: Record<string, unknown>, versions: Record<string, number>): Checkpoint {
  return { ...emptyCheckpoint(), id, ts: "2030-01-01T00:00:00.000Z", channel_values: values, channel_versions: versions };
}

/** The calls under test, made in the same order on one saver; as LangGraph does, every config names the run, if any. */
async function writeEverything(saver: PostgresSaver, thread = THREAD, runId?: string): Promise<void> {
  const ofRun = <C extends { configurable?: Record<string, unknown> }>(c: C): C => (runId ? { ...c, configurable: { ...c.configurable, run_id: runId } } : c);
  const config = ofRun({ configurable: { thread_id: thread, checkpoint_ns: "" } });
  const first = checkpoint("1ef00000-0000-6000-8000-000000000001", { messages: ["hi"], count: 1 }, { messages: 1, count: 1 });
  const firstConfig = ofRun(await saver.put(config, first, { source: "input", step: -1, parents: {} }, { messages: 1, count: 1 }));
  // "gone" has a new version but no value: the saver stores it as an empty blob.
  const second = checkpoint("1ef00000-0000-6000-8000-000000000002", { messages: ["hi", "ho"] }, { messages: 2, count: 1, gone: 2 });
  const secondConfig = ofRun(await saver.put(firstConfig, second, { source: "loop", step: 0, parents: {} }, { messages: 2, gone: 2 }));
  // The same checkpoint again with other metadata: the row is updated, the blobs kept.
  await saver.put(firstConfig, second, { source: "loop", step: 0, parents: {}, again: true } as never, { messages: 2 });
  const ordinary: PendingWrite[] = [
    ["messages", "first"],
    ["count", 2],
  ];
  await saver.putWrites(secondConfig, ordinary, "task-a");
  // Written again under the same task: ordinary writes never replace the first ones.
  await saver.putWrites(secondConfig, [["messages", "second"]], "task-a");
  // Special channels replace, and of two in one call the last one stays.
  await saver.putWrites(secondConfig, [["__interrupt__", "q1"]], "task-b");
  await saver.putWrites(
    secondConfig,
    [
      ["__interrupt__", "q2"],
      ["__interrupt__", "q3"],
    ],
    "task-b",
  );
  await saver.putWrites(secondConfig, [], "task-c");
}

await describeWithPostgres("the one-statement PostgreSQL saver", () => {
  const schemas = { official: freshSchemaName(), ours: freshSchemaName() };
  const pools: pg.Pool[] = [];
  const poolOn = (schema: string) => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}`, max: 2 });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    for (const schema of Object.values(schemas)) {
      await onTestDatabase(`CREATE SCHEMA ${schema}`);
      await new PostgresSaver(poolOn(schema), undefined, { schema }).setup();
    }
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    for (const schema of Object.values(schemas)) await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  async function rows(schema: string): Promise<Record<string, unknown[]>> {
    const pool = poolOn(schema);
    const read = async (sql: string) => (await pool.query(sql)).rows;
    return {
      checkpoints: await read(
        "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints ORDER BY thread_id, checkpoint_id",
      ),
      blobs: await read("SELECT thread_id, checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs ORDER BY thread_id, channel, version"),
      writes: await read(
        "SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM checkpoint_writes ORDER BY thread_id, task_id, idx",
      ),
    };
  }

  it("writes the rows the official saver writes, and reads them back alike", async () => {
    const official = new PostgresSaver(poolOn(schemas.official), undefined, { schema: schemas.official });
    const ours = new OneStatementPostgresSaver(poolOn(schemas.ours), schemas.ours, new Map());
    await writeEverything(official);
    await writeEverything(ours);
    const expected = await rows(schemas.official);
    expect(expected.blobs).toHaveLength(4);
    expect(expected.writes).toHaveLength(3);
    expect(await rows(schemas.ours)).toEqual(expected);
    const config = { configurable: { thread_id: THREAD, checkpoint_ns: "" } };
    const tuple = await ours.getTuple(config);
    expect(tuple?.checkpoint.channel_values).toEqual({ messages: ["hi", "ho"], count: 1 });
    expect(tuple?.pendingWrites).toEqual((await official.getTuple(config))?.pendingWrites);
  });

  it("writes the same rows when concurrent threads' writes share statements, and fails only the write that fails", async () => {
    const schema = { official: freshSchemaName(), ours: freshSchemaName() };
    for (const name of Object.values(schema)) {
      await onTestDatabase(`CREATE SCHEMA ${name}`);
      await new PostgresSaver(poolOn(name), undefined, { schema: name }).setup();
    }
    try {
      const pool = poolOn(schema.ours);
      let statements = 0;
      const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
      pool.query = ((...args: unknown[]) => {
        statements += 1;
        return query(...args);
      }) as typeof pool.query;
      const ours = new OneStatementPostgresSaver(pool, schema.ours, new Map());
      const official = new PostgresSaver(poolOn(schema.official), undefined, { schema: schema.official });
      const threads = Array.from({ length: 12 }, (_, i) => `thread-${String(i).padStart(2, "0")}`);
      await Promise.all(threads.map((thread) => writeEverything(official, thread)));
      await Promise.all(threads.map((thread) => writeEverything(ours, thread)));
      expect(await rows(schema.ours)).toEqual(await rows(schema.official));
      // Eight writes per thread, issued one after another, twelve threads at once.
      expect(statements).toBeLessThan(threads.length * 8);

      // JSON text jsonb refuses (a NUL escape): that job fails; the others in its group land.
      const config = (thread: string) => ({ configurable: { thread_id: thread, checkpoint_ns: "" } });
      const results = await Promise.allSettled(
        ["good-1", "bad", "good-2"].map((thread) =>
          ours.put(
            config(thread),
            { ...checkpoint(`1ef00000-0000-6000-8000-00000000001${thread.length}`, {}, {}), ts: thread === "bad" ? "\u0000" : "2030-01-01" },
            { source: "input", step: -1, parents: {} },
            {},
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(await ours.getTuple(config("good-2"))).toBeDefined();
      expect(await ours.getTuple(config("bad"))).toBeUndefined();
    } finally {
      for (const name of Object.values(schema)) await onTestDatabase(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    }
  });

  it("holds a run's writes until their time is up, their thread is read or the hold ends keeping them, and drops them otherwise", async () => {
    const schema = freshSchemaName();
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    try {
      const pool = poolOn(schema);
      await new PostgresSaver(pool, undefined, { schema }).setup();
      const ours = new OneStatementPostgresSaver(pool, schema, new Map());
      const expected = await rows(schemas.official);
      const written = async (thread: string) => Number((await pool.query("SELECT count(*) AS n FROM checkpoints WHERE thread_id = $1", [thread])).rows[0].n);
      const config = (thread: string) => ({ configurable: { thread_id: thread, checkpoint_ns: "" } });

      // Kept: the same rows as the official saver's, in the same order of writes.
      ours.held.hold("run-kept");
      await writeEverything(ours, THREAD, "run-kept");
      expect(await written(THREAD)).toBe(0);
      await ours.held.release("run-kept", true);
      expect(await rows(schema)).toEqual(expected);

      // Dropped: nothing is written, then or later.
      ours.held.hold("run-dropped");
      await writeEverything(ours, "dropped", "run-dropped");
      await ours.held.release("run-dropped", false);
      await sleep(HOLD_MS + 100);
      expect(await written("dropped")).toBe(0);

      // Read: a read of the thread on this process writes what is held first.
      ours.held.hold("run-read");
      await writeEverything(ours, "read", "run-read");
      expect(await written("read")).toBe(0);
      expect((await ours.getTuple(config("read")))?.checkpoint.channel_values).toEqual({ messages: ["hi", "ho"], count: 1 });
      expect(await written("read")).toBe(2);

      // Timed: HOLD_MS after the first write everything held lands; the run's later writes go at once.
      ours.held.hold("run-timed");
      await writeEverything(ours, "timed", "run-timed");
      expect(await written("timed")).toBe(0);
      await sleep(HOLD_MS + 150);
      expect(await written("timed")).toBe(2);
      await ours.put(
        { configurable: { thread_id: "timed", checkpoint_ns: "", run_id: "run-timed" } },
        checkpoint("1ef00000-0000-6000-8000-000000000003", {}, {}),
        { source: "loop", step: 1, parents: {} },
        {},
      );
      expect(await written("timed")).toBe(3);
      await ours.held.release("run-timed", false);
      expect(await written("timed")).toBe(3);
    } finally {
      await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});
