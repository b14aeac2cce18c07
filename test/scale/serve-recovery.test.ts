// Replicas that die or are stopped mid-run: the run is never lost. kill -9 leaves a lease that runs
// out; another replica's sweeper requeues the run and it resumes from its last checkpoint (steps
// that finished are not run again). SIGTERM lets a run finish within the grace period, or hands it
// back to the queue at once when the period is over. Lease timings are shortened through the env.
// Each test's replicas are stopped after it, so the next test knows which replica runs its run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { eventually, sdkClient } from "../e2e/http.js";
import { collect, runReaches, threadReaches } from "../e2e/runs-support.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgresAndRedis } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";
import { recorded } from "../support/recorded-steps.js";

const FAST_LEASES = { GANTRY_RUN_LEASE_MS: "1500", GANTRY_RUN_HEARTBEAT_MS: "300", GANTRY_RUN_SWEEP_MS: "500", GANTRY_QUEUE_POLL_MS: "200" };
const PAUSE_MS = 400;

const ALL_STEPS = ["step1", "step2", "step3", "step4", "step5"];

/** The replica whose worker holds the run's lease, then the other one. */
async function byOwner(cluster: ServeCluster, replicas: RunningGantry[], runId: string): Promise<[RunningGantry, RunningGantry]> {
  const [row] = await cluster.query<{ lease_owner: string | null }>("SELECT lease_owner FROM runs WHERE run_id = $1", [runId]);
  const owns = (r: RunningGantry) => r.output().includes(`"worker_id":"${row?.lease_owner}"`);
  const owner = replicas.find(owns);
  const other = replicas.find((r) => !owns(r));
  if (!owner || !other) throw new Error(`No single replica holds run ${runId} (lease owner ${row?.lease_owner})`);
  return [owner, other];
}

await describeWithPostgresAndRedis("gantry serve: runs survive replicas that die or stop", () => {
  let cluster: ServeCluster;
  let dir: string;

  beforeAll(async () => {
    cluster = await openServeCluster(FAST_LEASES);
    dir = await mkdtemp(join(tmpdir(), "gantry-serve-recovery-"));
  });

  afterEach(async () => {
    await cluster?.stopAll();
  });

  afterAll(async () => {
    await cluster?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("resumes a run from its last checkpoint on another replica after its worker is killed, without re-running finished steps", async () => {
    const replicas = await Promise.all([cluster.start("all"), cluster.start("all")]);
    const client = sdkClient(replicas[0]!.url);
    const file = join(dir, "crash.log");
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: { record_file: file, pause_ms: PAUSE_MS }, durability: "sync" });
    // Killed once two steps are checkpointed: those must never run again. The step under way when
    // the process dies runs again (its side effect may or may not have happened): at-least-once.
    const checkpointed = await eventually("two steps to be checkpointed", async () => {
      const state = await client.threads.getState<{ done?: string[] }>(thread.thread_id);
      return (state.values.done?.length ?? 0) >= 2 ? state.values.done! : undefined;
    });
    const [owner, survivor] = await byOwner(cluster, replicas, run.run_id);
    await owner.kill("SIGKILL");

    const survivorClient = sdkClient(survivor.url);
    await runReaches(survivorClient, thread.thread_id, run.run_id, "success", 20_000);
    const steps = await recorded(file);
    for (const name of checkpointed) expect(steps.filter((s) => s.step === name)).toHaveLength(1);
    expect([...new Set(steps.map((s) => s.step))]).toEqual(ALL_STEPS);
    expect(steps.at(-1)!.pid).not.toBe(steps[0]!.pid);
    expect(survivor.output()).toContain("resuming from the run's last checkpoint");

    const finished = await threadReaches(survivorClient, thread.thread_id, "idle");
    expect(finished.values).toMatchObject({ done: ALL_STEPS });
    const replay = await collect(survivorClient.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: ["values"] }));
    const attempts = replay.filter((f) => f.event === "metadata").map((f) => (f.data as { attempt: number }).attempt);
    expect(attempts).toEqual([1, 2]);
    expect(await cluster.query("SELECT thread_id FROM threads WHERE status = 'busy'")).toEqual([]);
  }, 60_000);

  it("hands a run back at SIGTERM when the grace period is over, and another replica finishes it from its checkpoint", async () => {
    const replicas = await Promise.all([0, 1].map(() => cluster.start("all", { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0.2" })));
    const client = sdkClient(replicas[0]!.url);
    const file = join(dir, "handoff.log");
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: { record_file: file, pause_ms: PAUSE_MS }, durability: "sync" });
    await eventually("a step to be checkpointed", async () => {
      const state = await client.threads.getState<{ done?: string[] }>(thread.thread_id);
      return (state.values.done?.length ?? 0) >= 1 ? true : undefined;
    });
    const [leaving, staying] = await byOwner(cluster, replicas, run.run_id);
    await leaving.kill("SIGTERM");
    expect(leaving.output()).toContain("run handed back to the queue");

    const stayingClient = sdkClient(staying.url);
    await runReaches(stayingClient, thread.thread_id, run.run_id, "success", 20_000);
    const steps = await recorded(file);
    expect([...new Set(steps.map((s) => s.step))]).toEqual(ALL_STEPS);
    expect(steps.filter((s) => s.step === "step1")).toHaveLength(1);
    await threadReaches(stayingClient, thread.thread_id, "idle");
  }, 60_000);

  it("lets a run finish within the grace period at SIGTERM", async () => {
    const leaving = await cluster.start("all", { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "30" });
    const client = sdkClient(leaving.url);
    const file = join(dir, "grace.log");
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: { record_file: file, pause_ms: 100 } });
    await eventually("a step to finish", async () => ((await recorded(file)).length >= 1 ? true : undefined));
    await leaving.kill("SIGTERM");

    const steps = await recorded(file);
    expect(steps.map((s) => s.step)).toEqual(ALL_STEPS);
    expect(new Set(steps.map((s) => s.pid)).size).toBe(1);
    const [row] = await cluster.query<{ status: string }>("SELECT status FROM runs WHERE run_id = $1", [run.run_id]);
    expect(row?.status).toBe("success");
  }, 60_000);
});
