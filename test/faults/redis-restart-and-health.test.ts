// Redis restarted empty under streaming readers, and what a replica answers its probes and clients
// while a dependency hangs or is down (issue 31, items 4 and 5). The cluster runs with the default
// lease timings: nothing here waits for a lease, and the defaults are what operators run.
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CUSTOM_EVENTS } from "../fixtures/faults/src/recorded-chain.js";
import { openFaultCluster, GRAPH, type FaultCluster, type Replica } from "./fault-cluster.js";
import { NODES } from "./executions.js";
import { clusterReady, describeFaults, READINESS_PATH, reportFigures, runsEnd, until } from "./observe.js";

/** Liveness: the process alone (branch `health`, issue 31 item 5: `/ok` without check_db). */
const LIVENESS_PATH = "/ok";
const PROBE_BUDGET_MS = 1_000;
const READER_DEADLINE_MS = 30_000;

type Part = { event: string; data: unknown; id?: string };
type Ending = "complete" | "error" | "short" | "hung";

interface Read {
  parts: Part[];
  thrown?: Error;
}

async function readAll(stream: AsyncIterable<Part>): Promise<Read> {
  const parts: Part[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (err) {
    return { parts, thrown: err as Error };
  }
}

const customIndices = (parts: Part[]) => parts.filter((p) => p.event === "custom").map((p) => (p.data as { i: number }).i);

/**
 * How a reader's stream ended. Complete: every custom event from `firstIndex` on and the final
 * values of the whole graph. Otherwise it must say so (an `error` event, or a failed request); a
 * stream that just ends is short. Custom events live only in the event log, so a server that lost
 * them can complete a reader's values from the checkpoint but owes a reader of custom events an error.
 */
function ending(read: Read, firstIndex: number): { ending: Ending; missing: string[] } {
  const seen = new Set(customIndices(read.parts));
  const expected = Array.from({ length: CUSTOM_EVENTS - firstIndex }, (_, k) => firstIndex + k);
  const last = read.parts.filter((p) => p.event === "values").at(-1)?.data as { done?: string[] } | undefined;
  const missing = [
    ...expected.filter((i) => !seen.has(i)).map((i) => `custom ${i}`),
    ...(JSON.stringify(last?.done) === JSON.stringify(NODES) ? [] : ["final values"]),
  ];
  if ((read.thrown as { name?: string } | undefined)?.name === "TimeoutError") return { ending: "hung", missing };
  if (missing.length === 0) return { ending: "complete", missing };
  if (read.thrown || read.parts.some((p) => p.event === "error")) return { ending: "error", missing };
  return { ending: "short", missing };
}

async function timed(url: string, path: string): Promise<{ status: number | "no answer"; ms: number; retryAfter: string | null }> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return { status: response.status, ms: Math.round(performance.now() - started), retryAfter: response.headers.get("retry-after") };
  } catch {
    return { status: "no answer", ms: Math.round(performance.now() - started), retryAfter: null };
  }
}

