// Executes one claimed run: resolves the graph with the official checkpointer attached, streams its
// events into the run's log, then records the outcome (run status, thread status and state) in one
// storage call. A cancel aborts the graph through its AbortSignal; a rollback also removes the
// checkpoints the run wrote. A later attempt (the run's worker died, or handed it back) resumes
// from the run's last checkpoint instead of starting over.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { isUnavailable, LeaseLostError } from "../errors.js";
import { protocolLogKey, StaleWriterError, threadLogKey, type RunEvent, type RunEventLog } from "../events/run-event-log.js";
import { writeWindow } from "../events/write-window.js";
import type { Logger } from "../logging.js";
import type { CompiledGraphLike } from "../runtime/graph-like.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import { finalStateWatcher, streamGraphRun } from "../runtime/run-stream.js";
import { wants } from "../runtime/stream-modes.js";
import { checkResume, pendingInterruptIds, UnknownInterruptError } from "../runtime/strict-resume.js";
import { toThreadState, type ThreadState } from "../runtime/thread-state.js";
import { serializeError } from "../runtime/wire-serde.js";
import type { Storage } from "../storage/ports.js";
import type { Json, JsonObject, RunKwargs, StreamMode } from "../storage/records.js";
import type { CancelAction, ClaimedRun, RunOutcome } from "../storage/run-ports.js";
import { eitherSignal } from "./either-signal.js";
import { protocolRecorder } from "./protocol-recorder.js";
import { webhookDelivery } from "../webhooks/payload.js";
import type { ObservedRun, RunObserver } from "../observe/run-observer.js";

export interface ExecutionContext {
  storage: Storage;
  /** The long-term store every graph gets as config.store. */
  store: BaseStore;
  graphs: GraphRegistry;
  /** Best-effort (bestEffortWrites, as agent-server.ts composes it): a failed write never fails the run. */
  events: RunEventLog;
  workerId: string;
  log: Logger;
  signal: AbortSignal;
  /** The cancel action asked for, read when the signal fires. */
  cancelAction: () => CancelAction | undefined;
  /** True when the signal fired because the worker is shutting down and hands the run back. */
  handingOff?: () => boolean;
  /** True when the signal fired because a heartbeat found the run no longer held by this worker. */
  leaseLost?: () => boolean;
  /** Ends the run with `timeout` after this many ms (BG_JOB_TIMEOUT_SECS). */
  timeoutMs: number;
  /**
   * A run that did not ask for stream_resumable keeps its events this long once it has ended: time
   * for a client whose stream dropped near the end to reconnect with Last-Event-ID and miss nothing,
   * not for replays later (joins then answer from the stored outcome, as the reference server's
   * do). 10 s unless configured (QueueConfig): keeping every run's events the full
   * RESUMABLE_STREAM_TTL_SECONDS (120 s) held up to 30,000 runs' worth in the heap under sequential
   * waits (see docs/decisions.md for what that cost).
   */
  unresumableRetainMs: number;
  /** Called once the graph has stopped, before the outcome is recorded. */
  executed?: () => void;
  /** Absent with http.disable_webhooks; `recorded` wakes the delivery loop after a webhook was written. */
  webhooks?: { recorded: () => void };
  /** Traces and metrics of each run (src/observe/). */
  observer?: RunObserver;
}

/** Events a run may have appended and not yet seen written (see writeWindow). */
const EMIT_WINDOW = 1024;

export class RunTimeoutError extends Error {
  constructor(seconds: number) {
    super(`Run exceeded the time limit of ${seconds} s (BG_JOB_TIMEOUT_SECS)`);
    this.name = "RunTimeoutError";
  }
}

export async function executeRun(run: ClaimedRun, ctx: ExecutionContext): Promise<void> {
  // Readers of the run on this process take its events from here until it ends its log (or stops
  // without: handed to another worker, or the database went away).
  const stopWriting = ctx.events.writeHere(run.run_id);
  const observed = ctx.observer?.start(run);
  try {
    await execute(run, ctx, observed);
  } finally {
    observed?.end();
    stopWriting();
    // Held checkpoints a way out has not released (a lost database, an unexpected throw) are
    // dropped: the run's next attempt resumes from what was written.
    await ctx.storage.checkpoints.releaseWrites(run.run_id, false);
  }
}

