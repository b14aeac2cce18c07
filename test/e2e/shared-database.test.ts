// Two `gantry dev --shared-database` processes on one SQLite file, as the control plane runs two
// revisions of a deployment during a rollout: the second one's start leaves the first one's live
// run alone, and after SIGUSR2 the first one takes no new run while its API keeps answering and its
// own run finishes there. --start-drained serves the API but takes runs only once resumed.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { sdkClient } from "./http.js";
import { runReaches } from "./runs-support.js";
import { recorded } from "../support/recorded-steps.js";

const CONFIG = fixture("serve", "langgraph.json");
const ENV = { GANTRY_QUEUE_POLL_MS: "200" };

const pidOf = (server: RunningGantry) => Number(/"worker_id":"dev-(\d+)"/.exec(server.output())![1]);
const ALL_STEPS = ["step1", "step2", "step3", "step4", "step5"];

// Three server starts, each up to tens of seconds on a loaded machine; every wait inside is on an event.
describe("gantry dev --shared-database", { timeout: 180_000 }, () => {
  let dir: string;
  const servers: RunningGantry[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-shared-db-"));
  });

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("leaves a live run to its owner at start, and drains on SIGUSR2: no new runs, the API still answers", async () => {
    const dataDir = join(dir, "data");
    const first = await startGantry({ config: CONFIG, dataDir, args: ["--shared-database"], env: ENV });
    servers.push(first);
    const a = sdkClient(first.url);
    const firstFile = join(dir, "first.log");
    // The run holds at its first step until the second server has started and the first has drained.
    const gate = join(dir, "first.gate");
    const thread = await a.threads.create();
    const run = await a.runs.create(thread.thread_id, "steps", { input: { record_file: firstFile, pause_ms: 10, hold_file: gate }, durability: "sync" });
    await runReaches(a, thread.thread_id, run.run_id, "running", 30_000);

    const second = await startGantry({ config: CONFIG, dataDir, args: ["--shared-database"], env: ENV });
    servers.push(second);
    const b = sdkClient(second.url);
    // The scenario holds only if the second process started while the first one's run was running.
    expect((await a.runs.get(thread.thread_id, run.run_id)).status).toBe("running");

    process.kill(pidOf(first), "SIGUSR2");
    // A run created before the signal is handled could still start there: wait for the drain.
    const drainedBy = Date.now() + 60_000;
    while (!first.output().includes("draining: no more runs or crons are taken here")) {
      if (Date.now() > drainedBy) throw new Error(`the first server did not drain:\n${first.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const secondFile = join(dir, "second.log");
    const other = await a.threads.create();
    const later = await a.runs.create(other.thread_id, "steps", { input: { record_file: secondFile, pause_ms: 10 } });
    await runReaches(b, other.thread_id, later.run_id, "success", 30_000);
    expect((await a.runs.get(thread.thread_id, run.run_id)).status).toBe("running");
    await writeFile(gate, "");
    await runReaches(a, thread.thread_id, run.run_id, "success", 30_000);

    const firstSteps = await recorded(firstFile);
    expect(firstSteps.map((s) => s.step)).toEqual(ALL_STEPS);
    expect(new Set(firstSteps.map((s) => s.pid))).toEqual(new Set([pidOf(first)]));
    const secondSteps = await recorded(secondFile);
    expect(secondSteps.map((s) => s.step)).toEqual(ALL_STEPS);
    expect(new Set(secondSteps.map((s) => s.pid))).toEqual(new Set([pidOf(second)]));
  });

  it('--start-drained answers requests but takes runs only after the parent\'s "resume"', async () => {
    const server = await startGantry({ config: CONFIG, dataDir: join(dir, "drained"), args: ["--shared-database", "--start-drained"], env: ENV, ipc: true });
    servers.push(server);
    const client = sdkClient(server.url);
    const file = join(dir, "drained.log");
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: { record_file: file, pause_ms: 10 } });
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("pending");
    server.send("resume");
    await runReaches(client, thread.thread_id, run.run_id, "success", 30_000);
    expect((await recorded(file)).map((s) => s.step)).toEqual(ALL_STEPS);
  });
});
