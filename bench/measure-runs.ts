// Run-engine metrics through the official SDK: sequential runs.wait on one thread, concurrent
// stateless throughput (with the bare-HTTP floor under the same load), background pickup and
// join, and SSE custom-event throughput. Every answer is checked; wrong ones go to the tally.
import type { Client } from "@langchain/langgraph-sdk";
import { alternate, describeError, warmUpEach, type ErrorTally, type Row, type Target, type TargetName } from "./bench-target.js";
import type { InProcessEcho } from "./in-process-floor.js";
import { loadFor, percentile } from "./stats.js";

export interface RunCounts {
  /** Sequential waits per graph, per target: the reference's join polls every 500 ms. */
  sequential: Record<TargetName, number>;
  concurrentSeconds: number;
  concurrency: number;
  /** Background runs per target, half timed to leaving `pending`, half to `runs.join` returning. */
  pickups: Record<TargetName, number>;
  customEvents: number;
  streams: number;
}

const ROUNDS = 5;

/** A sequential caller: answers one message at a time and should echo it back. */
interface Participant {
  name: TargetName | "floor" | "invoke";
  call(message: string): Promise<{ message?: string; steps?: number }>;
}

export interface SequentialEchoResult {
  rows: Row[];
  /** p50 of the in-process graph.invoke that took its turns in the same rounds. */
  invokeP50: number;
  invokeSamples: number;
}