async function execute(run: ClaimedRun, ctx: ExecutionContext, observed: ObservedRun | undefined): Promise<void> {
  const { storage, log } = ctx;
  const { kwargs } = run;
  const threadId = run.thread_id;
  const started = performance.now();
  // Creation to claim (the claim stamps updated_at): pickup latency, plus any after_seconds delay.
  const queueMs = Date.parse(run.updated_at) - Date.parse(run.created_at);
  const runLog = log.child({ run_id: run.run_id, thread_id: threadId, attempt: run.attempt });
  const { events } = ctx;
  // A thread's log exists only while someone follows the thread (GET /threads/{id}/stream); it gets
  // the modes the run asked for, framed by lifecycle markers. The log checks that it exists at
  // every append, so a follower who attaches mid-run sees the run from then on and how it ends.
  const threadKey = threadLogKey(threadId);
  const toThread = { alsoTo: threadKey };
  const onlyIfFollowed = { ifOpen: true };
  const requested = new Set<string>(kwargs.stream_mode);
  // Appends are not awaited one by one (the log keeps their order and batches them): every one has
  // settled before the outcome is recorded, as when each was awaited.
  const emitted = writeWindow(EMIT_WINDOW);
  // Checkpoint writes land only while this worker holds the run; the first that fails stops the
  // graph at that step (stopped.signal), so no step runs on past a checkpoint that never landed.
  const stopped = new AbortController();
  const unguard = storage.checkpoints.guardWrites(run.run_id, { workerId: ctx.workerId, attempt: run.attempt }, (err) => stopped.abort(err));
  // The run's log is fenced the same way: each write carries the attempt, and the log refuses it
  // (StaleWriterError) once a later attempt has opened it.
  const writer = run.attempt;
  let staleWriter = false;
  const lost = () => staleWriter || ctx.leaseLost?.() === true || stopped.signal.reason instanceof LeaseLostError;
  const toRunLog = (write: Promise<unknown>) =>
    write.catch((err: unknown) => {
      if (err instanceof StaleWriterError) {
        staleWriter = true;
        stopped.abort(err);
      }
      throw err;
    });
  // A worker that lost the run has nothing more to say in its log: the run's owner writes it now.
  const emit = (event: string, data: unknown) =>
    lost() ? Promise.resolve() : emitted.add(toRunLog(events.append(run.run_id, { event, data }, { writer, ...(wants(requested, event) ? toThread : {}) })));
  // A protocol (v2) run also writes the thread's protocol log; its own log keeps the classic events.
  // A classic run shows there too while the thread's protocol log exists (it has readers, or had
  // protocol runs lately): one existence check per run when it does not. Issued together, these
  // three share one round trip to Redis.
  const opened = await Promise.all([
    events.open(run.run_id, { resumable: true, writer }),
    events.append(threadKey, { event: "lifecycle", data: { run_id: run.run_id, status: "running" } }, onlyIfFollowed),
    kwargs.protocol || events.has(protocolLogKey(threadId)),
  ]).catch((err: unknown) => {
    if (err instanceof StaleWriterError) return undefined;
    throw err;
  });
  if (!opened) {
    unguard();
    runLog.warn("run not started: a later attempt of it has opened its event log");
    return;
  }
  const protocolLog = opened[2];
  const protocol = protocolLog ? await protocolRecorder(events, run) : undefined;
  const mirror = protocol && !kwargs.protocol ? protocol : undefined;

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new RunTimeoutError(ctx.timeoutMs / 1000)), ctx.timeoutMs);
  timer.unref();
  const { signal, dispose: stopListening } = eitherSignal(ctx.signal, timeout.signal, stopped.signal);

  let outcome: RunOutcome;
  let handedOff = false;
  /** A strict resume refusal: the run's error for its webhook, while the thread keeps no error. */
  let refusal: Json | undefined;
  try {
    // The reference servers' fields, no more: clients read the thread from Content-Location.
    await emit("metadata", { run_id: run.run_id, attempt: run.attempt });
    const graph = await ctx.graphs.get(kwargs.config.configurable.graph_id).resolve(kwargs.config);
    // The same saver and store for every run, so runs of one graph can overlap: the saver tags each
    // checkpoint with the run that wrote it (from the run_id in the configurable).
    graph.checkpointer = storage.checkpoints.saver;
    graph.store = ctx.store;
    // A stateless run's thread was created with it: its first attempt has no checkpoint to read.
    if (kwargs.temporary && run.attempt === 1) storage.checkpoints.startsEmpty(run.run_id);
    // Its checkpoints go with its thread: most are never worth writing (unless asked to be synchronous).
    if (kwargs.temporary && kwargs.durability !== "sync") storage.checkpoints.holdWrites(run.run_id);
    // Null input continues from the checkpoint: steps that completed before are not run again.
    const resume = run.attempt > 1 && (await lastCheckpointRun(graph, threadId)) === run.run_id;
    if (resume) runLog.info("resuming from the run's last checkpoint");
    if (kwargs.strict_resume && !resume && kwargs.command?.resume != null) {
      checkResume(kwargs.command.resume, pendingInterruptIds(toThreadState(await graph.getState!({ configurable: stateConfigurable(kwargs) }))));
    }
    // The log always holds `values`, so /wait and /join can answer; readers filter by the modes asked.
    const modes = [...new Set<StreamMode>([...kwargs.stream_mode, "values"])];
    const finalState = finalStateWatcher();
    let flushed = false;
    const graphRun = {
      input: resume ? null : kwargs.input,
      ...(kwargs.command && !resume ? { command: kwargs.command } : {}),
      config: {
        ...kwargs.config,
        metadata: { ...kwargs.config.metadata, run_attempt: run.attempt, langgraph_host: "self-hosted" },
        ...(observed && observed.callbacks.length > 0 ? { callbacks: observed.callbacks } : {}),
      },
      context: kwargs.context,
      ...(kwargs.interrupt_before ? { interruptBefore: kwargs.interrupt_before } : {}),
      ...(kwargs.interrupt_after ? { interruptAfter: kwargs.interrupt_after } : {}),
      // "async" (the default) lets a step run while the checkpoint before it is still being
      // written: when that write fails, the steps run meanwhile run again at the next attempt, as
      // many as fit in the time the write took to fail. Each step waits for the one before to land,
      // so a failed write costs at most the step under way. The wait is one statement per step on
      // PostgreSQL (none for a stateless run, whose writes are held) and none on SQLite.
      durability: kwargs.durability === "exit" ? ("exit" as const) : ("sync" as const),
      signal,
      runId: run.run_id,
    };
    const source =
      protocol && !mirror ? protocol.stream(graph, graphRun) : streamGraphRun(graph, { ...graphRun, streamMode: modes, subgraphs: kwargs.subgraphs });
    for await (const event of source) {
      finalState.see(event);
      await emit(event.event, event.data);
      await mirror?.mirror(event);
      // Events the graph has already produced arrive as settled promises, so draining them never
      // leaves the microtask queue, and Node uncorks a response's socket only on the next tick:
      // the first event a reader wrote stayed in its socket until the run had emitted nearly
      // everything. One turn of the event loop after the first event past the input state lets it go.
      if (!flushed && event.event !== "values") {
        flushed = true;
        await nextTurn();
      }
    }
    // A write that failed as the graph ended (its last checkpoint) fails the run as one mid-way would.
    if (stopped.signal.aborted) throw stopped.signal.reason;
    outcome = await successOutcome(finalState.settled(), graph, threadId);
  } catch (err) {
    if (lost()) {
      // Ending the guard refuses whatever the aborted step still writes; what is held is dropped.
      unguard();
      await storage.checkpoints.releaseWrites(run.run_id, false);
      runLog.warn("run stopped: its lease was lost to another worker; nothing more of it is recorded here");
      return;
    }
    // Without the database no outcome can be recorded, and the run is not at fault: the worker
    // puts it back in the queue (emitting no error event, so readers keep waiting for its end).
    // So does a checkpoint write that failed for the database: the next attempt resumes from the
    // last one that landed.
    if (isUnavailable(err) && !signal.aborted) throw err;
    if (isUnavailable(stopped.signal.reason)) throw stopped.signal.reason;
    const action = ctx.signal.aborted ? ctx.cancelAction() : undefined;
    handedOff = ctx.signal.aborted && !action && ctx.handingOff?.() === true;
    if (handedOff) {
      outcome = { status: "interrupted", thread_status: "idle" };
    } else if (timeout.signal.aborted) {
      const error = serializeError(timeout.signal.reason);
      await emit("error", error);
      outcome = { status: "timeout", thread_status: "error", error, ...(await stateOf(storage, ctx, kwargs, threadId)) };
    } else if (action === "rollback") {
      await storage.checkpoints.fenceRun(run.run_id);
      await storage.checkpoints.deleteRun(threadId, run.run_id);
      outcome = { status: "interrupted", thread_status: "idle", delete_run: true, ...(await stateOf(storage, ctx, kwargs, threadId)) };
    } else if (action === "interrupt") {
      outcome = { status: "interrupted", thread_status: "idle", ...(await stateOf(storage, ctx, kwargs, threadId)) };
    } else if (err instanceof UnknownInterruptError) {
      // Refused before the graph ran: the thread keeps its state, status and waiting interrupts.
      const error = err.toWire();
      await emit("error", error);
      outcome = { status: "error", thread_status: "idle", ...(await unchangedThread(storage, ctx, kwargs, threadId)), error: null };
      refusal = error as unknown as Json;
      runLog.info("strict resume refused", { reason: err.reason, interrupt_ids: err.interruptIds, pending_ids: err.pendingIds });
    } else {
      const error = serializeError(stopped.signal.aborted ? stopped.signal.reason : err);
      await emit("error", error);
      outcome = { status: "error", thread_status: "error", error, ...(await stateOf(storage, ctx, kwargs, threadId)) };
      runLog.warn("run failed", { error: error.error, message: error.message });
    }
    if (action) runLog.info("run cancelled", { action });
  } finally {
    clearTimeout(timer);
    stopListening();
    unguard();
  }
  ctx.executed?.();
  // The outcome is recorded while the run's last appends are still landing: the log's end, which
  // readers wait for, is written after both (the log keeps one key's writes in order).
  // A write refused as stale says the run is a later attempt's now: its finish below finds the lease gone.
  const appended = emitted.settled().catch((err: unknown) => {
    if (!(err instanceof StaleWriterError)) throw err;
  });
  appended.catch(() => {});
  if (handedOff) {
    await appended;
    // The log stays open: readers keep waiting, and the next attempt continues it from the checkpoints written here.
    await storage.checkpoints.releaseWrites(run.run_id, true);
    const released = await storage.runs.release(run.run_id, ctx.workerId, new Date());
    runLog.info(released ? "run handed back to the queue" : "run not handed back: the lease was lost to another worker");
    return;
  }
  if (kwargs.temporary) {
    // Finishing deletes the thread with its checkpoints; a cancelled graph may still be writing them.
    outcome.delete_thread = true;
    await storage.checkpoints.releaseWrites(run.run_id, false);
    if (signal.aborted) await storage.checkpoints.fenceRun(run.run_id);
  }
  const finished = refusal ? { ...outcome, error: refusal } : outcome;
  await protocol?.end(finished);
  const webhook = ctx.webhooks ? webhookDelivery({ run, outcome: finished, startedAt: new Date(run.updated_at), endedAt: new Date() }) : undefined;
  if (webhook) outcome.webhook = webhook;
  const [, recorded] = await Promise.all([appended, storage.runs.finish(run.run_id, ctx.workerId, outcome)]);
  if (recorded) observed?.end(outcome.status);
  if (!recorded) runLog.warn("run outcome not recorded: the lease was lost to another worker");
  else if (outcome.webhook) ctx.webhooks?.recorded();
  if (recorded && outcome.status === "success") {
    runLog.info("run finished", { status: "success", thread_status: outcome.thread_status, queue_ms: queueMs, ms: Math.round(performance.now() - started) });
  }
  // The thread's followers get the run's end and the state it left with the end of the run's log,
  // in one call (a deleted thread has no state to show).
  const closing: RunEvent[] = [{ event: "lifecycle", data: { run_id: run.run_id, status: outcome.status } }];
  if (!outcome.delete_thread) {
    closing.push({
      event: "state_update",
      data: { run_id: run.run_id, values: outcome.values ?? null, interrupts: outcome.interrupts ?? {}, status: outcome.thread_status },
    });
  }
  await events
    .end(run.run_id, { writer, ...(kwargs.resumable ? {} : { retainMs: ctx.unresumableRetainMs }), alsoTo: { key: threadKey, events: closing } })
    .catch((err: unknown) => {
      if (!(err instanceof StaleWriterError)) throw err;
      runLog.warn("run log not ended: a later attempt of the run has it");
    });
}

