// The in-process event log, what `gantry dev` uses: the port's semantics (run-event-log.ts) over
// plain arrays, one process being every reader and every writer.
import { invalid } from "../errors.js";
import { EventsLostError, LOST, StaleWriterError } from "./event-log-errors.js";
import { DEFAULT_MAX_EVENTS, type OpenOptions, type ReadEvent, type RunEvent, type RunEventLog, remember } from "./run-event-log.js";

export interface MemoryEventLogOptions {
  /** How long an ended resumable log (or an idle thread log) stays readable: RESUMABLE_STREAM_TTL_SECONDS. */
  retentionMs: number;
  /** Per-log bound; past it the oldest events are dropped. */
  maxEvents?: number;
  now?: () => number;
}

const FROM_START = new Set(["-1", "-"]);
const ID_PATTERN = /^(\d{1,15})-(\d{1,15})$/;
const INDEX_PATTERN = /^\d{1,15}$/;
const SWEEP_MS = 1000;
// Compacting the dropped prefix only once it is large keeps dropping amortised O(1).
const COMPACT_AFTER = 1024;

/** Where a resume continues after: an event's index, or its id. */
type Resume = { index: number } | { id: [number, number] };

interface Cursor {
  /** Absolute position of the next event to yield. */
  pos: number;
  /** Set when resuming after an id newer than every event held: events up to it are skipped. */
  floor?: [number, number];
}

interface Log {
  resumable: boolean;
  expiresWhenIdle: boolean;
  /** events[head..] are held; events[i] is at absolute position base + i, which is its index. */
  events: ReadEvent[];
  base: number;
  head: number;
  lastMs: number;
  lastSeq: number;
  endedAt: number | undefined;
  /** Set when the log ends: how long it stays after that. */
  retainMs: number;
  touchedAt: number;
  readers: Set<Cursor>;
  /** One promise shared by every waiting reader, settled on the next change. */
  waiter: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Events up to this id may be missing (the log was started again after it vanished): a resume from before it, or from the start when `lost`, reads short. */
  origin: [number, number];
  lost: boolean;
  /** The newest event dropped for the size bound: a resume from before it reads short. */
  dropped: [number, number] | undefined;
  /** The newest writer recorded (WriterOption); 0 for none. */
  writer: number;
  /** Removed by delete(): its readers stop. */
  deleted: boolean;
  /** Which log this is, of all the logs a key had in this process. */
  incarnation: number;
}

/**
 * In-process logs. Readers hold a cursor into the one shared array, so a slow reader costs no
 * copy; it pins events only in a non-resumable log, and never more than `maxEvents`. A reader that
 * falls more than `maxEvents` behind has lost what was dropped: its read throws EventsLostError. Expiry is checked on every access against `now`, and an
 * unref'd sweep reclaims logs nobody touches.
 */