/** The bare-HTTP floor and the in-process invoke, when given, take their turns in the same rounds. */
async function sequentialWaits(
  targets: Target[],
  counts: RunCounts,
  errors: ErrorTally,
  graph: "echo" | "chain",
  extras: { floor?: Client; invoke?: InProcessEcho } = {},
): Promise<{ rows: Row[]; times: Record<string, number[]> }> {
  const metric = `sequential runs.wait, ${graph === "echo" ? "one-node echo" : "ten-node chain"}`;
  const times: Record<string, number[]> = { gantry: [], reference: [], floor: [], invoke: [] };
  const participants: Participant[] = [];
  for (const target of targets) {
    const threadId = (await target.client.threads.create()).thread_id;
    participants.push({
      name: target.name,
      call: (message) => target.client.runs.wait(threadId, graph, { input: { message, steps: 0 } }) as Promise<{ message?: string }>,
    });
  }
  const { floor, invoke } = extras;
  if (floor)
    participants.push({ name: "floor", call: (message) => floor.runs.wait(null, graph, { input: { message, steps: 0 } }) as Promise<{ message?: string }> });
  if (invoke) participants.push({ name: "invoke", call: (message) => invoke.invoke(message) });
  // A reference wait takes about half a second: taking turns with it, Gantry sat idle for seconds
  // before each round and started every one cold (+0.6 ms p50 for rounds of 60 after 4.5 s idle,
  // measured), which sequential calls from a busy client never see. The reference gets rounds of
  // its own; Gantry, the floor and the in-process invoke take turns among themselves.
  const takeTurn = async (participant: Participant, round: number) => {
    const perRound = Math.ceil(counts.sequential[participant.name === "reference" ? "reference" : "gantry"] / ROUNDS);
    for (let i = 0; i < perRound; i++) {
      const message = participant.name === "floor" ? "floor" : `m${round}-${i}`;
      const t0 = performance.now();
      try {
        const out = await participant.call(message);
        times[participant.name]!.push(performance.now() - t0);
        const chainDone = graph !== "chain" || participant.name === "floor" || out.steps === 10;
        if (out.message !== message || !chainDone) errors.add(participant.name, metric, `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
      } catch (error) {
        errors.add(participant.name, metric, describeError(error));
      }
    }
  };
  await alternate(
    participants.filter((p) => p.name !== "reference"),
    ROUNDS,
    takeTurn,
  );
  await alternate(
    participants.filter((p) => p.name === "reference"),
    ROUNDS,
    takeTurn,
  );
  const rows = [50, 95, 99].map((p) => ({
    metric: `${metric} p${p}`,
    unit: "ms",
    better: "lower" as const,
    gantry: percentile(times.gantry!, p),
    reference: percentile(times.reference!, p),
    ...(floor ? { floor: percentile(times.floor!, p) } : {}),
    ...(p === 50 ? { goal: { ratio: 1 / 3 } } : {}),
    samples: { gantry: times.gantry!.length, reference: times.reference!.length, ...(floor ? { floor: times.floor!.length } : {}) },
  }));
  return { rows, times };
}

export async function sequentialEcho(
  targets: Target[],
  counts: RunCounts,
  errors: ErrorTally,
  floor: Client,
  invoke: InProcessEcho,
): Promise<SequentialEchoResult> {
  const { rows, times } = await sequentialWaits(targets, counts, errors, "echo", { floor, invoke });
  return { rows, invokeP50: percentile(times.invoke!, 50), invokeSamples: times.invoke!.length };
}

export const sequentialChain = async (targets: Target[], counts: RunCounts, errors: ErrorTally) =>
  (await sequentialWaits(targets, counts, errors, "chain")).rows;

/** The in-process invoke gets the servers' warm-up time too, on its own: it serves nothing else. */
export async function warmUpInProcess(invoke: InProcessEcho, seconds: number, errors: ErrorTally): Promise<void> {
  await warmUpEach([invoke], seconds, async (_, message) => {
    const out = await invoke.invoke(message);
    if (out.message !== message) errors.add("invoke", "warm-up", `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
  });
}

/**
 * Before anything is timed, each server answers the calls the metrics make for the same wall time:
 * figures then describe servers in their steady state (JIT-compiled, caches and pools filled), as
 * in production, not the first few hundred requests of a process. Answers are still checked.
 */
export async function warmUp(targets: Target[], seconds: number, errors: ErrorTally): Promise<void> {
  const metric = "warm-up";
  for (const target of targets) {
    const { client } = target;
    const threadId = (await client.threads.create()).thread_id;
    await loadFor(seconds, 4, async (worker, n) => {
      const message = `warm${worker}-${n}`;
      try {
        // A thread keeps to one graph; the stateless clients take turns with both.
        const graph = worker === 0 || n % 2 === 0 ? "echo" : "chain";
        const payload = { input: { message, steps: 0 } };
        const out = (await (worker === 0 ? client.runs.wait(threadId, graph, payload) : client.runs.wait(null, graph, payload))) as { message?: string };
        if (out.message !== message) errors.add(target.name, metric, `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
      } catch (error) {
        errors.add(target.name, metric, describeError(error));
      }
    });
  }
}

/** 32 clients doing stateless runs.wait against each server and against the bare-HTTP floor. */
export async function concurrentWaits(targets: Array<{ name: TargetName | "floor"; client: Client }>, counts: RunCounts, errors: ErrorTally): Promise<Row[]> {
  const metric = `stateless runs.wait, ${counts.concurrency} concurrent clients`;
  const done: Record<string, { completed: number; seconds: number }> = {};
  await alternate(targets, 2, async (target) => {
    let completed = 0;
    const seconds = await loadFor(counts.concurrentSeconds / 2, counts.concurrency, async (client, n) => {
      const message = target.name === "floor" ? "floor" : `w${client}-${n}`;
      try {
        const out = (await target.client.runs.wait(null, "echo", { input: { message } })) as { message?: string };
        if (out.message === message) completed += 1;
        else errors.add(target.name, metric, `unexpected output ${JSON.stringify(out).slice(0, 100)}`);
      } catch (error) {
        errors.add(target.name, metric, describeError(error));
      }
    });
    const sofar = done[target.name] ?? { completed: 0, seconds: 0 };
    done[target.name] = { completed: sofar.completed + completed, seconds: sofar.seconds + seconds };
  });
  const rate = (name: string) => (done[name] ? done[name].completed / done[name].seconds : undefined);
  return [
    {
      metric,
      unit: "runs/s",
      better: "higher",
      gantry: rate("gantry"),
      reference: rate("reference"),
      floor: rate("floor"),
      goal: { ratio: 3 },
      samples: { gantry: done.gantry?.completed, reference: done.reference?.completed, floor: done.floor?.completed },
    },
  ];
}

/** Background runs on one thread: created, then polled until they leave `pending`, or joined at once. */
export async function pickups(targets: Target[], counts: RunCounts, errors: ErrorTally): Promise<Row[]> {
  const metric = "runs.create (background)";
  const toRunning: Record<string, number[]> = { gantry: [], reference: [] };
  const toJoined: Record<string, number[]> = { gantry: [], reference: [] };
  const runIds: Record<string, Set<string>> = { gantry: new Set(), reference: new Set() };
  const threads = new Map<string, string>();
  for (const target of targets) threads.set(target.name, (await target.client.threads.create()).thread_id);
  await alternate(targets, ROUNDS, async (target, round) => {
    const { client } = target;
    const threadId = threads.get(target.name)!;
    const perRound = Math.ceil(counts.pickups[target.name] / ROUNDS);
    for (let i = 0; i < perRound; i++) {
      const message = `p${round}-${i}`;
      try {
        const t0 = performance.now();
        const run = await client.runs.create(threadId, "echo", { input: { message } });
        runIds[target.name]!.add(run.run_id);
        if (i % 2 === 0) {
          let status = run.status as string;
          while (status === "pending") status = (await client.runs.get(threadId, run.run_id)).status;
          toRunning[target.name]!.push(performance.now() - t0);
          if (status !== "running" && status !== "success") errors.add(target.name, metric, `run went from pending to ${status}`);
          await client.runs.join(threadId, run.run_id);
        } else {
          const out = (await client.runs.join(threadId, run.run_id)) as { message?: string };
          toJoined[target.name]!.push(performance.now() - t0);
          if (out.message !== message) errors.add(target.name, metric, `join returned ${JSON.stringify(out).slice(0, 100)}`);
        }
      } catch (error) {
        errors.add(target.name, metric, describeError(error));
      }
    }
  });
  // The client sees a run leave `pending` no sooner than two round trips (the create answers
  // `pending`, a get follows), so the pickup target is read on the servers' own clocks: Gantry logs queue_ms when a run finishes, the reference run_queue_ms when it starts one.
  const serverQueueMs = (target: Target) =>
    target.server
      .logs()
      .filter((line) => runIds[target.name]!.has(line.run_id as string) && (line.queue_ms !== undefined || line.run_queue_ms !== undefined))
      .map((line) => Number(line.queue_ms ?? line.run_queue_ms));
  const queueMs = Object.fromEntries(targets.map((target) => [target.name, serverQueueMs(target)]));
  const row = (label: string, values: Record<string, number[]>, p: number, goal?: Row["goal"]): Row => ({
    metric: `${metric} -> ${label} p${p}`,
    unit: "ms",
    better: "lower",
    gantry: percentile(values.gantry ?? [], p),
    reference: percentile(values.reference ?? [], p),
    ...(goal ? { goal } : {}),
    samples: { gantry: values.gantry?.length, reference: values.reference?.length },
  });
  return [
    row("seen not pending by the client (create + polls)", toRunning, 50),
    row("seen not pending by the client (create + polls)", toRunning, 95),
    row("claimed by a worker, server clock", queueMs, 50, { atMost: 5 }),
    row("runs.join returned", toJoined, 50),
    row("runs.join returned", toJoined, 95),
  ];
}

/** One stateless run emitting `customEvents` custom events, streamed; several rounds per target. */
export async function customStream(targets: Target[], counts: Pick<RunCounts, "customEvents" | "streams">, errors: ErrorTally): Promise<Row[]> {
  const metric = `SSE stream of ${counts.customEvents} custom events`;
  const firstEvent: Record<string, number[]> = { gantry: [], reference: [] };
  const perSecond: Record<string, number[]> = { gantry: [], reference: [] };
  await alternate(targets, counts.streams, async (target) => {
    const t0 = performance.now();
    let first = NaN;
    let received = 0;
    try {
      for await (const chunk of target.client.runs.stream(null, "custom", { input: { count: counts.customEvents }, streamMode: "custom" })) {
        if (chunk.event !== "custom") continue;
        if (received === 0) first = performance.now() - t0;
        if ((chunk.data as { i?: number }).i !== received) {
          errors.add(target.name, metric, `event ${received} carried ${JSON.stringify(chunk.data)}`);
          return;
        }
        received += 1;
      }
    } catch (error) {
      errors.add(target.name, metric, describeError(error));
      return;
    }
    if (received !== counts.customEvents) errors.add(target.name, metric, `received ${received} events`);
    firstEvent[target.name]!.push(first);
    perSecond[target.name]!.push(received / ((performance.now() - t0) / 1000));
  });
  const samples = { gantry: perSecond.gantry!.length, reference: perSecond.reference!.length };
  return [
    {
      metric: `${metric}: time to first event p50`,
      unit: "ms",
      better: "lower",
      gantry: percentile(firstEvent.gantry!, 50),
      reference: percentile(firstEvent.reference!, 50),
      samples,
    },
    {
      metric: `${metric}: events/s p50`,
      unit: "events/s",
      better: "higher",
      gantry: percentile(perSecond.gantry!, 50),
      reference: percentile(perSecond.reference!, 50),
      goal: { ratio: 2 },
      samples,
    },
  ];
}
