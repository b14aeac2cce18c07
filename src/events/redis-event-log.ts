// Event logs in Redis, so every replica can serve every stream and Last-Event-ID resumes anywhere.
// Each log is a Redis stream (XADD ids are the `<ms>-<seq>` ids thread streams send; run streams
// send each event's index, which readers count) plus a small hash of its options, whether it ended
// and which processes read it (redis-log-scripts.ts). Appends send
// what they wrote to each of those processes' channel; a process subscribes to its own once, at
// start, and hands each message to its readers of that log. A reader takes a batch as it is when
// it continues where the reader is, reads the stream otherwise, and polls as well, so a lost
// message costs one poll interval. A reader's attach registers its process and reads its first page.
//
// Writes to one log go out one script call at a time, in call order; appends made while a call is
// in flight wait and then go together in the next one (group commit). A writer that does not await
// each append (a run emitting thousands of events) so costs one round trip per batch, not per event.
//
// A log written by this process (writeHere: a run executing here) hands each batch it wrote to the
// readers here as it is, with the id it follows: its scripts send nothing to this process, so those
// readers parse nothing, including those that attached before the run started here. When the writer
// stops without ending the log (the run went to another worker), the next writer sends to this
// process again, as the readers' registration asks.
//
// Each log carries a `born` stamp (which log it is: redis-log-scripts.ts). A reader that finds its
// log gone, or another log under its key, throws EventsLostError; so does a replay or resume the
// log cannot serve in full (the ATTACH script says why). Writers pass the stamp of the log they
// wrote last, so a write to a log that vanished re-creates it marked lost (see "Lost logs" on the port).
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { invalid } from "../errors.js";
import { EventsLostError, LOST, StaleWriterError } from "./event-log-errors.js";
import { type EventPayloadCodec, plainPayloads } from "./event-payload-codec.js";
import type { RedisChannels } from "./redis-channels.js";
import { type Batch, type BatchEntry, batchInbox, parseBatch } from "./redis-batch-inbox.js";
import { APPEND, ATTACH, DELETE, END, OPEN, PAGE_READ } from "./redis-log-scripts.js";
import { DEFAULT_MAX_EVENTS, type ReadEvent, remember, type RunEvent, type RunEventLog, type StoredEvent } from "./run-event-log.js";

export interface RedisEventLogOptions {
  commands: Redis;
  channels: RedisChannels;
  prefix: string;
  /** How long an ended log (or an idle thread log) stays readable: RESUMABLE_STREAM_TTL_SECONDS. */
  retentionMs: number;
  /**
   * Expiry of a log that has not ended, renewed by every append: a log whose run's worker died and
   * whose run never ran again goes away by itself. Longer than the longest run (BG_JOB_TIMEOUT_SECS).
   */
  openTtlMs: number;
  /** How often a waiting reader checks without a nudge. */
  pollMs?: number;
  /** Per-log bound (approximate, XADD MAXLEN ~); past it the oldest events are dropped. */
  maxEvents?: number;
  /** Unique per process (the worker id): names the channel on which this process hears about the logs it reads. */
  processId: string;
  /** How event data is stored: plain JSON unless encryption at rest seals it. */
  payloads?: EventPayloadCodec;
}

const FROM_START = new Set(["-1", "-"]);
const ID_PATTERN = /^(\d{1,15})-(\d{1,15})$/;
const INDEX_PATTERN = /^\d{1,15}$/;
const PAGE = 500;
// One batch's bounds: a script blocks Redis while it runs, and its arguments sit in memory twice.
const BATCH_EVENTS = 256;
const BATCH_BYTES = 1 << 20;

type StreamEntry = [id: string, fields: string[]];

/**
 * Events read from the stream, and the log's end flag as it was before they were read (null: the
 * log is gone), its born, and whether it trimmed events the reader had not read.
 */
interface Page {
  ended: string | null;
  entries: StreamEntry[];
  born: string;
  trimmed: boolean;
}

