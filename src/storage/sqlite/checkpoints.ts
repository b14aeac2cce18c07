// Checkpoints on SQLite: the official SqliteSaver on the storage's own connection, so checkpoints
// live in the same file as threads and runs, plus the thread-level operations it lacks, written
// against its two tables (checkpoints, writes).
import { AsyncLocalStorage } from "node:async_hooks";
import type { RunnableConfig } from "@langchain/core/runnables";
import { copyCheckpoint, JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type Database from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { LeaseLostError } from "../../errors.js";
import type { CheckpointStore, RunLease } from "../checkpoint-ports.js";
import { fencedSaver, type RunLeases } from "../fenced-saver.js";
import { statementCache } from "./sql-helpers.js";

type LeasedWrite = RunLease & { runId: string };

/**
 * SqliteSaver creates its tables lazily on first use; this one creates them when the storage opens.
 * The saver also prepares its statements on every put, putWrites and getTuple (several per graph
 * step); it gets the connection through a view whose `prepare` reuses statements by SQL text.
 *
 * A guarded run's write carries its lease through the saver's awaits (AsyncLocalStorage) to the
 * statements that insert its rows, which check the run's row in the same transaction: the saver
 * serialises before it writes, so a check ahead of the call would not be atomic with the write.
 *
 * The saver's own transactions (putWrites wraps its inserts in one) begin IMMEDIATE, as ours do.
 * Begun deferred, the lease check inside made it a read that then upgrades to a write, and SQLite
 * fails that upgrade at once, without the busy timeout, while another connection holds the write
 * lock (the WAL checkpoint thread's RESTART): the run failed with "database is locked".
 *
 * Its put is the saver's own but for the metadata, which is always serialised in plain JSON: the
 * saver would pass it through `serde` like the checkpoint, and an encrypting serde would then hide
 * what history filters and run rollbacks query (json_extract on metadata).
 */
class EagerSqliteSaver extends SqliteSaver {
  private readonly writing: AsyncLocalStorage<LeasedWrite>;
  private readonly plain = new JsonPlusSerializer();

  constructor(
    db: Database.Database,
    private readonly leases: RunLeases,
    serde?: SerializerProtocol,
  ) {
    const writing = new AsyncLocalStorage<LeasedWrite>();
    super(withCachedStatements(db, writing), serde);
    this.writing = writing;
    this.setup();
  }

  override put(...args: Parameters<SqliteSaver["put"]>): ReturnType<SqliteSaver["put"]> {
    return this.leased(args[0], () => this.putRow(...args));
  }

  private async putRow(...[config, checkpoint, metadata]: Parameters<SqliteSaver["put"]>): ReturnType<SqliteSaver["put"]> {
    const thread_id = config.configurable?.thread_id;
    const checkpoint_ns = config.configurable?.checkpoint_ns ?? "";
    if (!thread_id) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    const [[type, serializedCheckpoint], [, serializedMetadata]] = await Promise.all([
      this.serde.dumpsTyped(copyCheckpoint(checkpoint)),
      this.plain.dumpsTyped(metadata),
    ]);
    this.db
      .prepare(
        "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(thread_id, checkpoint_ns, checkpoint.id, config.configurable?.checkpoint_id, type, serializedCheckpoint, serializedMetadata);
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  override putWrites(...args: Parameters<SqliteSaver["putWrites"]>): ReturnType<SqliteSaver["putWrites"]> {
    return this.leased(args[0], () => super.putWrites(...args));
  }

  private leased<T>(config: RunnableConfig, write: () => Promise<T>): Promise<T> {
    const runId = config.configurable?.run_id;
    const lease = typeof runId === "string" ? this.leases.get(runId) : undefined;
    return lease ? this.writing.run({ runId: runId as string, ...lease }, write) : write();
  }
}

function withCachedStatements(db: Database.Database, writing: AsyncLocalStorage<LeasedWrite>): Database.Database {
  const cached = statementCache(db);
  const held = db.prepare("SELECT 1 FROM runs WHERE run_id = ? AND status = 'running' AND lease_owner = ? AND attempt = ?").pluck();
  const checkedRun = db.transaction((lease: LeasedWrite, statement: Database.Statement, args: unknown[]) => {
    if (held.get(lease.runId, lease.workerId, lease.attempt) === undefined) throw new LeaseLostError(lease.runId);
    return statement.run(...args);
  });
  const guarded = new WeakMap<Database.Statement, Database.Statement>();
  // The saver runs its inserts (and only those) with `run`.
  const prepare = (text: string): Database.Statement => {
    const statement = cached(text);
    if (!/^\s*INSERT/i.test(text)) return statement;
    let wrapper = guarded.get(statement);
    if (!wrapper) {
      wrapper = Object.create(statement, {
        run: {
          value: (...args: unknown[]) => {
            const lease = writing.getStore();
            return lease ? checkedRun.immediate(lease, statement, args) : statement.run(...args);
          },
        },
      }) as Database.Statement;
      guarded.set(statement, wrapper);
    }
    return wrapper;
  };
  const transaction = (fn: (...args: never[]) => unknown) => db.transaction(fn).immediate;
  return new Proxy(db, {
    get(target, property) {
      if (property === "prepare") return prepare;
      if (property === "transaction") return transaction;
      const value: unknown = Reflect.get(target, property, target);
      // better-sqlite3's methods only work on the real connection object.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Every checkpoint and pending write of the thread; inside the caller's transaction (a temporary thread's finish too). */
export function deleteThreadCheckpoints(sql: (text: string) => Database.Statement, threadId: string): void {
  sql("DELETE FROM writes WHERE thread_id = ?").run(threadId);
  sql("DELETE FROM checkpoints WHERE thread_id = ?").run(threadId);
}

// Checkpoint ids are uuid6: fixed-width lower-case hex with the timestamp's high bits first, so
// their text order is creation order. The saver relies on this (ORDER BY checkpoint_id DESC finds
// the latest), and so does every comparison below.
/** `serde` serialises checkpoints and writes (an encrypting one seals them); metadata stays plain JSON. */
export function sqliteCheckpoints(db: Database.Database, serde?: SerializerProtocol): CheckpointStore {
  const leases: RunLeases = new Map();
  const { saver, fence, startsEmpty, guard } = fencedSaver(new EagerSqliteSaver(db, leases, serde), leases);
  const sql = statementCache(db);

  // The saver stores metadata as JSON text in a BLOB column; SQLite reads a BLOB as binary JSONB.
  const deleteRun = db.transaction((threadId: string, runId: string) => {
    const first = sql("SELECT MIN(checkpoint_id) AS id FROM checkpoints WHERE thread_id = ? AND json_extract(CAST(metadata AS TEXT), '$.run_id') = ?").get(
      threadId,
      runId,
    ) as { id: string | null };
    if (first.id === null) return;
    sql("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id >= ?").run(threadId, first.id);
    sql("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id >= ?").run(threadId, first.id);
  });

  const deleteBefore = db.transaction((threadId: string, checkpointId: string) => {
    sql("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id < ?").run(threadId, checkpointId);
    sql("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id < ?").run(threadId, checkpointId);
  });

  const deleteThread = db.transaction((threadId: string) => deleteThreadCheckpoints(sql, threadId));

  const copyThread = db.transaction((fromThreadId: string, toThreadId: string) => {
    // A run's checkpoints name their thread in their metadata: the copies name the copy.
    sql(
      `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       SELECT @to, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint,
              CASE WHEN json_extract(CAST(metadata AS TEXT), '$.thread_id') = @from
                   THEN CAST(json_set(CAST(metadata AS TEXT), '$.thread_id', @to) AS BLOB) ELSE metadata END
       FROM checkpoints WHERE thread_id = @from`,
    ).run({ to: toThreadId, from: fromThreadId });
    sql(
      `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value)
       SELECT ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes WHERE thread_id = ?`,
    ).run(toThreadId, fromThreadId);
  });

  const latest = sql("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1");

  return {
    saver,
    fenceRun: fence,
    startsEmpty,
    guardWrites: guard,
    // A write here is a local transaction, not a round trip: nothing is worth holding back.
    holdWrites: () => {},
    releaseWrites: () => Promise.resolve(),
    async deleteThread(threadId) {
      deleteThread.immediate(threadId);
    },
    async copyThread(fromThreadId, toThreadId) {
      copyThread.immediate(fromThreadId, toThreadId);
    },
    async deleteRun(threadId, runId) {
      deleteRun.immediate(threadId, runId);
    },
    async deleteBefore(threadId, checkpointId) {
      deleteBefore.immediate(threadId, checkpointId);
    },
    async latestCheckpointId(threadId) {
      const row = latest.get(threadId) as { checkpoint_id: string } | undefined;
      return row?.checkpoint_id ?? null;
    },
  };
}
