// PostgreSQL faults under two replicas with runs in flight (issue 31, items 1 and 3): no fault of the
// database ends a replica process, every run finishes, and a step that finished is never executed
// again — only the step under way when an attempt lost the database may be. Short leases, so a run
// whose worker stopped on the outage is taken up again within seconds.
import { afterAll, beforeAll, expect, it } from "vitest";
import { openFaultCluster, GRAPH, SHORT_LEASES, type FaultCluster } from "./fault-cluster.js";
import { extraExecutions, missingNodes, repeatsBeyondStepUnderWay } from "./executions.js";
import { clusterReady, describeFaults, holdFault, reportFigures, runsEnd, until, type RunRef } from "./observe.js";

const STEP_MS = 300;
const RUNS_PER_REPLICA = 3;
const CUTS_PER_TRIAL = 5;
const CHURN_STEP_MS = 20;
const CHURN_RUNS_PER_REPLICA = 40;
const CUT_INTERVAL_MS = 150;
// Ample for a takeover (a lease, a sweep, the rest of the graph); a replica that exited and was
// replaced costs more, and its runs are then reported unfinished.
const RUN_DEADLINE_MS = 30_000;

interface Judged {
  runs: number;
  failedRuns: string[];
  stepsExecutedTwice: number;
  runsRepeatingFinishedSteps: number;
  repeats: string[];
}

/** Prints a scenario's figures, then holds it to them: no replica exited, every run finished, no finished step ran again. */
function judgeTrials(
  scenario: string,
  fault: string,
  { trials, results, exits, recoveryMs }: { trials: number; results: Judged[]; exits: string[]; recoveryMs: number[] },
  extra: Record<string, unknown> = {},
): void {
  const failedRuns = results.flatMap((r) => r.failedRuns);
  const repeats = results.flatMap((r) => r.repeats);
  reportFigures(scenario, {
    ...extra,
    trials,
    runs: results.reduce((n, r) => n + r.runs, 0),
    failed_runs: failedRuns.length,
    steps_executed_twice: results.reduce((n, r) => n + r.stepsExecutedTwice, 0),
    runs_repeating_finished_steps: results.reduce((n, r) => n + r.runsRepeatingFinishedSteps, 0),
    replica_exits: exits.length,
    recovery_ms: recoveryMs,
  });
  expect(exits, `replicas that exited on ${fault}`).toEqual([]);
  expect(failedRuns, "runs that did not finish every step").toEqual([]);
  expect(repeats, "finished steps executed again").toEqual([]);
}