async function successOutcome(settled: { values: unknown } | undefined, graph: CompiledGraphLike, threadId: string): Promise<RunOutcome> {
  if (settled) return { status: "success", thread_status: "idle", values: settled.values as Json, interrupts: {}, error: null };
  const state = toThreadState(await readState(graph, threadId));
  return {
    status: "success",
    thread_status: state.next.length > 0 ? "interrupted" : "idle",
    values: state.values as Json,
    interrupts: interruptsByTask(state.tasks),
    error: null,
  };
}

/** Thread values and interrupts after a run that did not finish normally. */
async function stateOf(storage: Storage, ctx: ExecutionContext, kwargs: RunKwargs, threadId: string): Promise<Partial<RunOutcome>> {
  const state = await latestState(storage, ctx, kwargs, threadId);
  return state ? { values: state.values as Json, interrupts: interruptsByTask(state.tasks) } : {};
}

/** A refused strict resume ran nothing: the thread keeps its state, and its status follows from it. */
async function unchangedThread(storage: Storage, ctx: ExecutionContext, kwargs: RunKwargs, threadId: string): Promise<Partial<RunOutcome>> {
  const state = await latestState(storage, ctx, kwargs, threadId);
  if (!state) return {};
  return { values: state.values as Json, interrupts: interruptsByTask(state.tasks), thread_status: state.next.length > 0 ? "interrupted" : "idle" };
}

