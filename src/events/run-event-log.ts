// Event logs: what a run (or every run of a thread) emitted, held so streams can join late and
// resume after a dropped connection with Last-Event-ID. The port is async because its Redis
// implementation (streams, for many replicas) is; the in-process one (memory-event-log.ts) is what
// `gantry dev` uses.
import type { Event as ProtocolEvent } from "@langchain/protocol";
export { EventsLostError, StaleWriterError } from "./event-log-errors.js";

export interface RunEvent {
  event: string;
  /** Already JSON-safe. */
  data: unknown;
}

/** The log of every run of a thread, for GET /threads/{thread_id}/stream. */
export const threadLogKey = (threadId: string): string => `thread:${threadId}`;

/**
 * The thread's protocol (v2) events, for POST /threads/{thread_id}/stream/events and its WebSocket
 * twin: every run the protocol started on the thread, in `seq` order (src/protocol/).
 */
export const protocolLogKey = (threadId: string): string => `protocol:${threadId}`;

/** A protocol event as its log keeps it: named by its method, the whole event (with `seq` and `event_id`) as data. */
export const protocolLogEntry = (event: ProtocolEvent): RunEvent => ({ event: event.method, data: event });

/** `id` is Redis-stream style `<ms>-<seq>` and increases strictly per log. */
export interface StoredEvent extends RunEvent {
  id: string;
}

/**
 * An event as a reader gets it. `index` is its ordinal in the log: 0 for the first event appended
 * to it, then 1, 2, … (every append counts, also those a reader filters out). A run stream's SSE
 * ids are these, as on the official servers; a resume may name either.
 */
export interface ReadEvent extends StoredEvent {
  index: number;
}

export interface OpenOptions {
  /** Keep the history (up to the size bound) so readers can replay it; otherwise only live readers see events. */
  resumable: boolean;
  /** For logs that are never ended, such as thread logs: drop the log once it has had no reader and no append for the retention time. */
  expiresWhenIdle?: boolean;
  /**
   * Creates the log if there is none and leaves an existing one exactly as it is, ended or not. A
   * run's creator opens its log so: a worker elsewhere may have run the run and ended its log
   * before this open arrives, and reopening it would leave its readers waiting for an end that came.
   */
  createOnly?: boolean;
  /**
   * The attempt that opens the run's log (the run's `attempt`): the log records the newest writer
   * that opened it, and refuses writes from an older one from then on (see `writer` on append).
   * An open from an older writer than the one recorded is refused the same way. Ignored with createOnly.
   */
  writer?: number;
}

/**
 * Writer fencing. A write that carries `writer: n` is refused with a StaleWriterError when the log
 * was opened by (or written with) a newer writer than n: nothing of it is written or sent to
 * readers, including what it would have copied to another log. A worker passes its run's attempt,
 * so one that lost the run's lease (frozen, partitioned) and carries on cannot add to the log of
 * the attempt that took over. A write without `writer` is not checked; one with a newer number
 * than recorded raises the record. The record lives with the log: a log that vanished and is
 * re-created by a write records that write's writer.
 */
export interface WriterOption {
  writer?: number;
}

export interface EndOptions extends WriterOption {
  /**
   * How long the ended log stays readable, at most the log's retention (RESUMABLE_STREAM_TTL_SECONDS),
   * which is also the default. Readers attached when it goes drain it all the same.
   */
  retainMs?: number;
  /**
   * Also appends these events, in order, to another log if it exists and has not ended, in the same
   * atomic step as the end (whether or not this log had ended already): a run's closing markers on
   * its thread's log cost no call of their own, and a thread follower sees them in order, after
   * every event the run copied there.
   */
  alsoTo?: { key: string; events: RunEvent[] };
}

export interface AppendOptions extends WriterOption {
  /**
   * Appends only to a log that exists and has not ended, else appends nothing and returns "":
   * a marker for a thread's log, which exists only while someone follows the thread.
   */
  ifOpen?: boolean;
  /**
   * Also appends the event to this log if it exists and has not ended, checked at the moment of
   * the append: a run's events reach its thread's log from the event a follower attached at on.
   */
  alsoTo?: string;
}