/**
 * Where a new reader stands (the id and index of the event before its first), and the first page
 * it reads; or why its replay would read short.
 */
interface Attached {
  cursor: string;
  index: number;
  idle: boolean;
  page: Page;
  gap: "" | "start" | "before" | "restarted";
}

interface Pending {
  event: RunEvent;
  data: string;
  also: boolean;
  resolve(id: string): void;
  reject(err: unknown): void;
}

/** A batch, a nudge (a message that is no batch: 'open', an end whose position is unknown: read the stream), or the log deleted. */
type Heard = Batch | "nudge" | "gone";

/** A write waiting its turn on its log: a batch of appends, or another script call. */
type Write = { batch: Pending[]; alsoTo: string | undefined; ifOpen: boolean; writer: number | undefined; bytes: number } | { run: () => Promise<void> };

export function createRedisEventLog(options: RedisEventLogOptions): RunEventLog {
  const { commands, channels, prefix, retentionMs, openTtlMs } = options;
  const pollMs = options.pollMs ?? 1_000;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const payloads = options.payloads ?? plainPayloads;
  const toEvent = (id: string, fields: string[]) => storedEvent(id, fields, payloads);
  const streamKey = (key: string) => `${prefix}events:${key}`;
  const metaKey = (key: string) => `${prefix}events:${key}:meta`;
  const channel = (key: string) => `${prefix}events:${key}`;
  // Scripts run by hash (EVALSHA) after the first call; each is one round trip and atomic.
  const script = (lua: string, numberOfKeys = 2) => {
    const name = `gantryLog${createHash("sha1").update(lua).digest("hex").slice(0, 12)}`;
    commands.defineCommand(name, { numberOfKeys, lua });
    const command = (commands as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[name]!;
    return (...args: Array<string | number>) => command.call(commands, ...args);
  };
  const openScript = script(OPEN);
  const appendScript = script(APPEND, 4);
  const endScript = script(END, 4);
  const attachScript = script(ATTACH);
  const pageScript = script(PAGE_READ);
  const deleteScript = script(DELETE);
  // The born of the log this process last opened or appended to as its writer, and the last id it
  // wrote there, per key (see "Lost logs" on the port).
  const written = new Map<string, { born: string; last: string }>();
  const wrote = (key: string): [born: string, last: string] => {
    const mine = written.get(key);
    return mine ? [mine.born, mine.last] : ["", ""];
  };
  const writerArg = (writer: number | undefined) => (writer === undefined ? "" : String(writer));
  const refusal = (key: string, err: unknown, writer: number | undefined): unknown => {
    const message = (err as Error).message;
    if (message.includes("GANTRY_LOG_ENDED")) return new Error(`Event log ${key} has ended; open() it again before appending`);
    const stale = /GANTRY_STALE_WRITER (\d+)/.exec(message);
    if (stale) return new StaleWriterError(key, writer ?? 0, Number(stale[1]));
    return err;
  };

  // Per log, the writes not yet sent, oldest first; a log is listed while one of its writes is in flight.
  const queues = new Map<string, Write[]>();
  // The readers here, by their log's channel (the name messages about the log carry).
  const readers = new Map<string, Set<(heard: Heard) => void>>();
  const hear = (logChannel: string, heard: Heard) => {
    for (const reader of readers.get(logChannel) ?? []) reader(heard);
  };
  // Logs written here (writeHere), each with its writer's token: a stop from an earlier writer of the key changes nothing.
  const writing = new Map<string, object>();
  // Subscribed once for the process's lifetime. A reader that attaches before Redis confirmed it
  // reads the stream once more when it has, for what was sent before the subscription took.
  const ownChannel = `${prefix}events:proc:${options.processId}`;
  let subscribed = false;
  const subscription = channels
    .listen(ownChannel, (message) => {
      const split = message.indexOf("\n");
      const logChannel = message.slice(0, split);
      if (split < 0 || !readers.has(logChannel)) return;
      const body = message.slice(split + 1);
      hear(logChannel, body.startsWith("{") ? parseBatch(body, payloads) : body === "gone" ? "gone" : "nudge");
    })
    .then(() => {
      subscribed = true;
    });

  const drain = async (key: string, queue: Write[]) => {
    for (let write = queue.shift(); write; write = queue.shift()) {
      if ("run" in write) await write.run();
      else await sendBatch(key, write);
    }
    queues.delete(key);
  };

  const enqueue = (key: string, write: Write) => {
    const queue = queues.get(key);
    if (queue) return void queue.push(write);
    const fresh = [write];
    queues.set(key, fresh);
    void drain(key, fresh);
  };

  /** Runs `call` once the log's earlier writes are done, with their outcome. */
  const inTurn = <T>(key: string, call: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => enqueue(key, { run: () => call().then(resolve, reject) }));

  const sendBatch = async (key: string, { batch, alsoTo: also, ifOpen, writer }: Extract<Write, { batch: Pending[] }>) => {
    // Decided as the batch leaves: its readers here hear it either from Redis or from here, never both.
    const here = writing.has(key);
    const args: Array<string | number> = [
      metaKey(key),
      streamKey(key),
      also === undefined ? metaKey(key) : metaKey(also),
      also === undefined ? streamKey(key) : streamKey(also),
      maxEvents,
      retentionMs,
      openTtlMs,
      channel(key),
      also === undefined ? "" : channel(also),
      ifOpen ? "1" : "0",
      here ? ownChannel : "",
      writerArg(writer),
      ...(ifOpen ? ["", ""] : wrote(key)),
    ];
    for (const one of batch) args.push(one.also ? "1" : "0", one.event.event, one.data);
    try {
      const [prev, born, ...ids] = (await appendScript(...args)) as string[];
      if (!ifOpen && born) remember(written, key, { born, last: ids.at(-1) ?? "" });
      batch.forEach((one, i) => one.resolve(ids[i] ?? ""));
      if (here && prev !== undefined && ids.length === batch.length && readers.has(channel(key))) {
        hear(channel(key), { prev, entries: batch.map((one, i): BatchEntry => [ids[i]!, one.event.event, one.event.data]), end: false });
      }
    } catch (err) {
      const failure = refusal(key, err, writer);
      for (const one of batch) one.reject(failure);
    }
  };

  /** Where a new reader starts, with the first page it reads: null for an unknown log. */
  const attach = async (key: string, after: string | undefined): Promise<Attached | null> => {
    const from = after === undefined ? "" : FROM_START.has(after) ? "0-0" : after;
    const reply = (await attachScript(metaKey(key), streamKey(key), from, PAGE, ownChannel)) as
      | []
      | [string, string | null, string, StreamEntry[], string, Attached["gap"], number];
    if (reply.length === 0) return null;
    const [ended, idle, cursor, entries, born, gap, index] = reply;
    return { cursor, index, idle: idle === "1", page: { ended, entries, born, trimmed: false }, gap };
  };

  /**
   * The attach is sent at once (the reader is attached from this call on), and the reader listens
   * from then on: what is written after the attach reaches it, so the attach's first page is all it
   * reads from the stream until something is missing. It stops listening when it ends, returns
   * (even before its first pull) or is aborted; its process stays registered on the log until the
   * log expires, and ignores what it hears of a log it no longer reads.
   */
  const follow = (key: string, after: string | undefined, signal: AbortSignal | undefined): AsyncGenerator<ReadEvent> => {
    const start = attach(key, after);
    start.catch(() => {});
    const unconfirmed = subscribed ? undefined : subscription;
    // Whether the stream may hold what no message brought: after a nudge, after a gap, at every
    // poll, and when the process's subscription was not confirmed as the reader attached.
    let stale = unconfirmed !== undefined;
    let wake: (() => void) | undefined;
    const inbox = batchInbox();
    let gone = false;
    const reader = (heard: Heard) => {
      if (heard === "gone") gone = true;
      else if (heard === "nudge" || !inbox.add(heard)) stale = true;
      wake?.();
    };
    const logChannel = channel(key);
    let listeners = readers.get(logChannel);
    if (!listeners) readers.set(logChannel, (listeners = new Set()));
    listeners.add(reader);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      signal?.removeEventListener("abort", onAbort);
      if (listeners.delete(reader) && listeners.size === 0 && readers.get(logChannel) === listeners) readers.delete(logChannel);
    };
    const onAbort = () => {
      leave();
      wake?.();
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    const events = (async function* () {
      try {
        const position = await start;
        if (!position) {
          // A resume from an id needs the log that id came from.
          if (after !== undefined && !FROM_START.has(after)) throw new EventsLostError(key, LOST.before(after));
          return;
        }
        if (position.gap) throw new EventsLostError(key, position.gap === "start" ? LOST.start : LOST[position.gap](after!));
        await unconfirmed;
        // Every event from the cursor on reaches this reader, in order: each is the one after the last.
        let { cursor, index } = position;
        const { born } = position.page;
        let page: Page | undefined = position.page;
        while (!signal?.aborted) {
          if (gone) return;
          // A batch heard that continues from the cursor needs no read of the stream. Not while
          // stale: a nudge before it may stand for events its `p` does not know of (an older
          // replica's appends, which keep no `last`).
          if (!stale && !page) {
            const batch = inbox.next(cursor);
            if (batch === "end") return;
            if (batch) {
              for (const [id, event, data] of batch) {
                cursor = id;
                yield { id, event, data, index: ++index };
                if (signal?.aborted) return;
              }
              continue;
            }
            if (inbox.waiting()) stale = true;
          }
          if (stale || page) {
            // The attach's page leaves `stale` as it was: a reader that was not listening yet reads again after it.
            const first = page;
            page = undefined;
            if (!first) stale = false;
            const read = first ?? (await readPage(key, cursor));
            const { ended, entries } = read;
            // Gone without an end, or another log under the key since: what was between is lost.
            // (A log an older replica made has no born to compare.)
            if (ended === null && !gone) throw new EventsLostError(key, LOST.gone);
            if (born !== "" && read.born !== born && !gone) throw new EventsLostError(key, LOST.replaced);
            if (read.trimmed) throw new EventsLostError(key, LOST.behind);
            for (const [id, fields] of entries) {
              cursor = id;
              yield { ...toEvent(id, fields), index: ++index };
              if (signal?.aborted) return;
            }
            if (entries.length === PAGE) stale = true;
            else if (ended !== "0") return;
            continue;
          }
          const polled = await new Promise<boolean>((done) => {
            const timer = setTimeout(() => done(true), pollMs);
            wake = () => {
              clearTimeout(timer);
              done(false);
            };
            if (signal?.aborted) wake();
          });
          wake = undefined;
          if (!polled) continue;
          stale = true;
          // A followed thread log must outlive its idle expiry while someone is reading it.
          if (position.idle) await commands.pipeline().pexpire(metaKey(key), retentionMs).pexpire(streamKey(key), retentionMs).exec();
        }
      } finally {
        leave();
      }
    })();
    // A generator returned before its first pull never runs its finally.
    const close = events.return.bind(events);
    events.return = (value) => {
      leave();
      return close(value);
    };
    return events;
  };

  const readPage = async (key: string, cursor: string): Promise<Page> => {
    const [ended, entries, born, trimmed] = (await pageScript(metaKey(key), streamKey(key), cursor, PAGE)) as [string | null, StreamEntry[], string, string];
    return { ended, entries, born, trimmed: trimmed === "1" };
  };

  return {
    open(key, opts) {
      return inTurn(key, async () => {
        let reply: [born: string, last: string];
        try {
          reply = (await openScript(
            metaKey(key),
            streamKey(key),
            opts.resumable ? "1" : "0",
            opts.expiresWhenIdle ? "1" : "0",
            retentionMs,
            openTtlMs,
            channel(key),
            opts.createOnly ? "1" : "0",
            opts.createOnly ? "" : writerArg(opts.writer),
          )) as [string, string];
        } catch (err) {
          throw refusal(key, err, opts.writer);
        }
        const [born, last] = reply;
        if (!opts.createOnly) {
          if (born) remember(written, key, { born, last });
          else written.delete(key);
        }
      });
    },

    append(key, event, appendOptions = {}) {
      return new Promise<string>((resolve, reject) => {
        const data = payloads.encode(event.data);
        const { alsoTo, writer } = appendOptions;
        const ifOpen = appendOptions.ifOpen === true;
        const pending: Pending = { event, data, also: alsoTo !== undefined, resolve, reject };
        const last = queues.get(key)?.at(-1);
        // Joins the batch waiting behind the write in flight, unless it would take it elsewhere.
        if (
          last &&
          "batch" in last &&
          last.ifOpen === ifOpen &&
          last.writer === writer &&
          (last.alsoTo === undefined || alsoTo === undefined || last.alsoTo === alsoTo) &&
          last.batch.length < BATCH_EVENTS &&
          last.bytes + data.length <= BATCH_BYTES
        ) {
          last.batch.push(pending);
          last.bytes += data.length;
          last.alsoTo ??= alsoTo;
          return;
        }
        enqueue(key, { batch: [pending], alsoTo, ifOpen, writer, bytes: data.length });
      });
    },

    end(key, endOptions = {}) {
      const { alsoTo } = endOptions;
      const events: string[] = [];
      for (const event of alsoTo?.events ?? []) events.push(event.event, payloads.encode(event.data));
      return inTurn(key, async () => {
        const here = writing.has(key);
        let last: string | number;
        try {
          last = (await endScript(
            metaKey(key),
            streamKey(key),
            metaKey(alsoTo?.key ?? key),
            streamKey(alsoTo?.key ?? key),
            Math.min(endOptions.retainMs ?? retentionMs, retentionMs),
            channel(key),
            maxEvents,
            retentionMs,
            openTtlMs,
            alsoTo === undefined ? "" : channel(alsoTo.key),
            here ? ownChannel : "",
            writerArg(endOptions.writer),
            ...wrote(key),
            ...events,
          )) as string | number;
        } catch (err) {
          throw refusal(key, err, endOptions.writer);
        }
        written.delete(key);
        if (here && typeof last === "string") hear(channel(key), last === "" ? "nudge" : { prev: last, entries: [], end: true });
        // Ended: nothing more will be written here.
        writing.delete(key);
      });
    },

    delete(keys) {
      return Promise.all(keys.map((key) => inTurn(key, () => deleteScript(metaKey(key), streamKey(key), channel(key))))).then(() => {});
    },

    writeHere(key) {
      const token = {};
      writing.set(key, token);
      return () => {
        if (writing.get(key) === token) writing.delete(key);
      };
    },

    read(key, { after, signal }) {
      if (after !== undefined && !FROM_START.has(after)) checkResume(after);
      if (signal?.aborted) return (async function* () {})();
      return follow(key, after, signal);
    },

    async has(key) {
      return (await commands.exists(metaKey(key))) === 1;
    },

    async last(key) {
      const [entry] = (await commands.xrevrange(streamKey(key), "+", "-", "COUNT", 1)) as StreamEntry[];
      return entry ? toEvent(entry[0], entry[1]) : undefined;
    },
  };
}

function storedEvent(id: string, fields: string[], payloads: EventPayloadCodec): StoredEvent {
  let event = "";
  let data: unknown = null;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "e") event = fields[i + 1]!;
    else if (fields[i] === "d") data = payloads.decode(JSON.parse(fields[i + 1]!));
  }
  return { id, event, data };
}

function checkResume(after: string): void {
  if (!INDEX_PATTERN.test(after) && !ID_PATTERN.test(after)) {
    throw invalid(`Last-Event-ID '${after.slice(0, 64)}' is not an event id from this server (expected a number, <ms>-<seq>, "-1" or "-")`);
  }
}
