// Small pieces shared by the PostgreSQL repos: queries with driver errors translated (and an
// unreachable database reported to whoever watches the pool), transactions that never return a
// broken connection to the pool, and positional parameters.
import type { Pool, PoolClient, QueryResult, QueryResultRow } from "pg";
import { authContainment, hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { isUnreachable, translatePgError } from "./pg-errors.js";

export type Queryable = Pool | PoolClient;

const unreachableListeners = new WeakMap<Queryable, (err: unknown) => void>();

/** Calls `listener` with every error from a query on this pool that says the database is away. */
export function onUnreachable(pool: Pool, listener: (err: unknown) => void): void {
  unreachableListeners.set(pool, listener);
}

/** The error a failed query on `db` throws: translated, and reported when it is an outage. */
export function queryFailure(db: Queryable, err: unknown): unknown {
  if (isUnreachable(err)) unreachableListeners.get(db)?.(err);
  return translatePgError(err);
}

export async function run<R extends QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<QueryResult<R>> {
  try {
    return await db.query<R>(text, values);
  } catch (err) {
    throw queryFailure(db, err);
  }
}

/** A transaction whose connection died before COMMIT was sent runs again once, on a fresh connection. */
const TRANSACTION_ATTEMPTS = 2;

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection. A connection that failed while
 * checked out (its error event, or a ROLLBACK that fails) is destroyed, never pooled again. When it
 * died before COMMIT was sent, PostgreSQL has rolled the transaction back, so running it again is
 * safe: a connection cut by a restart or a proxy costs the caller nothing if the database answers
 * the second time. Once COMMIT was sent the outcome is unknown and the failure is the caller's.
 * `work` may therefore run twice: it must only talk to the database through `client`.
 */
export async function transaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptTransaction(pool, work);
    if ("value" in outcome) return outcome.value;
    if (!outcome.diedBeforeCommit || attempt >= TRANSACTION_ATTEMPTS) throw queryFailure(pool, outcome.err);
  }
}

type Attempt<T> = { value: T } | { err: unknown; diedBeforeCommit: boolean };

async function attemptTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<Attempt<T>> {
  const client = await pool.connect().catch((err: unknown) => {
    throw queryFailure(pool, err);
  });
  // The client's own listener (connection-watch.ts) reports the loss; this one remembers it.
  let died: Error | undefined;
  const onError = (err: Error) => {
    died ??= err;
  };
  client.on("error", onError);
  let commitSent = false;
  try {
    await client.query("BEGIN");
    const value = await work(client);
    commitSent = true;
    await client.query("COMMIT");
    return { value };
  } catch (err) {
    // A ROLLBACK that fails means the connection itself is gone.
    if (!died) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        died = rollbackError;
      });
    }
    return { err, diedBeforeCommit: died !== undefined && !commitSent };
  } finally {
    client.off("error", onError);
    client.release(died);
  }
}

/** Appends a value to `values` and returns its placeholder, so SQL built in pieces stays numbered. */
export function param(values: unknown[], value: unknown): string {
  return `$${values.push(value)}`;
}

/** jsonb parameters travel as JSON text: pg would turn a JavaScript array into a PostgreSQL array. */
export function jsonParam(values: unknown[], value: unknown): string {
  return `${param(values, JSON.stringify(value))}::jsonb`;
}

/** The condition an auth filter puts on a jsonb column (the one place PostgreSQL translates it). */
export function authFilterSql(column: string, filter: AuthFilter, values: unknown[]): string {
  return `${column} @> ${jsonParam(values, authContainment(filter))}`;
}

/** " AND <auth condition>" for a statement that already has a WHERE, or "" without a filter. */
export function andAuth(auth: AuthFilter | undefined, values: unknown[], column = "metadata"): string {
  return hasAuthFilter(auth) ? ` AND ${authFilterSql(column, auth, values)}` : "";
}