export function createMemoryEventLog(options: MemoryEventLogOptions): RunEventLog & { close(): void } {
  const now = options.now ?? Date.now;
  const { retentionMs } = options;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const logs = new Map<string, Log>();
  // The log this process last opened or appended to as its writer, per key (see "Lost logs").
  const written = new Map<string, number>();
  let incarnations = 0;
  // Ids come from one clock for every log here, so that no id of a log that is gone is ever given
  // again under its key: a resume from it is told apart from one in the log that came next.
  let clockMs = 0;
  let clockSeq = -1;
  const nextId = (): [number, number] => {
    const ms = Math.max(now(), clockMs);
    return [ms, ms === clockMs ? clockSeq + 1 : 0];
  };

  const expiresAt = (log: Log): number => {
    if (log.endedAt !== undefined) return log.endedAt + log.retainMs;
    if (log.expiresWhenIdle && log.readers.size === 0) return log.touchedAt + retentionMs;
    return Infinity;
  };

  // Dropping a log only unlists it: attached readers keep their reference and drain it.
  const sweep = () => {
    const time = now();
    for (const [key, log] of logs) if (expiresAt(log) <= time) logs.delete(key);
  };
  // Every second, not every retention period: a log ended with a short retention must not stay
  // (with all its events) for the full period.
  const sweeper = setInterval(sweep, SWEEP_MS);
  sweeper.unref();

  const find = (key: string): Log | undefined => {
    const log = logs.get(key);
    if (log && expiresAt(log) <= now()) {
      logs.delete(key);
      return undefined;
    }
    return log;
  };

  const create = (key: string, opts: OpenOptions): Log => {
    const log: Log = {
      resumable: opts.resumable,
      expiresWhenIdle: opts.expiresWhenIdle ?? false,
      events: [],
      base: 0,
      head: 0,
      lastMs: 0,
      lastSeq: -1,
      endedAt: undefined,
      retainMs: retentionMs,
      touchedAt: now(),
      readers: new Set(),
      waiter: undefined,
      origin: nextId(),
      lost: false,
      dropped: undefined,
      writer: opts.createOnly ? 0 : (opts.writer ?? 0),
      deleted: false,
      incarnation: ++incarnations,
    };
    logs.set(key, log);
    return log;
  };

  /** Marks the log as missing what came before its next event; readers attached before compare their origin with the log's and stop. */
  const markLost = (log: Log): void => {
    log.lost = true;
    log.origin = nextId();
    wake(log);
  };

  /** The log a write goes to, re-created or marked lost when the one this process wrote is gone. */
  const writerLog = (key: string, found: Log | undefined): Log => {
    const mine = written.get(key);
    if (!found) {
      const log = create(key, { resumable: true, expiresWhenIdle: true });
      log.lost = true;
      return log;
    }
    if (mine !== undefined && mine !== found.incarnation) markLost(found);
    return found;
  };

  const checkWriter = (key: string, log: Log | undefined, writer: number | undefined): void => {
    if (log && writer !== undefined && log.writer > writer) throw new StaleWriterError(key, writer, log.writer);
  };

  /** Appends to a log that has not ended; returns the id. */
  const add = (log: Log, event: RunEvent): string => {
    [clockMs, clockSeq] = nextId();
    log.lastMs = clockMs;
    log.lastSeq = clockSeq;
    log.touchedAt = now();
    const stored: ReadEvent = { id: `${clockMs}-${clockSeq}`, event: event.event, data: event.data, index: log.base + log.events.length };
    // A non-resumable log with no reader has nobody to deliver to now or later. It holds nothing
    // then (its last reader dropped all), so the event is counted as dropped at once.
    if (log.resumable || log.readers.size > 0) {
      log.events.push(stored);
      const next = log.base + log.events.length;
      dropBefore(log, log.resumable ? next - maxEvents : Math.max(next - maxEvents, slowestReader(log)));
      wake(log);
    } else {
      log.base += 1;
    }
    return stored.id;
  };

  return {
    async open(key, opts) {
      const found = find(key);
      if (found && opts.createOnly) return;
      checkWriter(key, found, opts.writer);
      const log = found ?? create(key, opts);
      log.endedAt = undefined;
      log.touchedAt = now();
      if (opts.createOnly) return;
      log.writer = Math.max(log.writer, opts.writer ?? 0);
      remember(written, key, log.incarnation);
    },

    async append(key, event, appendOptions) {
      const found = find(key);
      if (appendOptions?.ifOpen && (!found || found.endedAt !== undefined)) return "";
      checkWriter(key, found, appendOptions?.writer);
      const log = appendOptions?.ifOpen ? found! : writerLog(key, found);
      if (log.endedAt !== undefined) throw new Error(`Event log ${key} has ended; open() it again before appending`);
      log.writer = Math.max(log.writer, appendOptions?.writer ?? 0);
      if (!appendOptions?.ifOpen) remember(written, key, log.incarnation);
      const id = add(log, event);
      const also = appendOptions?.alsoTo === undefined ? undefined : find(appendOptions.alsoTo);
      if (also && also.endedAt === undefined) add(also, event);
      return id;
    },

    async end(key, endOptions) {
      let log = find(key);
      checkWriter(key, log, endOptions?.writer);
      // What this process wrote and lost stays behind as a lost, ended log, for the joins to come.
      if (written.has(key)) log = writerLog(key, log);
      written.delete(key);
      if (log && log.endedAt === undefined) {
        log.endedAt = now();
        log.retainMs = Math.min(endOptions?.retainMs ?? retentionMs, retentionMs);
        if (!log.resumable) logs.delete(key);
        wake(log);
      }
      const alsoTo = endOptions?.alsoTo;
      const also = alsoTo ? find(alsoTo.key) : undefined;
      if (alsoTo && also && also.endedAt === undefined) for (const event of alsoTo.events) add(also, event);
    },

    async delete(keys) {
      for (const key of keys) {
        const log = logs.get(key);
        if (!log) continue;
        logs.delete(key);
        log.deleted = true;
        wake(log);
      }
    },

    read(key, { after, signal }) {
      const target = after !== undefined && !FROM_START.has(after) ? parseResume(after) : undefined;
      const log = find(key);
      if (!log && target) return lostReader(key, LOST.before(after!));
      if (!log || signal?.aborted) return (async function* () {})();
      const gap = log.resumable && after !== undefined ? gapBefore(log, after, target) : undefined;
      if (gap) return lostReader(key, gap);
      const cursor = startOf(log, after, target);
      log.readers.add(cursor);
      const detach = () => {
        if (!log.readers.delete(cursor)) return;
        log.touchedAt = now();
        if (!log.resumable) dropBefore(log, slowestReader(log));
      };
      const onAbort = () => {
        detach();
        wake(log);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      return follow(key, log, cursor, signal, () => {
        detach();
        signal?.removeEventListener("abort", onAbort);
      });
    },

    // Every reader already takes events from memory here.
    writeHere: () => () => {},
    async has(key) {
      return find(key) !== undefined;
    },

    async last(key) {
      const log = find(key);
      if (!log || log.events.length === log.head) return undefined;
      const { id, event, data } = log.events[log.events.length - 1]!;
      return { id, event, data };
    },

    close() {
      clearInterval(sweeper);
      const time = now();
      for (const log of logs.values()) {
        log.endedAt ??= time;
        wake(log);
      }
      logs.clear();
      written.clear();
    },
  };
}

/** Why a replay or resume of this log would read short, if it would. */
function gapBefore(log: Log, after: string, target: Resume | undefined): string | undefined {
  if (!target) return log.lost ? LOST.start : undefined;
  if ("index" in target) {
    if (log.lost) return LOST.restarted(after);
    const next = target.index + 1;
    return next < log.base + log.head || next > log.base + log.events.length ? LOST.before(after) : undefined;
  }
  if (compareIds(target.id, log.origin) < 0 || (log.dropped && compareIds(target.id, log.dropped) < 0)) return LOST.before(after);
  return undefined;
}

/** A reader that throws at its first step: the read was called, the stream has started, and it is short. */
function lostReader(key: string, why: string): AsyncGenerator<ReadEvent> {
  return (async function* () {
    yield* [];
    throw new EventsLostError(key, why);
  })();
}

async function* follow(key: string, log: Log, cursor: Cursor, signal: AbortSignal | undefined, cleanup: () => void): AsyncGenerator<ReadEvent> {
  const origin = log.origin;
  try {
    while (!signal?.aborted) {
      if (log.deleted) return;
      if (log.origin !== origin) throw new EventsLostError(key, LOST.replaced);
      if (cursor.pos < log.base + log.head) throw new EventsLostError(key, LOST.behind);
      if (cursor.pos < log.base + log.events.length) {
        const event = log.events[cursor.pos - log.base]!;
        cursor.pos += 1;
        if (cursor.floor && compareIds(parseId(event.id), cursor.floor) <= 0) continue;
        cursor.floor = undefined;
        yield event;
      } else if (log.endedAt !== undefined) {
        return;
      } else {
        await changed(log);
      }
    }
  } finally {
    cleanup();
  }
}

/** Without history there is nothing to resume from, so a non-resumable log always attaches live. */
function startOf(log: Log, after: string | undefined, resume: Resume | undefined): Cursor {
  const next = log.base + log.events.length;
  if (after === undefined || !log.resumable) return { pos: next };
  if (!resume) return { pos: log.base + log.head };
  if ("index" in resume) return { pos: resume.index + 1 };
  const target = resume.id;
  if (compareIds(target, [log.lastMs, log.lastSeq]) > 0) return { pos: next, floor: target };
  let lo = log.head;
  let hi = log.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareIds(parseId(log.events[mid]!.id), target) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return { pos: log.base + lo };
}

function slowestReader(log: Log): number {
  let min = log.base + log.events.length;
  for (const reader of log.readers) min = Math.min(min, reader.pos);
  return min;
}

function dropBefore(log: Log, pos: number): void {
  const index = Math.min(pos - log.base, log.events.length);
  if (index <= log.head) return;
  if (log.resumable) log.dropped = parseId(log.events[index - 1]!.id);
  log.head = index;
  if (log.head === log.events.length || (log.head >= COMPACT_AFTER && log.head * 2 >= log.events.length)) {
    log.events = log.events.slice(log.head);
    log.base += log.head;
    log.head = 0;
  }
}

function changed(log: Log): Promise<void> {
  if (!log.waiter) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    log.waiter = { promise, resolve };
  }
  return log.waiter.promise;
}

function wake(log: Log): void {
  const waiter = log.waiter;
  log.waiter = undefined;
  waiter?.resolve();
}

function parseResume(after: string): Resume {
  if (INDEX_PATTERN.test(after)) return { index: Number(after) };
  const match = ID_PATTERN.exec(after);
  if (!match) throw invalid(`Last-Event-ID '${after.slice(0, 64)}' is not an event id from this server (expected a number, <ms>-<seq>, "-1" or "-")`);
  return { id: [Number(match[1]), Number(match[2])] };
}

function parseId(id: string): [number, number] {
  const match = ID_PATTERN.exec(id)!;
  return [Number(match[1]), Number(match[2])];
}

function compareIds(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
