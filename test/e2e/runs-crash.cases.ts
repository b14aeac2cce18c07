// A server killed with SIGKILL in the middle of a run, then started again on the same storage: the
// orphaned run must not stay `running` and its thread must not stay `busy`. `gantry dev` requeues
// such runs at boot, so the run is executed again (attempt 2) and the queue behind it follows.
import type { Client, Run } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { eventually, sdkClient } from "./http.js";
import { collect, gantryPid, RUNS_CONFIG, RUNS_ENV, runReaches, threadReaches } from "./runs-support.js";

// Long enough to be seen running and killed, short enough that the second attempt ends soon.
const RUN_MS = 1_000;
// The restart is done when the tests start; what is left is the second attempt (RUN_MS) and slack.
const RECOVERY_DEADLINE_MS = 5_000;

export function describeRunCrashE2E(label: string, open: OpenStore): void {
  describe(`a server killed mid-run (${label})`, () => {
    let store: GantryStore;
    let first: RunningGantry | undefined;
    let second: RunningGantry | undefined;
    let client: Client;
    let threadId: string;
    let orphan: Run;
    let queued: Run;

    beforeAll(async () => {
      store = await open();
      first = await store.start(RUNS_CONFIG, RUNS_ENV);
      const before = sdkClient(first.url);
      threadId = (await before.threads.create()).thread_id;
      orphan = await before.runs.create(threadId, "slow", { input: { ms: RUN_MS, label: "orphan" } });
      queued = await before.runs.create(threadId, "slow", { input: { ms: 1, label: "queued" } });
      await runReaches(before, threadId, orphan.run_id, "running");

      process.kill(await gantryPid(first.dataDir), "SIGKILL");
      await first.stop();
      second = await store.start(RUNS_CONFIG, RUNS_ENV);
      client = sdkClient(second.url);
    });

    afterAll(async () => {
      await first?.stop();
      await second?.stop();
      await store?.dispose();
    });

    it("does not leave the run in the running state its dead worker left it in", async () => {
      const run = await eventually(
        "the orphaned run to leave the running state",
        async () => {
          const current = await client.runs.get(threadId, orphan.run_id);
          return current.status === "running" ? undefined : current;
        },
        RECOVERY_DEADLINE_MS,
      );
      expect(["pending", "success"]).toContain(run.status);
    });

    // At boot the dev server takes back leases that have not run out yet; the requeued run must be
    // claimable at once, not after a whole lease (30 s) with its thread busy.
    it("runs it again promptly and frees the thread, then runs the run queued behind it", async () => {
      await runReaches(client, threadId, orphan.run_id, "success", RECOVERY_DEADLINE_MS);
      await runReaches(client, threadId, queued.run_id, "success", RECOVERY_DEADLINE_MS);
      const thread = await threadReaches(client, threadId, "idle", RECOVERY_DEADLINE_MS);
      expect(thread.values).toMatchObject({ log: ["orphan", "queued"] });

      const replay = await collect(client.runs.joinStream(threadId, orphan.run_id, { lastEventId: "-1" }));
      expect(replay[0]).toMatchObject({ event: "metadata", data: { run_id: orphan.run_id, attempt: 2 } });
    });
  });
}
