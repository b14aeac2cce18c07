// How the fault suite watches a cluster through its faults: run statuses read from whichever replica
// answers, log lines, and the figures each scenario reports (trials, runs, repeats, exits, recovery).
import type { Run } from "@langchain/langgraph-sdk";
import { describeWithPostgresBinaries } from "../support/private-postgres.js";
import { describeWithRedisServer } from "../support/private-redis.js";
import type { FaultCluster, LogLine, Replica } from "./fault-cluster.js";

const TERMINAL = new Set(["success", "error", "timeout", "interrupted"]);
const POLL_MS = 100;

const pause = (ms: number) => new Promise<void>((wake) => setTimeout(wake, ms));

/** `describe` when both private servers can run (skipped with the reason otherwise, failing in CI). */
export function describeFaults(name: string, body: () => void): void {
  describeWithPostgresBinaries(name, () => describeWithRedisServer("with a private Redis", body));
}

export interface RunRef {
  thread_id: string;
  run_id: string;
}

export interface RunsEndOptions {
  /** Replicas found exited on the way are replaced (so runs they held are taken over) and named here. */
  exits?: string[];
  /** Ask only these replicas (the others may be frozen). */
  via?: Replica[];
  /** At the deadline, answer "unfinished" for runs still going instead of failing: the scenario reports them. */
  orUnfinished?: boolean;
}

/**
 * Polls until every run has ended, reading each from any replica that answers (one may be refusing
 * during the fault). Returns each run's final status.
 */
export async function runsEnd(cluster: FaultCluster, runs: RunRef[], deadlineMs: number, options: RunsEndOptions = {}): Promise<string[]> {
  const deadline = Date.now() + deadlineMs;
  const statuses = new Map<string, string>();
  let lastExitCheck = Date.now();
  for (;;) {
    for (const ref of runs.filter((r) => !statuses.has(r.run_id))) {
      const status = await statusFromAny(options.via ?? cluster.replicas, ref);
      if (status && TERMINAL.has(status)) statuses.set(ref.run_id, status);
    }
    if (statuses.size === runs.length) return runs.map((r) => statuses.get(r.run_id)!);
    if (options.exits && Date.now() - lastExitCheck > 1_000) {
      options.exits.push(...(await cluster.replaceExited()));
      lastExitCheck = Date.now();
    }
    if (Date.now() > deadline && options.orUnfinished) return runs.map((r) => statuses.get(r.run_id) ?? "unfinished");
    if (Date.now() > deadline) {
      const pending = runs.filter((r) => !statuses.has(r.run_id)).map((r) => r.run_id);
      throw new Error(`Runs did not end within ${deadlineMs / 1000} s: ${pending.join(", ")}`);
    }
    await pause(POLL_MS);
  }
}

async function statusFromAny(replicas: Replica[], ref: RunRef): Promise<Run["status"] | undefined> {
  for (const replica of replicas) {
    try {
      const run = await replica.client.runs.get(ref.thread_id, ref.run_id, { signal: AbortSignal.timeout(2_000) });
      return run.status;
    } catch {
      // Refusing (503) or unreachable during the fault: ask the next replica, or again later.
    }
  }
  return undefined;
}

/** Readiness: PostgreSQL and Redis both reachable (`/ok` asks them with check_db=1; under `gantry serve` before branch `health`, always). */
export const READINESS_PATH = "/ok?check_db=1";

/** Waits until every replica reports itself ready. */
export async function clusterReady(cluster: FaultCluster, deadlineMs = 30_000): Promise<void> {
  await until(
    `every replica to answer ${READINESS_PATH} with 200`,
    async () => {
      const statuses = await Promise.all(
        cluster.replicas.map((r) => fetch(`${r.url}${READINESS_PATH}`, { signal: AbortSignal.timeout(5_000) }).then((res) => res.status)),
      );
      return statuses.every((s) => s === 200) ? true : undefined;
    },
    deadlineMs,
  );
}

/** Polls until the probe returns a value, tolerating the errors a fault causes, or fails after the deadline. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message})` : "";
      throw new Error(`Timed out after ${deadlineMs / 1000} s waiting for ${what}${why}`);
    }
    await pause(POLL_MS);
  }
}

/**
 * Waits for the replica to log a line about the run after character `from` of its output, or for
 * `windowMs` without one. A worker that lost a run shows what it still does with it within the time
 * one execution of the graph takes: the window is that time, not a guess at readiness.
 */
export async function nextLineAbout(replica: Replica, runId: string, from: number, windowMs: number): Promise<LogLine | undefined> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    const line = replica.logs(from).find((l) => l.run_id === runId);
    if (line || Date.now() > deadline) return line;
    await pause(POLL_MS);
  }
}

/** A duration that is the fault itself (an outage held, a stall outlasting a lease), never a wait for readiness. */
export function holdFault(ms: number): Promise<void> {
  return pause(ms);
}

/** One line per scenario with what it observed, for the record in CI logs and reports. */
export function reportFigures(scenario: string, figures: Record<string, unknown>): void {
  console.log(`[faults] ${scenario}: ${JSON.stringify(figures)}`);
}
