// Deployment data on PostgreSQL: each deployment gets a database of its own on the control plane's
// server, shared by its revisions; with Redis the revisions are `gantry serve` replicas under a key
// prefix of their own. DELETE drops the database and the keys.
import { Redis } from "ioredis";
import pg from "pg";
import { describe } from "vitest";
import { deploymentDatabaseName, deploymentKeyPrefix } from "../../src/control-plane/drivers/postgres-data.js";
import { TEST_DATABASE_URL, describeWithPostgres, freshSchemaName } from "../support/postgres.js";
import { TEST_REDIS_URL, describeWithPostgresAndRedis } from "../support/redis.js";
import { deploymentDataCases, type DataStorage } from "./data.cases.js";

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

function postgresStorage(withRedis: boolean): DataStorage {
  const schema = freshSchemaName();
  const seen = new Set<string>();
  return {
    command: withRedis ? "serve" : "dev",
    env: { DATABASE_URL: TEST_DATABASE_URL, GANTRY_CONTROL_PLANE_SCHEMA: schema, ...(withRedis ? { REDIS_URL: TEST_REDIS_URL } : {}) },
    async exists(_cp, id) {
      seen.add(id);
      const databases = await query("SELECT 1 FROM pg_database WHERE datname = $1", [deploymentDatabaseName(id)]);
      if (databases.length > 0) return true;
      if (!withRedis) return false;
      const redis = new Redis(TEST_REDIS_URL);
      try {
        return (await redis.keys(`${deploymentKeyPrefix(id)}*`)).length > 0;
      } finally {
        redis.disconnect();
      }
    },
    async cleanup() {
      await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      for (const id of seen) await query(`DROP DATABASE IF EXISTS ${deploymentDatabaseName(id)}`);
    },
  };
}

await describeWithPostgresAndRedis("deployment data on PostgreSQL and Redis (gantry serve)", () => {
  describe("serve", { timeout: 120_000 }, () => deploymentDataCases("postgres+redis", () => postgresStorage(true)));
});

await describeWithPostgres("deployment data on PostgreSQL without Redis (gantry dev)", () => {
  describe("dev", { timeout: 120_000 }, () => deploymentDataCases("postgres", () => postgresStorage(false)));
});
