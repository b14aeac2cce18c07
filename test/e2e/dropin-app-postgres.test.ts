// The drop-in project's cases on PostgreSQL: a fresh schema, reached through DATABASE_URL alone.
// Then under `gantry serve`, split into an API and a worker-only process: the worker's graphs
// still reach the deployment through `new Client()`. Skipped with the reason when PostgreSQL (or
// Redis, for serve) is down; failing in CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgres, freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { openPostgresStore } from "./backends.js";
import { describeDropInAppE2E, DROPIN_CONFIG } from "./dropin-app.cases.js";
import { sdkClient } from "./http.js";

await describeWithPostgres("the drop-in project end to end on PostgreSQL", () => {
  describeDropInAppE2E("postgres", openPostgresStore);
});

await describeWithPostgresAndRedis("the drop-in project under gantry serve", () => {
  describe("with a worker-only process", () => {
    const schema = freshSchemaName();
    const prefix = freshKeyPrefix();
    let api: RunningGantry;
    let worker: RunningGantry;

    beforeAll(async () => {
      await onTestDatabase(`CREATE SCHEMA ${schema}`);
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set("options", `-c search_path=${schema}`);
      const env = { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" };
      api = await startGantry({ command: "serve", config: DROPIN_CONFIG, args: ["--role", "api"], env });
      worker = await startGantry({ command: "serve", config: DROPIN_CONFIG, args: ["--role", "worker"], env });
    });

    afterAll(async () => {
      await Promise.all([api?.stop(), worker?.stop()]);
      await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await deleteKeys(prefix);
    });

    it("lets a graph on the worker call the deployment with a Client made without a URL", async () => {
      const client = sdkClient(api.url);
      const output = (await client.runs.wait(null, "delegate", { input: { text: "from the worker" } })) as { answer: string; agent_thread: string };
      expect(output.answer).toBe("agent: from the worker");
      expect(await client.threads.get(output.agent_thread)).toMatchObject({ metadata: { purpose: "delegated" } });
    });
  });
});
