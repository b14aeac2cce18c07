// A replica creates runs from the assistants it cached, and another replica changes them: through
// the official SDK, a run created on A after B updated the assistant uses B's config, on a new
// thread and on an existing one, and once B deleted it A answers 404. B only serves HTTP, so
// every run is created and executed on A, whose cache B's writes never touch.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { sdkClient } from "../e2e/http.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgresAndRedis } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";

/** The `flavour` the whoami graph saw in its configurable, on a run created through `client`. */
async function flavourSeen(client: Client, threadId: string | null, assistantId: string): Promise<unknown> {
  const values = (await (threadId === null ? client.runs.wait(null, assistantId, { input: {} }) : client.runs.wait(threadId, assistantId, { input: {} }))) as {
    seen: { configurable: { flavour?: unknown } };
  };
  return values.seen.configurable.flavour;
}

await describeWithPostgresAndRedis("gantry serve: an assistant changed on another replica", () => {
  let cluster: ServeCluster;
  let a: RunningGantry;
  let b: RunningGantry;

  beforeAll(async () => {
    cluster = await openServeCluster();
    [a, b] = await Promise.all([cluster.start("all"), cluster.start("api")]);
  });

  afterAll(async () => {
    await cluster?.dispose();
  });

  it("runs with the config another replica gave the assistant, and answers 404 once another replica deleted it", async () => {
    const onA = sdkClient(a.url);
    const onB = sdkClient(b.url);
    const { assistant_id: assistantId } = await onA.assistants.create({ graphId: "whoami", config: { configurable: { flavour: "vanilla" } } });
    const threadId = (await onA.threads.create()).thread_id;
    // The first run reads the assistant and caches it; the second is created from the cache.
    expect(await flavourSeen(onA, null, assistantId)).toBe("vanilla");
    expect(await flavourSeen(onA, null, assistantId)).toBe("vanilla");
    expect(await flavourSeen(onA, threadId, assistantId)).toBe("vanilla");

    await onB.assistants.update(assistantId, { config: { configurable: { flavour: "chocolate" } } });
    expect(await flavourSeen(onA, null, assistantId)).toBe("chocolate");
    await onB.assistants.update(assistantId, { config: { configurable: { flavour: "mint" } } });
    expect(await flavourSeen(onA, threadId, assistantId)).toBe("mint");
    await onB.assistants.setLatest(assistantId, 1);
    expect(await flavourSeen(onA, null, assistantId)).toBe("vanilla");

    await onB.assistants.delete(assistantId);
    await expect(onA.runs.wait(null, assistantId, { input: {} })).rejects.toThrow(/HTTP 404/);
    await expect(onA.runs.wait(threadId, assistantId, { input: {} })).rejects.toThrow(/HTTP 404/);
  });
});
