// Clients that leave a /wait or /join before it answers. Each case gets its own server: today a
// client leaving early makes keepAliveJson write to a closed stream, an unhandled rejection that
// kills the process, and a dead server would fail every later case of a shared one.
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { request, sdkClient } from "./http.js";
import { RUNS_CONFIG, RUNS_ENV, runReaches } from "./runs-support.js";

// How long a client waits before it leaves; the server must notice and carry on.
const LEAVE_AFTER_MS = 500;
// A join that should end at once is given this long before the test calls it hung.
const GIVE_UP_MS = 1_500;

export function describeRunDisconnectE2E(label: string, open: OpenStore): void {
  describe(`clients leaving a wait or join early (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry | undefined;

    beforeAll(async () => {
      store = await open();
    });

    afterEach(async () => {
      await server?.stop();
      server = undefined;
    });

    afterAll(async () => {
      await store?.dispose();
    });

    const startServer = async (): Promise<Client> => {
      server = await store.start(RUNS_CONFIG, RUNS_ENV);
      return sdkClient(server.url);
    };

    const leaveEarly = (promise: Promise<unknown>) => expect(promise).rejects.toThrow(/abort|timeout/i);

    it("cancels a waited run when its client leaves with on_disconnect cancel, and keeps serving", async () => {
      const client = await startServer();
      const threadId = randomUUID();
      await leaveEarly(
        client.runs.wait(threadId, "slow", {
          input: { ms: 60_000, label: "left" },
          ifNotExists: "create",
          onDisconnect: "cancel",
          signal: AbortSignal.timeout(LEAVE_AFTER_MS),
        }),
      );
      // The SDK reports the run id only once the answer arrived, which a client that left never sees.
      const [run] = await client.runs.list(threadId);
      await runReaches(client, threadId, run!.run_id, "interrupted");
      expect((await request(server!.url, "GET", "/ok")).status).toBe(200);
    });

    it("ends a join of a pending run when the run is cancelled", async () => {
      const client = await startServer();
      const { thread_id: threadId } = await client.threads.create();
      const first = await client.runs.create(threadId, "slow", { input: { ms: 60_000, label: "first" } });
      const queued = await client.runs.create(threadId, "slow", { input: { ms: 1, label: "queued" } });
      await runReaches(client, threadId, first.run_id, "running");
      const joined = client.runs.join(threadId, queued.run_id, { signal: AbortSignal.timeout(GIVE_UP_MS) });
      await client.runs.cancel(threadId, queued.run_id);
      await joined;
      await client.runs.cancel(threadId, first.run_id, true);
    });
  });
}
