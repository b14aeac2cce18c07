// SQLite only: a write that finds the database's write lock taken by another connection (the WAL
// checkpoint thread's RESTART pass, another process on the file) waits for it, up to the busy
// timeout, and never fails with SQLITE_BUSY ("database is locked"). A transaction that reads
// before it writes is the trap: begun deferred, its upgrade to a write fails at once, without
// waiting, while another connection writes.
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/sqlite/open-sqlite.js";
import { holdWriteLock } from "../../support/sqlite-write-lock.js";
import { newId, newRun, newThread } from "./builders.js";

const WORKER = "worker-1";
const LEASE_MS = 30_000;
/** Long enough to be sure the write under test began while the lock was held; well under the busy timeout. */
const HOLD_MS = 300;

/** Another connection takes the write lock and keeps it HOLD_MS: resolves once it holds it. */
async function lockedFor(file: string): Promise<{ released: Promise<number> }> {
  const holder = holdWriteLock(file, { holdMs: HOLD_MS });
  await holder.held;
  return { released: holder.stop() };
}

describe("sqlite: a write waits for another connection's write lock", () => {
  let dir: string;
  let storage: SqliteStorage;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-write-lock-"));
    storage = openSqliteStorage(join(dir, "gantry.sqlite"));
  });

  afterAll(async () => {
    await storage?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A running run held by WORKER, its checkpoint writes guarded by the lease. */
  async function guardedRun(): Promise<{ runId: string; threadId: string; unguard: () => void; failures: unknown[] }> {
    const thread = await storage.threads.create(newThread());
    const threadId = thread!.thread_id;
    const enqueued = await storage.runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: "enqueue" });
    if (enqueued.kind !== "created") throw new Error(`enqueue answered ${enqueued.kind}`);
    const [claimed] = await storage.runs.claim(WORKER, LEASE_MS, new Date(), 1);
    if (claimed?.run_id !== enqueued.run.run_id) throw new Error("the run was not claimed");
    const failures: unknown[] = [];
    const unguard = storage.checkpoints.guardWrites(claimed.run_id, { workerId: WORKER, attempt: claimed.attempt }, (err) => failures.push(err));
    return { runId: claimed.run_id, threadId, unguard, failures };
  }

  it("lands a guarded run's pending writes once the other connection lets go", async () => {
    const { runId, threadId, unguard, failures } = await guardedRun();
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "", run_id: runId } };
    const saved = await storage.checkpoints.saver.put(config, { ...emptyCheckpoint(), id: newId() }, { source: "input", step: -1, parents: {} }, {});

    const lock = await lockedFor(storage.file);
    const started = Date.now();
    await storage.checkpoints.saver.putWrites({ configurable: { ...saved.configurable, run_id: runId } }, [["answer", 42]], "task-1");
    const waited = Date.now() - started;
    await lock.released;
    unguard();

    expect(failures).toEqual([]);
    // It began while the lock was held (so it had to wait), not after.
    expect(waited).toBeGreaterThanOrEqual(HOLD_MS / 2);
    const tuple = await storage.checkpoints.saver.getTuple({ configurable: { ...saved.configurable } });
    expect(tuple?.pendingWrites).toEqual([["task-1", "answer", 42]]);
  });

  it("lands a guarded run's checkpoint once the other connection lets go", async () => {
    const { runId, threadId, unguard, failures } = await guardedRun();
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "", run_id: runId } };

    const lock = await lockedFor(storage.file);
    const saved = await storage.checkpoints.saver.put(config, { ...emptyCheckpoint(), id: newId() }, { source: "input", step: -1, parents: {} }, {});
    await lock.released;
    unguard();

    expect(failures).toEqual([]);
    expect(await storage.checkpoints.latestCheckpointId(threadId)).toBe(saved.configurable?.checkpoint_id);
  });

  it("finishes a run once the other connection lets go", async () => {
    const { runId, unguard } = await guardedRun();
    unguard();

    const lock = await lockedFor(storage.file);
    expect(await storage.runs.finish(runId, WORKER, { status: "success", thread_status: "idle" })).toBe(true);
    await lock.released;

    expect((await storage.runs.get(runId))?.status).toBe("success");
  });
});
