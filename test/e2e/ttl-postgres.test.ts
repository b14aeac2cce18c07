// The TTL e2e cases on PostgreSQL, and two `gantry serve` replicas sweeping one database at once.
// Skipped with the reason when PostgreSQL (or, for the replicas, Redis) is down; failing in CI.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgres, freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { openPostgresStore } from "./backends.js";
import { eventually, sdkClient } from "./http.js";
import { threadIsGone } from "./runs-support.js";
import { describeTtlE2E, KEEP_LATEST_CONFIG, SWEEP_LIMIT, threadSweeps } from "./ttl.cases.js";

await describeWithPostgres("TTL end to end on PostgreSQL", () => {
  describeTtlE2E("postgres", openPostgresStore);
});

await describeWithPostgresAndRedis("TTL sweeps of two gantry serve replicas on one database", () => {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  const replicas: RunningGantry[] = [];

  beforeAll(async () => {
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const env = { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
    // The first creates the tables; the second starts on them.
    replicas.push(await startGantry({ command: "serve", config: KEEP_LATEST_CONFIG, env }));
    replicas.push(await startGantry({ command: "serve", config: KEEP_LATEST_CONFIG, env }));
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await deleteKeys(prefix);
  });

  it("prunes and deletes every expired thread, each pass within sweep_limit, with neither sweep failing", async () => {
    const [a, b] = replicas.map((r) => sdkClient(r.url));
    const pruned = Array.from({ length: 6 }, () => randomUUID());
    const deleted: string[] = [];
    for (const [i, threadId] of pruned.entries()) {
      const client = i % 2 === 0 ? a! : b!;
      await client.runs.wait(threadId, "echo", { input: { messages: ["one"] }, ifNotExists: "create" });
      await client.runs.wait(threadId, "echo", { input: { messages: ["two"] }, ifNotExists: "create" });
      const doomed = await client.threads.create({ ttl: { strategy: "delete", ttl: 60 } });
      await client.runs.wait(doomed.thread_id, "echo", { input: { messages: ["bye"] } });
      await client.threads.update(doomed.thread_id, { ttl: { strategy: "delete", ttl: 0.001 } });
      deleted.push(doomed.thread_id);
    }
    for (const threadId of pruned) {
      const history = await eventually(`thread ${threadId} pruned`, async () => {
        const states = await a!.threads.getHistory(threadId, { limit: 100 });
        return states.length === 1 ? states : undefined;
      });
      expect(history[0]!.values).toMatchObject({ messages: ["two"] });
    }
    for (const threadId of deleted) await threadIsGone(b!, threadId);
    for (const replica of replicas) {
      const output = replica.output();
      expect(output).not.toContain("sweeping expired threads failed");
      expect(threadSweeps(output).most).toBeLessThanOrEqual(SWEEP_LIMIT);
    }
  });
});
