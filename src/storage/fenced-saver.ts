// A checkpoint saver that knows which run writes (the run_id every run puts in its configurable).
// Each checkpoint a run writes carries the run in its metadata, as the platform's checkpoints do:
// the ids and other plain values of its configurable (run_id, thread_id, graph_id, assistant_id,
// user_id, headers), then the run's metadata, then what LangGraph itself records (source, step,
// parents). So a history can be filtered on a run's metadata, and a later attempt of the run reads
// the run_id to know how far the run got. Being one saver for every run, it can stay the graph's
// checkpointer while runs of that graph overlap.
//
// It can also shut one run out. LangGraph's stream rejects as soon as a run's AbortSignal fires,
// while its loop goes on in the background and still writes the checkpoints of the step it was in.
// After a rollback has deleted a run's checkpoints, such a late write would put the rolled-back run
// back into the thread's history (and under the next run's feet). Fencing the run waits for its
// writes in flight, and every later write that carries its run_id is dropped.
//
// And it guards an attempt of a run under its lease (guard): the backend's saver finds the lease in
// `leases` and makes each write conditional on it, and the first write of the attempt that fails,
// refused for the lease or lost with the database, is reported once and refuses every later one.
// LangGraph writes a step's checkpoint in the background while the next step runs, so without this
// a run went on executing steps whose checkpoints never landed, and its next attempt ran them again.
// Once the guard ends, every later write of that attempt (a step winding down after an abort) is
// refused; a later attempt of the run, on this process too, writes as its own guard says. A write
// names its attempt by the `run_attempt` the worker puts in the run's metadata.
import type { BaseCheckpointSaver, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { LeaseLostError } from "../errors.js";
import type { RunLease } from "./checkpoint-ports.js";

export interface FencedSaver {
  saver: BaseCheckpointSaver;
  /** Resolves once the run's writes in flight have landed; its later writes are dropped. */
  fence(runId: string): Promise<void>;
  /**
   * The run starts on a thread that has no checkpoint yet (a stateless run's first attempt): its
   * first read of the thread's latest root checkpoint answers "none" without asking the database.
   */
  startsEmpty(runId: string): void;
  /** See CheckpointStore.guardWrites: `leases` holds the lease for the backend's saver meanwhile. */
  guard(runId: string, lease: RunLease, failed: (err: unknown) => void): () => void;
}

/** The leases of runs whose writes are guarded, by run id: what the backend's saver checks each write against. */
export type RunLeases = Map<string, RunLease>;

interface Guard {
  attempt: number;
  failed: (err: unknown) => void;
  /** The first failure, which every later write of the run is refused with. */
  error?: unknown;
}

/**
 * Rollbacks are rare; a fence only matters for the moments an aborted loop takes to wind down. The
 * same bound keeps the runs marked as starting empty whose graph failed before reading.
 */
const FENCES_KEPT = 10_000;

/** Where a checkpoint sits, which its config says already; never copied into its metadata. */
const POSITION_KEYS = new Set(["checkpoint_id", "checkpoint_ns", "checkpoint_map"]);

/**
 * The configurable contributes only strings, numbers and booleans (as LangGraph's Python
 * checkpointers record it: the user object and permission list stay out of every checkpoint); the
 * run's metadata is recorded whole. The run id goes last, so no metadata can pass for another run.
 */
export function runCheckpointMetadata(
  config: { configurable?: Record<string, unknown>; metadata?: Record<string, unknown> },
  metadata: CheckpointMetadata,
  runId: string,
): CheckpointMetadata<{ run_id: string }> {
  const out: Record<string, unknown> = {};
  const { configurable, metadata: runMetadata } = config;
  for (const key in configurable) {
    if (key.startsWith("__") || POSITION_KEYS.has(key)) continue;
    const value = configurable[key];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
  }
  for (const key in runMetadata) {
    if (!key.startsWith("__") && !POSITION_KEYS.has(key)) out[key] = runMetadata[key];
  }
  return { ...out, ...metadata, run_id: runId } as CheckpointMetadata<{ run_id: string }>;
}

export function fencedSaver(inner: BaseCheckpointSaver, leases: RunLeases = new Map()): FencedSaver {
  const fenced = new Set<string>();
  const guards = new Map<string, Guard>();
  /** The newest attempt of each run whose guard ended here: its writes, and older ones', are refused. */
  const ended = new Map<string, number>();
  // Taken by the run's first read; one whose graph never read stays until the bound pushes it out.
  const empty = new Set<string>();
  const inFlight = new Map<string, Set<Promise<unknown>>>();

  const runOf = (config: { configurable?: Record<string, unknown> } | undefined): string | undefined => {
    const runId = config?.configurable?.run_id;
    return typeof runId === "string" ? runId : undefined;
  };

  /** Why a guarded run's write must not be made, if it must not. */
  function refusal(runId: string, config: { metadata?: Record<string, unknown> }): unknown {
    const attempt = config.metadata?.run_attempt;
    if (typeof attempt === "number") {
      const last = ended.get(runId);
      if (last !== undefined && attempt <= last) return new LeaseLostError(runId);
    }
    const guard = guards.get(runId);
    if (!guard) return undefined;
    if (typeof attempt === "number" && attempt !== guard.attempt) return new LeaseLostError(runId);
    return guard.error;
  }

  /** A refused write's rejection, marked handled for the same reason as a failed one's (track). */
  function refuse(err: unknown): Promise<never> {
    const refused = Promise.reject(err);
    refused.catch(() => {});
    return refused;
  }

  function track<T>(runId: string | undefined, write: Promise<T>): Promise<T> {
    if (runId === undefined) return write;
    const guard = guards.get(runId);
    // Reported to the guard, which stops the run: LangGraph awaits only one of a step's failed
    // writes, and another one left unhandled would end the process.
    if (guard)
      write.catch((err: unknown) => {
        if (guard.error !== undefined) return;
        guard.error = err;
        guard.failed(err);
      });
    let writes = inFlight.get(runId);
    if (!writes) inFlight.set(runId, (writes = new Set()));
    writes.add(write);
    const done = () => {
      writes.delete(write);
      if (writes.size === 0) inFlight.delete(runId);
    };
    write.then(done, done);
    return write;
  }

  const put: BaseCheckpointSaver["put"] = (config, checkpoint, metadata, newVersions) => {
    const runId = runOf(config);
    if (runId === undefined) return inner.put(config, checkpoint, metadata, newVersions);
    if (fenced.has(runId)) return Promise.resolve(config);
    const refused = refusal(runId, config);
    if (refused !== undefined) return refuse(refused);
    return track(runId, inner.put(config, checkpoint, runCheckpointMetadata(config, metadata, runId), newVersions));
  };

  const putWrites: BaseCheckpointSaver["putWrites"] = (config, writes, taskId) => {
    const runId = runOf(config);
    if (runId !== undefined && fenced.has(runId)) return Promise.resolve();
    const refused = runId === undefined ? undefined : refusal(runId, config);
    if (refused !== undefined) return refuse(refused);
    return track(runId, inner.putWrites(config, writes, taskId));
  };

  const getTuple: BaseCheckpointSaver["getTuple"] = (config) => {
    const runId = runOf(config);
    if (runId !== undefined && empty.delete(runId) && config.configurable?.checkpoint_id === undefined && !config.configurable?.checkpoint_ns) {
      return Promise.resolve(undefined);
    }
    return inner.getTuple(config);
  };

  // A Proxy keeps the saver's prototype (LangGraph may check what it is given) and every other method.
  // LangGraph reaches for the saver's methods at every step: each is bound once, not at every access.
  const methods = new Map<PropertyKey, unknown>([
    ["put", put],
    ["putWrites", putWrites],
    ["getTuple", getTuple],
  ]);
  const saver = new Proxy(inner, {
    get(target, property) {
      const known = methods.get(property);
      if (known !== undefined) return known;
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      methods.set(property, bound);
      return bound;
    },
  });

  const fence = async (runId: string) => {
    fenced.add(runId);
    if (fenced.size > FENCES_KEPT) fenced.delete(fenced.values().next().value!);
    await Promise.allSettled([...(inFlight.get(runId) ?? [])]);
  };

  return {
    saver,
    fence,
    startsEmpty(runId) {
      empty.add(runId);
      if (empty.size > FENCES_KEPT) empty.delete(empty.values().next().value!);
    },
    guard(runId, lease, failed) {
      const guard: Guard = { attempt: lease.attempt, failed };
      guards.set(runId, guard);
      leases.set(runId, lease);
      return () => {
        if (guards.get(runId) !== guard) return;
        guards.delete(runId);
        leases.delete(runId);
        ended.delete(runId);
        ended.set(runId, lease.attempt);
        if (ended.size > FENCES_KEPT) ended.delete(ended.keys().next().value!);
      };
    },
  };
}
