// Several `gantry serve` replicas on one fresh PostgreSQL schema and one Redis key prefix, as the
// multi-replica tests need them. Replicas are real processes on port 0; dispose() stops them and
// removes the schema and the keys.
import pg from "pg";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";

export const SERVE_CONFIG = resolve(fileURLToPath(new URL("../fixtures/serve/langgraph.json", import.meta.url)));

export interface ServeCluster {
  /** Starts one more replica with `--role role` and the cluster's database and Redis. */
  start(role: "all" | "api" | "worker", env?: Record<string, string>): Promise<RunningGantry>;
  /** Stops every replica started so far (each test's own, so the next test knows which replica runs its run). */
  stopAll(): Promise<void>;
  /** A query on the cluster's schema, to check what the replicas wrote. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  dispose(): Promise<void>;
}

export async function openServeCluster(baseEnv: Record<string, string> = {}): Promise<ServeCluster> {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  await onTestDatabase(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const replicas: RunningGantry[] = [];
  return {
    async start(role, env = {}) {
      const replica = await startGantry({
        command: "serve",
        config: SERVE_CONFIG,
        args: ["--role", role],
        env: { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, LANGGRAPH_POSTGRES_POOL_MAX_SIZE: "8", ...baseEnv, ...env },
      });
      replicas.push(replica);
      return replica;
    },
    async query(sql, params) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async stopAll() {
      await Promise.all(replicas.splice(0).map((r) => r.stop()));
    },
    async dispose() {
      await Promise.all(replicas.map((r) => r.stop()));
      await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await deleteKeys(prefix);
    },
  };
}
