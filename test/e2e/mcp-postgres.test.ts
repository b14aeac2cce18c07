// The /mcp cases (mcp.cases.ts) under `gantry serve` on PostgreSQL and Redis: each server gets a
// fresh schema, reached through DATABASE_URL alone, and a Redis key prefix of its own. Skipped
// with the reason when either is down; failing in CI.
import { startGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { describeMcpE2E } from "./mcp.cases.js";

await describeWithPostgresAndRedis("MCP under gantry serve", () => {
  describeMcpE2E("gantry serve, PostgreSQL + Redis", async (config) => {
    const schema = freshSchemaName();
    const prefix = freshKeyPrefix();
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const env = { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" };
    const server = await startGantry({ command: "serve", config, env });
    return {
      server,
      stop: async () => {
        await server.stop();
        await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await deleteKeys(prefix);
      },
    };
  });
});