describeFaults("fault suite: Redis restarts and health, default lease timings", () => {
  let cluster: FaultCluster;

  beforeAll(async () => {
    cluster = await openFaultCluster();
  }, 120_000);

  afterAll(async () => {
    await cluster?.dispose();
  });

  it("ends a followed or rejoined stream with an error or in full when Redis restarts empty mid-stream, never short", async () => {
    const trials = 2;
    const endings: Record<string, Array<{ ending: Ending; missing: string[] }>> = { joined: [], rejoinedDuring: [], rejoinedAfter: [] };
    const statuses: string[] = [];
    const recoveryMs: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      await clusterReady(cluster);
      const [live, other] = cluster.replicas as [Replica, Replica];
      const thread = await live.client.threads.create();
      const streamMode = ["custom", "values"] as const;
      // Events 400 ms apart: the restart lands among them.
      const config = { configurable: { step_ms: 300, event_ms: 400 } };
      let runId: string | undefined;
      const dropped = new AbortController();
      const firstParts: Part[] = [];
      const stream = live.client.runs.stream(thread.thread_id, GRAPH, {
        input: { label: `restart${trial}` },
        streamMode: [...streamMode],
        streamResumable: true,
        config,
        signal: dropped.signal,
        onRunCreated: ({ run_id }) => (runId = run_id),
      });
      // The client drops its stream after three custom events, to rejoin on the other replica.
      for await (const part of stream) {
        firstParts.push(part);
        if (customIndices(firstParts).length === 3) break;
      }
      dropped.abort();
      const lastEventId = firstParts.at(-1)!.id!;
      const run = { thread_id: thread.thread_id, run_id: runId! };

      // A reader following the run from its start on the other replica, through the restart.
      const followerParts: Part[] = [];
      const following = readAll(
        (async function* () {
          for await (const part of other.client.runs.joinStream(run.thread_id, run.run_id, {
            lastEventId: "-1",
            streamMode: [...streamMode],
            signal: AbortSignal.timeout(READER_DEADLINE_MS),
          })) {
            followerParts.push(part);
            yield part;
          }
        })(),
      );
      // Redis restarts once the run has written events the dropped client has not read (3 and 4).
      await until("the run to emit two events past the drop", async () => (customIndices(followerParts).length >= 5 ? true : undefined));
      await cluster.redis.restart();
      const restarted = performance.now();
      const rejoin = () =>
        readAll(
          other.client.runs.joinStream(run.thread_id, run.run_id, {
            lastEventId,
            streamMode: [...streamMode],
            signal: AbortSignal.timeout(READER_DEADLINE_MS),
          }),
        );
      // The dropped client rejoins on the other replica while the run goes on, or only after it has ended.
      const rejoinedDuring = await rejoin();
      statuses.push(...(await runsEnd(cluster, [run], READER_DEADLINE_MS)));
      recoveryMs.push(Math.round(performance.now() - restarted));
      const rejoinedAfter = await rejoin();
      endings.joined!.push(ending(await following, 0));
      endings.rejoinedDuring!.push(ending(rejoinedDuring, 3));
      endings.rejoinedAfter!.push(ending(rejoinedAfter, 3));
    }
    const exits = await cluster.replaceExited();
    const all = Object.values(endings)
      .flat()
      .map((e) => e.ending);
    reportFigures("Redis restarted empty mid-stream", {
      trials,
      runs: trials,
      streams: all.length,
      streams_ended_short: all.filter((e) => e === "short").length,
      streams_hung: all.filter((e) => e === "hung").length,
      endings,
      run_statuses: statuses,
      replica_exits: exits.length,
      recovery_ms: recoveryMs,
    });
    expect(exits).toEqual([]);
    expect(statuses.every((s) => s === "success")).toBe(true);
    expect(
      all.filter((e) => e === "short" || e === "hung"),
      "streams that ended short or hung",
    ).toEqual([]);
  }, 120_000);

  it("answers liveness with 200 and readiness with 503, each within a second, while PostgreSQL or Redis hangs", async () => {
    await clusterReady(cluster);
    const replica = cluster.replicas[0]!;
    const answers: Record<string, Array<Awaited<ReturnType<typeof timed>>>> = {};
    for (const [dependency, proxy] of [
      ["PostgreSQL", replica.toPostgres],
      ["Redis", replica.toRedis],
    ] as const) {
      proxy.pause();
      try {
        answers[dependency] = [await timed(replica.url, LIVENESS_PATH), await timed(replica.url, READINESS_PATH)];
      } finally {
        proxy.resume();
      }
      await clusterReady(cluster);
    }
    const exits = await cluster.replaceExited();
    reportFigures("health while a dependency hangs", { answers, replica_exits: exits.length });
    expect(exits).toEqual([]);
    for (const dependency of ["PostgreSQL", "Redis"]) {
      const [liveness, readiness] = answers[dependency]!;
      expect({ dependency, liveness: liveness!.status }).toEqual({ dependency, liveness: 200 });
      expect({ dependency, readiness: readiness!.status }).toEqual({ dependency, readiness: 503 });
      expect(liveness!.ms, `liveness while ${dependency} hangs`).toBeLessThan(PROBE_BUDGET_MS);
      expect(readiness!.ms, `readiness while ${dependency} hangs`).toBeLessThan(PROBE_BUDGET_MS);
    }
  }, 60_000);

  it("refuses the API with 503 and Retry-After while PostgreSQL is down", async () => {
    await clusterReady(cluster);
    const replica = cluster.replicas[0]!;
    const client: Client = replica.client;
    const thread = await client.threads.create();
    await cluster.postgres.stop();
    let refusals: Array<Awaited<ReturnType<typeof timed>> & { path: string }> = [];
    try {
      const paths = [`/threads/${thread.thread_id}`, `/threads/${thread.thread_id}/state`, `/threads/${thread.thread_id}/runs`];
      refusals = await until("the replica to refuse while PostgreSQL is down", async () => {
        const answered = await Promise.all(paths.map(async (path) => ({ path, ...(await timed(replica.url, path)) })));
        return answered.every((a) => a.status === 503) ? answered : undefined;
      });
    } finally {
      await cluster.postgres.start();
    }
    await clusterReady(cluster);
    reportFigures("API refusals while PostgreSQL is down", {
      refusals: refusals.length,
      with_retry_after: refusals.filter((r) => r.retryAfter !== null).length,
      answers: refusals,
    });
    for (const refusal of refusals)
      expect({ path: refusal.path, retryAfter: refusal.retryAfter }).toEqual({ path: refusal.path, retryAfter: expect.stringMatching(/^\d+$/) });
  }, 60_000);
});
