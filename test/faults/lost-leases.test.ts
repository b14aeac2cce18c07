// Fencing (issue 31, item 2): one execution per run, whatever the clocks do. A replica frozen past its
// lease while running a run loses it to the other replica, which finishes it; once thawed, the frozen
// one writes nothing more (the thread's history holds one execution's checkpoints) and runs no
// further step. A run created while its replica's Redis stalls for longer than a lease is executed
// once: its lease is kept from the moment it is claimed. Short leases, so the lapses take seconds.
import { afterAll, beforeAll, expect, it } from "vitest";
import { GRAPH, openFaultCluster, SHORT_LEASES, type FaultCluster, type Replica } from "./fault-cluster.js";
import { extraExecutions, missingNodes, NODES, repeatsBeyondStepUnderWay } from "./executions.js";
import { clusterReady, describeFaults, holdFault, nextLineAbout, reportFigures, runsEnd, until, type RunRef } from "./observe.js";

const LEASE_MS = Number(SHORT_LEASES.GANTRY_RUN_LEASE_MS);
const SWEEP_MS = Number(SHORT_LEASES.GANTRY_RUN_SWEEP_MS);
const RUN_DEADLINE_MS = 30_000;
/** a → stream → b → c with their input: one execution's checkpoints. */
const CHECKPOINTS_OF_ONE_EXECUTION = 6;

