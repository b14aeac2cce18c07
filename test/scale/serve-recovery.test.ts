// Replicas that die or are stopped mid-run: the run is never lost. kill -9 leaves a lease that runs
// out; another replica's sweeper requeues the run and it resumes from its last checkpoint (steps
// that finished are not run again). SIGTERM lets a run finish within the grace period, or hands it
// back to the queue at once when the period is over. Lease timings are shortened through the env.
// Each test stops the replicas it started, so the next one knows which replica runs its run.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, sdkClient } from "../e2e/http.js";
import { collect, runReaches, threadReaches } from "../e2e/runs-support.js";
import { describeWithPostgresAndRedis } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";

const FAST_LEASES = { GANTRY_RUN_LEASE_MS: "1500", GANTRY_RUN_HEARTBEAT_MS: "300", GANTRY_RUN_SWEEP_MS: "500", GANTRY_QUEUE_POLL_MS: "200" };
const PAUSE_MS = 400;

async function recorded(file: string): Promise<Array<{ step: string; pid: number }>> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [step, pid] = line.split(" ");
      return { step: step!, pid: Number(pid) };
    });
}

const ALL_STEPS = ["step1", "step2", "step3", "step4", "step5"];

await describeWithPostgresAndRedis("gantry serve: runs survive replicas that die or stop", () => {
  let cluster: ServeCluster;
  let dir: string;

  beforeAll(async () => {
    cluster = await openServeCluster(FAST_LEASES);
    dir = await mkdtemp(join(tmpdir(), "gantry-serve-recovery-"));
  });

  afterAll(async () => {
    await cluster?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("resumes a run from its last checkpoint on another replica after its worker is killed, without re-running finished steps", async () => {
    const a = await cluster.start("all");
    const clientA = sdkClient(a.url);
    const file = join(dir, "crash.log");
    const thread = await clientA.threads.create();
    const run = await clientA.runs.create(thread.thread_id, "steps", { input: { record_file: file, pause_ms: PAUSE_MS }, durability: "sync" });
    const beforeCrash = await eventually("two steps to finish on A", async () => {
      const steps = await recorded(file);
      return steps.length >= 2 ? steps : undefined;
    });
    await a.kill("SIGKILL");
    const stepsBeforeCrash = await recorded(file);

    const b = await cluster.start("all");
    const clientB = sdkClient(b.url);
    await runReaches(clientB, thread.thread_id, run.run_id, "success", 20_000);
    const steps = await recorded(file);
    expect(steps.map((s) => s.step)).toEqual(ALL_STEPS);
    expect(steps.slice(0, stepsBeforeCrash.length)).toEqual(stepsBeforeCrash);
    expect(beforeCrash.every((s) => s.pid !== steps.at(-1)!.pid)).toBe(true);

    const finished = await threadReaches(clientB, thread.thread_id, "idle");
    expect(finished.values).toMatchObject({ done: ALL_STEPS });
    const replay = await collect(clientB.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: ["values"] }));
    const attempts = replay.filter((f) => f.event === "metadata").map((f) => (f.data as { attempt: number }).attempt);
    expect(attempts).toEqual([1, 2]);
    expect(await cluster.query("SELECT thread_id FROM threads WHERE status = 'busy'")).toEqual([]);
    await b.stop();
  });

  it("hands a run back at SIGTERM when the grace period is over, and another replica finishes it from its checkpoint", async () => {
    const leaving = await cluster.start("all", { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0.2" });
    const staying = await cluster.start("api");
    const stayingUrl = staying.url;
    const client = sdkClient(leaving.url);
    const file = join(dir, "handoff.log");
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: { record_file: file, pause_ms: PAUSE_MS }, durability: "sync" });
    await eventually("a step to finish", async () => ((await recorded(file)).length >= 1 ? true : undefined));
    await leaving.kill("SIGTERM");
    expect(leaving.output()).toContain("run handed back to the queue");

    const pending = await sdkClient(stayingUrl).runs.get(thread.thread_id, run.run_id);
    expect(["pending", "running", "success"]).toContain(pending.status);
    const worker = await cluster.start("worker");
    expect((await fetch(`${worker.url}/ok`)).status).toBe(200);
    await runReaches(sdkClient(stayingUrl), thread.thread_id, run.run_id, "success", 20_000);
    expect((await recorded(file)).map((s) => s.step)).toEqual(ALL_STEPS);
    await threadReaches(sdkClient(stayingUrl), thread.thread_id, "idle");
    await Promise.all([staying.stop(), worker.stop()]);
  });

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
  });
});
