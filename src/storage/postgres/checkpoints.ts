// Checkpoints on PostgreSQL: the official PostgresSaver (each of its writes made in one statement,
// one-statement-saver.ts) on the storage's pool and schema, plus the thread-level operations it
// lacks, written against its tables (checkpoints, checkpoint_blobs, checkpoint_writes). Its setup
// runs at open under the migration lock, as our migrations do.
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { StartupError } from "../../errors.js";
import type { CheckpointStore } from "../checkpoint-ports.js";
import { fencedSaver, type RunLeases } from "../fenced-saver.js";
import { OneStatementPostgresSaver } from "./one-statement-saver.js";
import { MIGRATION_LOCK_CLASS } from "./migrate.js";
import { isLockTimeout } from "./pg-errors.js";
import { queryFailure, run as query, transaction } from "./sql-helpers.js";

/** As long as the wait for our own migrations: setup only creates a few tables. */
const LOCK_WAIT_MS = 60_000;

export interface PostgresCheckpointOptions {
  /** Where the saver's tables go: the schema the storage's tables are in. */
  schema: string;
  /** How the storage's pool connects (URL, search_path), for the one connection setup uses. */
  connection: pg.ClientConfig;
  /** The storage's client class: connect timeout, and an error listener for the client's whole life. */
  Client: typeof pg.Client;
  lockWaitMs?: number;
  serde?: SerializerProtocol;
}

export async function openPostgresCheckpoints(pool: pg.Pool, options: PostgresCheckpointOptions): Promise<CheckpointStore> {
  await setUpUnderLock(options);
  return postgresCheckpoints(pool, options.schema, options.serde);
}

/**
 * The saver's setup reads its migration version and then creates tables, so two processes running
 * it at once can both try to create them and one fails. It runs under our migration lock instead.
 * setup() takes a connection from the pool it is given: a pool of exactly one connection makes that
 * the session holding the (session-level) advisory lock.
 */