describeFaults("fault suite: workers that lost their lease", () => {
  let cluster: FaultCluster;

  beforeAll(async () => {
    cluster = await openFaultCluster(SHORT_LEASES);
  }, 120_000);

  afterAll(async () => {
    await cluster?.dispose();
  });

  async function createRuns(replica: Replica, count: number, stepMs: number): Promise<RunRef[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const thread = await replica.client.threads.create();
        const run = await replica.client.runs.create(thread.thread_id, GRAPH, { input: { label: `run${i}` }, config: { configurable: { step_ms: stepMs } } });
        return { thread_id: thread.thread_id, run_id: run.run_id };
      }),
    );
  }

  /** Resolves once every thread's run has a step finished by a later attempt, or after `boundMs`. */
  async function takenOverOrAfter(threads: Array<{ thread_id: string }>, other: Replica, boundMs: number): Promise<void> {
    const bound = holdFault(boundMs).then(() => undefined);
    const takenOver = until(
      "the runs to be taken over",
      async () => {
        const listed = await Promise.all(threads.map((t) => other.client.runs.list(t.thread_id)));
        if (!listed.every((l) => l.length === 1)) return undefined;
        const executions = await Promise.all(listed.map((l) => cluster.executions(l[0]!.run_id)));
        return executions.every((e) => e.some((x) => x.attempt > 1)) ? true : undefined;
      },
      boundMs,
    ).catch(() => undefined);
    await Promise.race([bound, takenOver]);
  }

  it("lets the other replica finish the runs of a replica frozen past its lease, and the thawed one writes nothing more", async () => {
    const stepMs = 600;
    await clusterReady(cluster);
    const runs = await createRuns(cluster.replicas[0]!, 2, stepMs);
    // Frozen once every run has finished `a`: each is in `stream` on the replica that claimed it.
    const firsts = await until("every run to finish its first step", async () => {
      const all = await Promise.all(runs.map((r) => cluster.executions(r.run_id)));
      return all.every((e) => e.length > 0) ? all.map((e) => e[0]!) : undefined;
    });
    const frozen = cluster.byPid(firsts[0]!.pid);
    const other = cluster.replicas.find((r) => r !== frozen)!;
    const frozenRuns = runs.filter((_, i) => firsts[i]!.pid === frozen.pid);
    process.kill(frozen.pid, "SIGSTOP");
    const frozenAt = performance.now();
    let thawedAt = 0;
    let thawedFrom = 0;
    let statuses: string[];
    try {
      // Held until the other replica has taken the runs over and finished them: necessarily past the lease.
      statuses = await runsEnd(cluster, frozenRuns, RUN_DEADLINE_MS, { via: [other] });
    } finally {
      thawedFrom = frozen.gantry.output().length;
      process.kill(frozen.pid, "SIGCONT");
      thawedAt = performance.now();
    }
    const frozenMs = Math.round(thawedAt - frozenAt);
    // What the thawed replica still does with a run it lost shows within one execution of the graph.
    for (const run of frozenRuns) await nextLineAbout(frozen, run.run_id, thawedFrom, NODES.length * stepMs + 2 * LEASE_MS);

    const figures = {
      trials: 1,
      runs: frozenRuns.length,
      frozen_ms: frozenMs,
      steps_executed_twice: 0,
      steps_after_thaw: 0,
      checkpoints: [] as number[],
      replica_exits: 0,
    };
    const problems: string[] = [];
    for (const [i, run] of frozenRuns.entries()) {
      const executions = await cluster.executions(run.run_id);
      figures.steps_executed_twice += extraExecutions(executions);
      // The thawed worker may finish the step it was in (it cannot know before its next write); nothing after it.
      const fromFrozen = executions.filter((e) => e.pid === frozen.pid);
      const afterThaw = fromFrozen.slice(1);
      figures.steps_after_thaw += Math.max(0, afterThaw.length - 1);
      const history = await other.client.threads.getHistory(run.thread_id, { limit: 50 });
      figures.checkpoints.push(history.length);
      if (statuses[i] !== "success") problems.push(`${run.run_id} ended ${statuses[i]}`);
      if (missingNodes(executions).length > 0) problems.push(`${run.run_id} never ran ${missingNodes(executions).join(", ")}`);
      if (!executions.some((e) => e.pid === other.pid)) problems.push(`${run.run_id} was not taken over by the other replica`);
      if (afterThaw.length > 1) problems.push(`${run.run_id}: the thawed replica ran ${afterThaw.map((e) => e.node).join(", ")}`);
      const repeats = repeatsBeyondStepUnderWay(executions);
      if (repeats.length > 0) problems.push(`${run.run_id} repeated finished steps: ${repeats.join("; ")}`);
      if (history.length !== CHECKPOINTS_OF_ONE_EXECUTION) problems.push(`${run.run_id}'s thread has ${history.length} checkpoints`);
    }
    const exits = await cluster.replaceExited();
    figures.replica_exits = exits.length;
    reportFigures("replica frozen past its lease", figures);
    expect(frozenMs, "the replica was frozen past its lease").toBeGreaterThan(LEASE_MS);
    expect(exits).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);

  it("executes once a run created while its replica's Redis stalls for longer than a lease", async () => {
    const stepMs = 300;
    await clusterReady(cluster);
    const [stalled, other] = cluster.replicas as [Replica, Replica];
    const threads = await Promise.all([0, 1].map(() => stalled.client.threads.create()));
    stalled.toRedis.pause();
    const stalledFrom = stalled.gantry.output().length;
    let creations: Array<Promise<unknown>> = [];
    try {
      creations = threads.map((t, i) =>
        stalled.client.runs.create(t.thread_id, GRAPH, { input: { label: `stalled${i}` }, config: { configurable: { step_ms: stepMs } } }),
      );
      for (const c of creations) c.catch(() => {});
      // The stall outlasts the lease. It ends once the other replica has taken the runs over and is
      // executing them, the worst moment for the stalled one to start them too; or, if nobody takes
      // them over (their lease is kept), after a lapse, a sweep and a claim elsewhere would have had time.
      await takenOverOrAfter(threads, other, 2 * LEASE_MS + SWEEP_MS);
    } finally {
      stalled.toRedis.resume();
    }
    const created = await Promise.allSettled(creations);
    const runs = await until("the runs to be listed", async () => {
      const listed = await Promise.all(threads.map((t) => other.client.runs.list(t.thread_id)));
      return listed.every((l) => l.length === 1) ? listed.map((l, i) => ({ thread_id: threads[i]!.thread_id, run_id: l[0]!.run_id })) : undefined;
    });
    const statuses = await runsEnd(cluster, runs, RUN_DEADLINE_MS);
    // An execution the stalled replica started at the end of the stall shows within one execution of the graph.
    for (const run of runs) await nextLineAbout(stalled, run.run_id, stalledFrom, NODES.length * stepMs + 2 * LEASE_MS);

    const figures = { trials: 1, runs: runs.length, create_failures: 0, executions_per_run: [] as number[], steps_executed_twice: 0, replica_exits: 0 };
    figures.create_failures = created.filter((c) => c.status === "rejected").length;
    const problems: string[] = [];
    for (const [i, run] of runs.entries()) {
      const executions = await cluster.executions(run.run_id);
      figures.executions_per_run.push(Math.max(...NODES.map((n) => executions.filter((e) => e.node === n).length)));
      figures.steps_executed_twice += extraExecutions(executions);
      if (statuses[i] !== "success") problems.push(`${run.run_id} ended ${statuses[i]}`);
      if (missingNodes(executions).length > 0) problems.push(`${run.run_id} never ran ${missingNodes(executions).join(", ")}`);
      if (extraExecutions(executions) > 0) {
        problems.push(`${run.run_id} executed more than once: ${executions.map((e) => `${e.node}@${e.attempt}/${e.pid}`).join(" ")}`);
      }
    }
    const exits = await cluster.replaceExited();
    figures.replica_exits = exits.length;
    reportFigures("Redis stalled during run creation", figures);
    expect(exits).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);
});
