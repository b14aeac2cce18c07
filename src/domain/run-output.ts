// What clients read from runs: a run's events filtered to the stream modes they asked for, the
// final output of /wait and /join (the last values, with __interrupt__ or __error__), and the
// stream of every run of a thread. Every transport (SSE routes today) reads runs through this one
// service, so none of them knows where events or outcomes are kept.
//
// A stream never ends short in silence: when a log is gone or lost events (Redis restarted without
// persistence, a key evicted), its readers throw EventsLostError, which the SSE writer sends as the
// stream's final `error` event. Only the final output has somewhere else to come from: the run's
// stored outcome, which /wait and /join then wait for.
import { setTimeout as sleep } from "node:timers/promises";
import type { Event as ProtocolEvent } from "@langchain/protocol";
import { LOST } from "../events/event-log-errors.js";
import { EventsLostError, protocolLogKey, threadLogKey, type RunEventLog, type StoredEvent } from "../events/run-event-log.js";
import type { RunRepo } from "../storage/run-ports.js";
import type { ThreadRepo } from "../storage/ports.js";
import type { Run } from "../storage/records.js";
import { wants } from "../runtime/stream-modes.js";

/** What a thread stream carries: the runs' own events, run starts and ends, and state after each run. */
export type ThreadStreamMode = "run_modes" | "lifecycle" | "state_update";

export interface ReadFrom {
  /** Exclusive: events strictly after this one (Last-Event-ID: its id or index); "-1" replays what is held; absent attaches live. */
  after?: string;
  signal?: AbortSignal;
}

export interface RunOutputService {
  /**
   * The run's events in the modes asked for (the run's own modes when none are), each with its
   * index in the run's log as its id, as the official servers number them. A finished run
   * whose log is gone (expired) has nothing left to send: the stream is empty, unless it resumes
   * after an id, whose followers are lost. A pending or running run whose log is gone lost its
   * events: the stream throws EventsLostError. The log is read at call time, so a malformed
   * `after` throws its GantryError here, before any answer has started.
   */
  events(run: Run, options: ReadFrom & { modes?: readonly string[] }): Promise<AsyncGenerator<StoredEvent>>;
  /**
   * The final output: from the run's log while it is held (it always holds `values`), otherwise
   * from the thread's stored state once the run has finished (waited for in storage when the log
   * was lost while the run went on).
   */
  output(run: Run, signal?: AbortSignal): Promise<unknown>;
  /** Every run of the thread from now on (or replayed from `after`), in the modes asked for. */
  threadEvents(threadId: string, modes: ReadonlySet<ThreadStreamMode>, options: ReadFrom): Promise<AsyncGenerator<StoredEvent>>;
  /**
   * The thread's protocol (v2) events: every one still held, in `seq` order, then live ones as the
   * worker writes them; with `untilNow` only those held at call time (a snapshot).
   */
  protocolEvents(threadId: string, options: { signal?: AbortSignal; untilNow?: boolean }): Promise<AsyncGenerator<ProtocolEvent>>;
  /** The newest protocol event of the thread still held, if any. */
  lastProtocolEvent(threadId: string): Promise<ProtocolEvent | undefined>;
}

/** How often a wait for a run whose log was lost looks at the run's row. */
const OUTCOME_POLL_MS = 1_000;

const isFinished = (run: Run) => run.status !== "pending" && run.status !== "running";