describeFaults("fault suite: PostgreSQL drops under two replicas", () => {
  let cluster: FaultCluster;

  beforeAll(async () => {
    cluster = await openFaultCluster(SHORT_LEASES);
  }, 120_000);

  afterAll(async () => {
    await cluster?.dispose();
  });

  /** Runs on fresh threads, RUNS_PER_REPLICA created through each replica, each past its first step. */
  async function runsUnderWay(label: string): Promise<RunRef[]> {
    await clusterReady(cluster);
    const runs = await Promise.all(
      cluster.replicas.flatMap((replica) =>
        Array.from({ length: RUNS_PER_REPLICA }, async (_, i) => {
          const thread = await replica.client.threads.create();
          const run = await replica.client.runs.create(thread.thread_id, GRAPH, {
            input: { label: `${label}-${replica.name}${i}` },
            config: { configurable: { step_ms: STEP_MS } },
          });
          return { thread_id: thread.thread_id, run_id: run.run_id };
        }),
      ),
    );
    await until("every run to finish its first step", async () =>
      (await Promise.all(runs.map((r) => cluster.executions(r.run_id)))).every((e) => e.length > 0) ? true : undefined,
    );
    return runs;
  }

  /**
   * Short runs created back to back through each replica until stopped: run creations and finishes
   * hold a connection across a transaction's statements, the moment a drop must not turn into a
   * process exit. Returns the runs that were created (a creation refused during the fault is not).
   */
  function churn(label: string): { created(): number; stop(): Promise<RunRef[]> } {
    const created: RunRef[] = [];
    let stopping = false;
    const loops = cluster.replicas.map(async (replica) => {
      for (let i = 0; !stopping && i < CHURN_RUNS_PER_REPLICA; i++) {
        try {
          const thread = await replica.client.threads.create();
          const run = await replica.client.runs.create(thread.thread_id, GRAPH, {
            input: { label: `${label}-churn-${replica.name}${i}` },
            config: { configurable: { step_ms: CHURN_STEP_MS } },
          });
          created.push({ thread_id: thread.thread_id, run_id: run.run_id });
        } catch {
          // Refused while the database is away: the loop goes on, as a client retrying would.
          await holdFault(CHURN_STEP_MS);
        }
      }
    });
    return {
      created: () => created.length,
      async stop() {
        stopping = true;
        await Promise.all(loops);
        return created;
      },
    };
  }

  async function judge(runs: RunRef[], statuses: string[]): Promise<Judged> {
    const judged: Judged = { runs: runs.length, failedRuns: [], stepsExecutedTwice: 0, runsRepeatingFinishedSteps: 0, repeats: [] };
    for (const [i, ref] of runs.entries()) {
      const executions = await cluster.executions(ref.run_id);
      if (statuses[i] !== "success" || missingNodes(executions).length > 0) judged.failedRuns.push(`${ref.run_id}: ${statuses[i]}`);
      judged.stepsExecutedTwice += extraExecutions(executions);
      const repeats = repeatsBeyondStepUnderWay(executions);
      if (repeats.length > 0) {
        judged.runsRepeatingFinishedSteps += 1;
        judged.repeats.push(`${ref.run_id}: ${repeats.join("; ")}`);
      }
    }
    return judged;
  }

  it("keeps both replicas up through fast shutdowns and cut connections, finishes every run, and re-runs no finished step", async () => {
    const restart = async () => {
      await cluster.postgres.stop();
      await cluster.postgres.start();
    };
    // A flapping network: each cut is one more chance to catch a client checked out between two statements.
    const cut = (how: "close" | "reset") => async () => {
      for (let i = 0; i < CUTS_PER_TRIAL; i++) {
        if (i > 0) await holdFault(CUT_INTERVAL_MS);
        for (const replica of cluster.replicas) replica.toPostgres.cutAll(how);
      }
    };
    const faults = [
      { name: "fast shutdown and restart", inject: restart },
      { name: "connections reset by the proxy", inject: cut("reset") },
      { name: "fast shutdown and restart", inject: restart },
      { name: "connections closed by the proxy", inject: cut("close") },
    ];
    const exits: string[] = [];
    const recoveryMs: number[] = [];
    const results: Judged[] = [];
    const trials = faults.length;
    const exitsByFault: string[] = [];
    for (const [trial, fault] of faults.entries()) {
      await clusterReady(cluster);
      const load = churn(`drop${trial}`);
      const underWay = await runsUnderWay(`drop${trial}`);
      await until("short runs to be coming and going", async () => (load.created() >= 2 * cluster.replicas.length ? true : undefined));
      const exitsBefore = exits.length;
      await fault.inject();
      const faultOver = performance.now();
      const runs = [...underWay, ...(await load.stop())];
      const statuses = await runsEnd(cluster, runs, RUN_DEADLINE_MS, { exits, orUnfinished: true });
      recoveryMs.push(Math.round(performance.now() - faultOver));
      exits.push(...(await cluster.replaceExited()));
      exitsByFault.push(`${fault.name}: ${exits.length - exitsBefore}`);
      results.push(await judge(runs, statuses));
    }
    judgeTrials("PostgreSQL drops", "a PostgreSQL drop", { trials, results, exits, recoveryMs }, { exits_per_fault: exitsByFault });
  }, 240_000);

  it("repeats at most the step under way after a PostgreSQL outage mid-run", async () => {
    const exits: string[] = [];
    const recoveryMs: number[] = [];
    const results: Judged[] = [];
    const trials = 2;
    for (let trial = 0; trial < trials; trial++) {
      const runs = await runsUnderWay(`outage${trial}`);
      await cluster.postgres.stop();
      // As long as the rest of the graph takes: a run that went on executing without its
      // checkpoints would finish every remaining step inside the outage.
      await holdFault(4 * STEP_MS);
      await cluster.postgres.start();
      const back = performance.now();
      const statuses = await runsEnd(cluster, runs, RUN_DEADLINE_MS, { exits, orUnfinished: true });
      recoveryMs.push(Math.round(performance.now() - back));
      exits.push(...(await cluster.replaceExited()));
      results.push(await judge(runs, statuses));
    }
    judgeTrials("PostgreSQL outage mid-run", "the outage", { trials, results, exits, recoveryMs });
  }, 180_000);
});
