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

export async function transaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => {
    throw queryFailure(pool, err);
  });
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    // A ROLLBACK that fails means the connection itself is gone: destroy it rather than pool it.
    await client.query("ROLLBACK").catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw queryFailure(pool, err);
  } finally {
    client.release(broken);
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
