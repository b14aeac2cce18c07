// The state encryption cases on `gantry serve`: PostgreSQL rows, and run event logs in Redis
// streams, read directly. A fresh schema and key prefix per suite; skipped with the reason when
// either service is down, failing in CI.
import { startGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { openPostgresStorage } from "../../src/storage/postgres/open-postgres.js";
import { describeStateEncryptionE2E, type StateStore } from "./encryption-state.cases.js";

async function openServeStore(): Promise<StateStore> {
  const schema = freshSchemaName();
  const redisPrefix = freshKeyPrefix();
  await onTestDatabase(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    backend: "postgres",
    schema,
    redisPrefix,
    start: (config, env) =>
      startGantry({ command: "serve", config, env: { ...env, DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix } }),
    openStorage: () => openPostgresStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 }),
    dispose: async () => {
      await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await deleteKeys(redisPrefix);
    },
  };
}

await describeWithPostgresAndRedis("encryption at rest on gantry serve (PostgreSQL, Redis)", () => {
  describeStateEncryptionE2E("postgres, redis", openServeStore);
});
