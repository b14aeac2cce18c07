// The benchmarks that start `gantry serve` (or `gantry dev` on PostgreSQL) give each target a
// schema of its own on the shared database and a key prefix of its own on the shared Redis, made
// and removed here.
import { Redis } from "ioredis";
import pg from "pg";
import { deleteKeysWithPrefix } from "../src/events/redis-keys.js";

/** Runs one statement on the database at `url` over a connection of its own. */
export async function onDatabase(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `url` with every connection's search_path set to `schema`. */
export function schemaUrl(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set("options", `-c search_path=${schema}`);
  return withSchema.toString();
}

/** Drops the schemas, with everything in them, and every Redis key under the prefixes. */
export async function removeBackends(databaseUrl: string, schemas: string[], redisUrl: string, prefixes: string[]): Promise<void> {
  for (const schema of schemas) await onDatabase(databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const redis = new Redis(redisUrl);
  try {
    for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