async function setUpUnderLock(options: PostgresCheckpointOptions): Promise<void> {
  // No idle timeout: the connection must outlive the gaps between the queries below.
  const setupPool = new pg.Pool({ ...options.connection, max: 1, idleTimeoutMillis: 0, Client: options.Client });
  // As on the storage's pool: a dropped idle connection must not end the process; the next query
  // reports it. The saver's setup holds the connection checked out across its statements, where
  // only the client's own listener (options.Client) stands between a cut and the process.
  setupPool.on("error", () => {});
  const waitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
  try {
    await setupPool.query(`SET lock_timeout = ${Math.round(waitMs)}`);
    try {
      await setupPool.query("SELECT pg_advisory_lock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, options.schema]);
    } catch (err) {
      if (!isLockTimeout(err)) throw err;
      throw new StartupError(
        `Timed out after ${waitMs / 1000}s waiting for the migration lock on schema "${options.schema}" to set up checkpoint tables: ` +
          `another process is migrating it, or is stuck. Find the holder with SELECT * FROM pg_locks WHERE locktype = 'advisory' ` +
          `AND classid = ${MIGRATION_LOCK_CLASS} (its pid joins pg_stat_activity), then wait for it to finish or end it with SELECT pg_terminate_backend(<pid>).`,
      );
    }
    await new PostgresSaver(setupPool, undefined, { schema: options.schema }).setup();
    await setupPool.query("SELECT pg_advisory_unlock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, options.schema]);
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError(`Setting up the checkpoint tables in schema "${options.schema}" failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    // Ending the pool ends the session, which drops the lock even when setup failed half-way.
    await setupPool.end();
  }
}

/**
 * The saver with its driver errors translated as the repos' are: a checkpoint read or write during
 * an outage then reads as the database being away (503, a run handed back), not as a failure.
 */
function translatingErrors(pool: pg.Pool, saver: PostgresSaver): PostgresSaver {
  return new Proxy(saver, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) return result.catch((err: unknown) => Promise.reject(queryFailure(pool, err)));
        if (isAsyncIterable(result)) return translatedIteration(pool, result);
        return result;
      };
    },
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === "function";
}

async function* translatedIteration<T>(pool: pg.Pool, items: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (err) {
    throw queryFailure(pool, err);
  }
}

/**
 * CTEs deleting every checkpoint, blob and pending write of the threads `threadIds` names (a
 * parameter, or a query yielding thread ids), in the saver's three tables: for a statement of
 * their own, or inside another one (a temporary thread's finish).
 */
export function threadCheckpointDeletes(threadIds: string): string {
  return `deleted_writes AS (DELETE FROM checkpoint_writes WHERE thread_id IN (${threadIds})),
    deleted_blobs AS (DELETE FROM checkpoint_blobs WHERE thread_id IN (${threadIds})),
    deleted_checkpoints AS (DELETE FROM checkpoints WHERE thread_id IN (${threadIds}))`;
}

// Checkpoint ids are uuid6: fixed-width lower-case hex with the timestamp's high bits first, so
// their text order is creation order. The saver relies on this (ORDER BY checkpoint_id DESC finds
// the latest), and the comparisons below use the same columns with the same collation.
function postgresCheckpoints(pool: pg.Pool, schema: string, serde?: SerializerProtocol): CheckpointStore {
  const leases: RunLeases = new Map();
  const oneStatement = new OneStatementPostgresSaver(pool, schema, leases, serde);
  const { held } = oneStatement;
  const { saver, fence, startsEmpty, guard } = fencedSaver(translatingErrors(pool, oneStatement), leases);
  const translated = (writes: Promise<void>) => writes.catch((err: unknown) => Promise.reject(queryFailure(pool, err)));
  /** Held writes land before anything else reads or changes the thread's checkpoints. */
  const written = (threadId: string) => translated(held.flushThread(threadId));

  /** One statement, atomic as the three-DELETE transaction it replaced: one round trip instead of five. */
  async function deleteThread(threadId: string): Promise<void> {
    held.dropThread(threadId);
    await query(pool, `WITH ${threadCheckpointDeletes("$1")} SELECT 1`, [threadId]);
  }

  /** Deletes checkpoints from one on (">=") or older than it ("<"), with their writes and orphaned blobs. */
  async function deleteWhere(threadId: string, direction: ">=" | "<", checkpointId: string): Promise<void> {
    await transaction(pool, async (client) => {
      await query(client, `DELETE FROM checkpoint_writes WHERE thread_id = $1 AND checkpoint_id ${direction} $2`, [threadId, checkpointId]);
      await query(client, `DELETE FROM checkpoints WHERE thread_id = $1 AND checkpoint_id ${direction} $2`, [threadId, checkpointId]);
      // Blobs carry no checkpoint id: a channel value belongs to every checkpoint whose
      // channel_versions name its version, so the ones no remaining checkpoint names go.
      await query(
        client,
        `DELETE FROM checkpoint_blobs b
         WHERE b.thread_id = $1
           AND NOT EXISTS (
             SELECT 1 FROM checkpoints c
             WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
               AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
        [threadId],
      );
    });
  }

  return {
    saver,
    async fenceRun(runId) {
      await fence(runId);
      await translated(held.release(runId, true));
    },
    startsEmpty,
    guardWrites: guard,
    holdWrites: (runId) => held.hold(runId),
    releaseWrites: (runId, keep) => translated(held.release(runId, keep)),
    deleteThread,

    async copyThread(fromThreadId, toThreadId) {
      await written(fromThreadId);
      await transaction(pool, async (client) => {
        await query(
          client,
          // A run's checkpoints name their thread in their metadata: the copies name the copy.
          `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
           SELECT $2, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint,
                  CASE WHEN metadata->>'thread_id' = $1 THEN jsonb_set(metadata, '{thread_id}', to_jsonb($2::text)) ELSE metadata END
           FROM checkpoints WHERE thread_id = $1`,
          [fromThreadId, toThreadId],
        );
        await query(
          client,
          `INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
           SELECT $2, checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs WHERE thread_id = $1`,
          [fromThreadId, toThreadId],
        );
        await query(
          client,
          `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
           SELECT $2, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM checkpoint_writes WHERE thread_id = $1`,
          [fromThreadId, toThreadId],
        );
      });
    },

    async deleteRun(threadId, runId) {
      await written(threadId);
      const { rows } = await query<{ id: string | null }>(
        pool,
        "SELECT MIN(checkpoint_id) AS id FROM checkpoints WHERE thread_id = $1 AND metadata ->> 'run_id' = $2",
        [threadId, runId],
      );
      if (rows[0]?.id) await deleteWhere(threadId, ">=", rows[0].id);
    },

    async deleteBefore(threadId, checkpointId) {
      await written(threadId);
      await deleteWhere(threadId, "<", checkpointId);
    },

    async latestCheckpointId(threadId) {
      await written(threadId);
      const { rows } = await query<{ checkpoint_id: string }>(
        pool,
        "SELECT checkpoint_id FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
        [threadId],
      );
      return rows[0]?.checkpoint_id ?? null;
    },
  };
}