async function latestState(storage: Storage, ctx: ExecutionContext, kwargs: RunKwargs, threadId: string): Promise<ThreadState | undefined> {
  try {
    const graph = await ctx.graphs.get(kwargs.config.configurable.graph_id).resolve(kwargs.config);
    graph.checkpointer = storage.checkpoints.saver;
    return toThreadState(await readState(graph, threadId));
  } catch {
    return undefined;
  }
}

/** The checkpoint a run starts from: the thread's latest, or the one the run named. */
function stateConfigurable(kwargs: RunKwargs): Record<string, unknown> {
  const { thread_id, checkpoint_id, checkpoint_ns } = kwargs.config.configurable;
  return { thread_id, ...(checkpoint_id !== undefined ? { checkpoint_id } : {}), ...(checkpoint_ns !== undefined ? { checkpoint_ns } : {}) };
}

/** The run id recorded on the thread's latest checkpoint, if any. */
async function lastCheckpointRun(graph: CompiledGraphLike, threadId: string): Promise<unknown> {
  const state = (await readState(graph, threadId)) as { metadata?: { run_id?: unknown } };
  return state.metadata?.run_id;
}

async function readState(graph: CompiledGraphLike, threadId: string): Promise<unknown> {
  if (typeof graph.getState !== "function") throw new Error("The graph has no getState method; is it a LangGraph graph?");
  return graph.getState({ configurable: { thread_id: threadId } });
}

function interruptsByTask(tasks: Array<{ id: string; interrupts: unknown[] }>): JsonObject {
  const out: JsonObject = {};
  for (const task of tasks) if (task.interrupts.length > 0) out[task.id] = task.interrupts as Json;
  return out;
}