export interface ReadOptions {
  /**
   * Exclusive: events strictly after this event, named by its index (ReadEvent) or its id. "-1" or
   * "-" replay everything held; absent means live attach.
   */
  after?: string;
  signal?: AbortSignal;
}

/**
 * Keys are run ids, or `thread:<thread_id>` (threadLogKey) for a thread's log. A thread's log
 * exists only while someone follows the thread: the thread stream (domain/run-output.ts) opens it
 * with `{ resumable: true, expiresWhenIdle: true, createOnly: true }` before reading, and the
 * worker appends a run's events to it, between lifecycle markers, only when it exists
 * (queue/execute-run.ts). Nobody ends it; it expires once idle. Deleting the thread deletes it.
 *
 * Lost logs. A log can vanish under its writer (Redis restarted without persistence, a key evicted
 * or expired, a thread deleted while its run went on). The writer's process remembers which log it
 * opened or last appended to (an open without createOnly, an append without ifOpen; forgotten at
 * its end), so a write that finds that log gone, or replaced by another one (a reader's open
 * re-created it), re-creates it marked as lost before that write. Readers are never left with a
 * clean end that is short: a reader whose log vanishes or is replaced while it reads, a replay from
 * the start of a log marked lost, and a resume (`after` an id or index) that the log no longer
 * reaches back to (the log is unknown, younger than the id, or dropped events after it for its size
 * bound; an index the log has not reached) all throw an EventsLostError from the read's iterator.
 * So does any resume by index of a log marked lost: a re-created log counts from 0 again, so an
 * index cannot say which log it came from.
 */
export interface RunEventLog {
  /**
   * Creates the log before the run starts, so a join that arrives before the first event waits
   * instead of finding nothing. Idempotent: an existing log keeps the options it was created
   * with; an ended one that is still retained is reopened (a retried attempt continues its log).
   */
  open(key: string, options: OpenOptions): Promise<void>;
  /**
   * Appends and wakes the readers; returns the id. A key nobody opened is created as an
   * idle-expiring resumable log. One key's writes (open, append, end) take effect in the order they
   * were called, so a writer need not await each append before the next: an end() called after
   * appends ends the log after them. Each append's promise still settles with its own outcome.
   */
  append(key: string, event: RunEvent, options?: AppendOptions): Promise<string>;
  /**
   * Readers drain what is left, then end. Resumable logs stay readable for their retention time;
   * others go at once. Ending an ended or unknown log changes nothing (its `alsoTo` still applies),
   * except that a log this process wrote and lost is left behind as an ended log marked lost, so
   * that later joins say so instead of finding nothing.
   */
  end(key: string, options?: EndOptions): Promise<void>;
  /**
   * Removes the logs and all they hold (a thread deleted): a log created later under the same key
   * starts empty. Their readers end. A writer still writing one re-creates it marked lost.
   */
  delete(keys: string[]): Promise<void>;
  /**
   * Yields until the log is ended and drained, or the signal aborts. An unknown key yields nothing,
   * unless `after` is an id or index: that resume throws EventsLostError (see "Lost logs" above).
   * A malformed `after` throws a GantryError("invalid") here, before any event is read.
   * The reader is attached from this call on: iterate it to the end, return() it or abort the signal.
   * Events are shared between readers; treat them as read-only.
   */
  read(key: string, options: ReadOptions): AsyncIterable<ReadEvent>;
  has(key: string): Promise<boolean>;
  /** The newest event held, if any: where a log's next writer continues from (the protocol's `seq`). */
  last(key: string): Promise<StoredEvent | undefined>;
  /**
   * This process is the log's writer (a run executing here) until it ends the log or calls the
   * result: readers here may take its events straight from the writes instead of through the
   * shared store, and go back to the store when the writer stops without ending the log (a run
   * handed to another worker).
   */
  writeHere(key: string): () => void;
}

export const DEFAULT_MAX_EVENTS = 50_000;
/** How many logs a process remembers having written (see "Lost logs"); past it the oldest are forgotten. */
export const WRITTEN_LOGS_REMEMBERED = 10_000;

/** Sets `key` as the newest entry of a map bounded to WRITTEN_LOGS_REMEMBERED entries. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > WRITTEN_LOGS_REMEMBERED) map.delete(map.keys().next().value!);
}