export function runOutputService(deps: { events: RunEventLog; runs: RunRepo; threads: ThreadRepo }): RunOutputService {
  const { events } = deps;

  /** The run as stored once it has finished; undefined if the signal aborts first. */
  const finishedRun = async (run: Run, signal: AbortSignal | undefined): Promise<Run | undefined> => {
    for (let latest = run; !signal?.aborted; ) {
      latest = (await deps.runs.get(run.run_id)) ?? latest;
      if (isFinished(latest)) return latest;
      await sleep(OUTCOME_POLL_MS, undefined, signal ? { signal } : {}).catch(() => undefined);
    }
    return undefined;
  };

  return {
    async events(run, options) {
      const resuming = options.after !== undefined && options.after !== "-1" && options.after !== "-";
      if (!resuming && !(await events.has(run.run_id))) {
        // Read again: the run may have finished, and its log expired, since it was read.
        const latest = isFinished(run) ? run : ((await deps.runs.get(run.run_id)) ?? run);
        if (isFinished(latest)) return (async function* () {})();
        return (async function* () {
          yield* [];
          throw new EventsLostError(run.run_id, LOST.missing(latest.status));
        })();
      }
      const modes = new Set(options.modes ?? run.kwargs.stream_mode);
      const source = events.read(run.run_id, readOptions(options));
      return (async function* () {
        for await (const event of source) if (wants(modes, event.event)) yield { id: String(event.index), event: event.event, data: event.data };
      })();
    },

    async output(run, signal) {
      // A log that is gone (expired, or never kept) reads as nothing: the stored outcome answers.
      let values: unknown = null;
      let error: unknown = null;
      let read = false;
      try {
        for await (const event of events.read(run.run_id, { after: "-1", ...(signal ? { signal } : {}) })) {
          read = true;
          if (event.event === "values") values = withBreakpointState(values, event.data);
          else if (event.event === "error") error = event.data;
        }
      } catch (err) {
        if (!(err instanceof EventsLostError)) throw err;
        values = error = null;
        read = false;
      }
      if (error) return { __error__: error };
      if (values !== null) return values;
      // Nothing read: the log is gone. A run that goes on without it is waited for in storage.
      const latest = read ? ((await deps.runs.get(run.run_id)) ?? run) : await finishedRun(run, signal);
      if (!latest) return null;
      const thread = await deps.threads.get(run.thread_id);
      if (latest.status === "error" && thread?.error) return { __error__: thread.error };
      if (!thread) return null;
      const interrupts = Object.values(thread.interrupts).flat();
      if (interrupts.length > 0 && thread.values && typeof thread.values === "object" && !Array.isArray(thread.values)) {
        return { ...thread.values, __interrupt__: interrupts };
      }
      return thread.values;
    },

    async threadEvents(threadId, modes, options) {
      // The worker writes a thread's log only while it exists (execute-run.ts): opening it is what
      // makes the thread followed.
      const key = threadLogKey(threadId);
      await events.open(key, { resumable: true, expiresWhenIdle: true, createOnly: true });
      const source = events.read(key, readOptions(options));
      return (async function* () {
        for await (const event of source) {
          const kind = event.event === "lifecycle" ? "lifecycle" : event.event === "state_update" ? "state_update" : "run_modes";
          if (modes.has(kind) || (kind === "lifecycle" && modes.has("run_modes"))) yield event;
        }
      })();
    },

    async protocolEvents(threadId, options) {
      const key = protocolLogKey(threadId);
      // Opened (idle-expiring, as the worker opens it) so a reader that comes before the first run waits for it.
      await events.open(key, { resumable: true, expiresWhenIdle: true, createOnly: true });
      const last = options.untilNow ? await events.last(key) : undefined;
      if (options.untilNow && !last) return (async function* () {})();
      const source = events.read(key, { after: "-1", ...(options.signal ? { signal: options.signal } : {}) });
      return (async function* () {
        for await (const entry of source) {
          yield entry.data as ProtocolEvent;
          if (entry.id === last?.id) return;
        }
      })();
    },

    async lastProtocolEvent(threadId) {
      return (await events.last(protocolLogKey(threadId)))?.data as ProtocolEvent | undefined;
    },
  };
}

const readOptions = (options: ReadFrom) => ({
  ...(options.after !== undefined ? { after: options.after } : {}),
  ...(options.signal ? { signal: options.signal } : {}),
});

/**
 * A static breakpoint is streamed as `{__interrupt__: []}` alone (run-stream.ts); the output of
 * /wait and /join keeps the state it stopped beside it.
 */
function withBreakpointState(previous: unknown, data: unknown): unknown {
  const bare = typeof data === "object" && data !== null && Object.keys(data).length === 1 && "__interrupt__" in data;
  const state = typeof previous === "object" && previous !== null && !Array.isArray(previous);
  return bare && state ? { ...previous, ...data } : data;
}
