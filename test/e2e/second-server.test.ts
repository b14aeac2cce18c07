// A second `gantry dev` started by mistake next to a live one (a double `npm start`): on the same
// data directory it stops at the directory's lock, on the same port at the port, and either way it
// exits non-zero with one message before its start-up recovery touches the live server's run.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { runGantryExpectingFailure, startGantry, type RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgres, freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { sdkClient } from "./http.js";
import { runReaches, RUNS_CONFIG, RUNS_ENV } from "./runs-support.js";

const started: RunningGantry[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const server of started.splice(0)) await server.stop();
  for (const schema of schemas.splice(0)) await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

/** A run of the slow graph, running on `server` for the next minute. */
async function liveRun(server: RunningGantry): Promise<{ client: Client; threadId: string; runId: string }> {
  const client = sdkClient(server.url);
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, "slow", { input: { ms: 60_000, label: "live" } });
  await runReaches(client, thread.thread_id, run.run_id, "running");
  return { client, threadId: thread.thread_id, runId: run.run_id };
}

/** The live run is still the first server's: running, and finishing there when cancelled. */
async function expectUntouched(server: RunningGantry, live: { client: Client; threadId: string; runId: string }): Promise<void> {
  const run = await live.client.runs.get(live.threadId, live.runId);
  expect(run.status).toBe("running");
  expect(server.output()).not.toContain("recovered runs");
  await live.client.runs.cancel(live.threadId, live.runId, true);
  expect((await live.client.runs.get(live.threadId, live.runId)).status).toBe("interrupted");
}

describe("a second gantry dev on the same data directory", () => {
  // One first server for both cases: the second case ends it with a kill -9, as the first no
  // longer needs it, and a server start is most of what each case costs.
  let first: RunningGantry;
  beforeAll(async () => {
    first = await startGantry({ config: RUNS_CONFIG, env: RUNS_ENV });
  });
  afterAll(async () => {
    await first?.stop();
  });

  it("exits non-zero naming the directory, and leaves the live server's run alone", async () => {
    const live = await liveRun(first);

    const second = await runGantryExpectingFailure(["dev", "--config", RUNS_CONFIG, "--port", "0", "--data-dir", first.dataDir], RUNS_ENV);

    expect(second.code).not.toBe(0);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toContain(`The data directory ${first.dataDir} is in use by another running Gantry`);
    expect(second.stderr).toContain("--data-dir");
    expect(second.stdout).not.toContain("recovered runs");
    await expectUntouched(first, live);
  }, 90_000);

  it("starts once the first one has stopped, even after a kill -9 left no clean shutdown", async () => {
    await first.kill("SIGKILL");
    const again = await startGantry({ config: RUNS_CONFIG, env: RUNS_ENV, dataDir: first.dataDir });
    started.push(again);
    expect((await fetch(`${again.url}/ok`)).status).toBe(200);
  }, 90_000);
});

await describeWithPostgres("a second gantry dev on the same PostgreSQL database and port", () => {
  it("fails to bind before it recovers anything, and leaves the live server's run alone", async () => {
    const schema = freshSchemaName();
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const env = { ...RUNS_ENV, DATABASE_URL: url.toString() };
    const first = await startGantry({ config: RUNS_CONFIG, env });
    started.push(first);
    const live = await liveRun(first);

    const second = await runGantryExpectingFailure(["dev", "--config", RUNS_CONFIG, "--port", String(first.port)], env);

    expect(second.code).not.toBe(0);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toContain(`Port ${first.port} on 127.0.0.1 is already in use`);
    expect(second.stdout).not.toContain("recovered runs");
    await expectUntouched(first, live);
  }, 90_000);
});
