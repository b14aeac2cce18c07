// Small pieces shared by the SQLite repos.
import type Database from "better-sqlite3";
import type { JsonObject } from "../records.js";

export function parseJson<T = JsonObject>(text: string): T {
  return JSON.parse(text) as T;
}

/**
 * Prepares each distinct SQL text once per connection. Preparing costs more than running a
 * small statement, and the hot paths (claim, enqueue, finish) would otherwise prepare on every call.
 * Search SQL varies with the filter's shape, so the cache is bounded: past the limit it starts over.
 */
const MAX_CACHED_STATEMENTS = 500;

export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.clear();
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
