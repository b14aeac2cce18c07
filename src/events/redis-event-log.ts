// Event logs in Redis, so every replica can serve every stream and Last-Event-ID resumes anywhere.
// Each log is a Redis stream (XADD ids are the `<ms>-<seq>` ids clients see) plus a small hash of
// its options and whether it ended. Appends publish what they wrote on the log's channel; readers
// take it from there when it continues where they are, read the stream otherwise, and poll as
// well, so a lost message costs one poll interval. A reader's attach reads its first page too.
//
// Writes to one log go out one script call at a time, in call order; appends made while a call is
// in flight wait and then go together in the next one (group commit). A writer that does not await
// each append (a run emitting thousands of events) so costs one round trip per batch, not per event.
//
// A log written by this process (writeHere: a run executing here) hands each batch it wrote to the
// readers here as it is, with the id it follows, as the channel would: they subscribe to nothing
// and parse nothing, and the channel's copy goes to the other replicas only. When the writer stops
// without ending the log (the run went to another worker), those readers subscribe after all and
// read what they missed from the stream.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { invalid } from "../errors.js";
import type { RedisChannels } from "./redis-channels.js";
import { DEFAULT_MAX_EVENTS, type RunEvent, type RunEventLog, type StoredEvent } from "./run-event-log.js";

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
}

const FROM_START = new Set(["-1", "-"]);
const ID_PATTERN = /^(\d{1,15})-(\d{1,15})$/;
const PAGE = 500;
// One batch's bounds: a script blocks Redis while it runs, and its arguments sit in memory twice.
const BATCH_EVENTS = 256;
const BATCH_BYTES = 1 << 20;
// Events a reader holds from its channel before it has read them; past it, it reads the stream.
const INBOX_EVENTS = 4096;

// KEYS: meta, stream. ARGV: resumable, expiresWhenIdle, retentionMs, openTtlMs, channel, createOnly.
// Creates the log, or reopens an ended one (a retried attempt continues its log); with createOnly
// an existing log is left as it is.
const OPEN = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'resumable', ARGV[1], 'idle', ARGV[2], 'ended', '0')
elseif ARGV[6] == '1' then
  return 0
elseif redis.call('HGET', KEYS[1], 'ended') == '1' then
  redis.call('HSET', KEYS[1], 'ended', '0')
  redis.call('PUBLISH', ARGV[5], 'open')
end
local ttl = ARGV[4]
if redis.call('HGET', KEYS[1], 'idle') == '1' then ttl = ARGV[3] end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1`;

// Shared by the scripts that write events.
const WRITE_HELPERS = `
-- An empty stream follows 0-0, where a reader of it stands; one written before 'last' was kept follows nothing.
local function lastOf(meta, stream)
  local last = redis.call('HGET', meta, 'last')
  if not last and redis.call('XLEN', stream) == 0 then return '0-0' end
  return last
end
-- An event as a channel batch carries it, after its id: its name and its data (already JSON).
local function tailOf(name, data)
  return ',' .. cjson.encode(name) .. ',' .. data .. ']'
end
-- After a batch was added: the log keeps its newest id and its expiry is renewed (the retention
-- time for an idle-expiring log, the open TTL otherwise), and its channel gets the batch itself
-- with the id it follows, so a reader that is up to date takes it from there instead of reading
-- the stream again.
local function written(meta, stream, channel, prev, entries, last, retentionMs, openTtlMs)
  local t = openTtlMs
  if redis.call('HGET', meta, 'idle') == '1' then t = retentionMs end
  redis.call('HSET', meta, 'last', last)
  redis.call('PEXPIRE', meta, t)
  redis.call('PEXPIRE', stream, t)
  redis.call('PUBLISH', channel, '{"p":"' .. (prev or '') .. '","b":[' .. table.concat(entries, ',') .. ']}')
end
`;

// KEYS: meta, stream, also-meta, also-stream (the log's own again when there is none).
// ARGV: maxEvents, retentionMs, openTtlMs, channel, also-channel ('' for none), ifOpen, then per
// event: whether it also goes to the other log ('1'/'0'), its name, its data. Returns the id the
// batch follows ('' for none), then the ids; nothing when ifOpen found no open log.
// A key nobody opened becomes an idle-expiring resumable log, as in the in-process log.
const APPEND = `${WRITE_HELPERS}
local ended = redis.call('HGET', KEYS[1], 'ended')
if ended ~= '0' and ARGV[6] == '1' then return {} end
if ended == '1' then return redis.error_reply('GANTRY_LOG_ENDED') end
if not ended then redis.call('HSET', KEYS[1], 'resumable', '1', 'idle', '1', 'ended', '0') end
local also = ARGV[5] ~= '' and redis.call('HGET', KEYS[3], 'ended') == '0'
local prev = lastOf(KEYS[1], KEYS[2])
local alsoPrev = also and lastOf(KEYS[3], KEYS[4])
local ids, entries, alsoEntries = {}, {}, {}
local alsoLast = false
for i = 7, #ARGV, 3 do
  local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i + 1], 'd', ARGV[i + 2])
  local tail = tailOf(ARGV[i + 1], ARGV[i + 2])
  ids[#ids + 1] = id
  entries[#entries + 1] = '["' .. id .. '"' .. tail
  if also and ARGV[i] == '1' then
    alsoLast = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i + 1], 'd', ARGV[i + 2])
    alsoEntries[#alsoEntries + 1] = '["' .. alsoLast .. '"' .. tail
  end
end
written(KEYS[1], KEYS[2], ARGV[4], prev, entries, ids[#ids], ARGV[2], ARGV[3])
if alsoLast then written(KEYS[3], KEYS[4], ARGV[5], alsoPrev, alsoEntries, alsoLast, ARGV[2], ARGV[3]) end
table.insert(ids, 1, prev or '')
return ids`;

// KEYS: meta, stream, also-meta, also-stream (the log's own again when there is none).
// ARGV: retainMs, channel, maxEvents, retentionMs, openTtlMs, also-channel ('' for none), then per
// event for the other log: its name, its data.
// The channel hears the id the end follows: a reader that has read up to it is done, unread.
// Returns that id ('' when unknown), or 0 for a log that had ended already. The other log gets its
// events, if it is open, whether or not this one had ended (as separate calls would).
const END = `${WRITE_HELPERS}
local result = 0
if redis.call('HGET', KEYS[1], 'ended') == '0' then
  redis.call('HSET', KEYS[1], 'ended', '1')
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
  local last = lastOf(KEYS[1], KEYS[2])
  if last then redis.call('PUBLISH', ARGV[2], '{"p":"' .. last .. '","b":[],"end":1}') else redis.call('PUBLISH', ARGV[2], 'end') end
  result = last or ''
end
if ARGV[6] ~= '' and #ARGV > 6 and redis.call('HGET', KEYS[3], 'ended') == '0' then
  local prev = lastOf(KEYS[3], KEYS[4])
  local entries, last = {}, nil
  for i = 7, #ARGV, 2 do
    last = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'e', ARGV[i], 'd', ARGV[i + 1])
    entries[#entries + 1] = '["' .. last .. '"' .. tailOf(ARGV[i], ARGV[i + 1])
  end
  written(KEYS[3], KEYS[4], ARGV[6], prev, entries, last, ARGV[4], ARGV[5])
end
return result`;

// KEYS: meta, stream. ARGV: the id a reader starts after ('' to attach live), page size.
// Where a new reader starts, and what it reads first: the log's end flag, whether it expires when
// idle, the id the reader stands at, and the first page after it (none when it attaches live, as
// it does to a non-resumable log, which keeps no history). Nothing for an unknown log.
const ATTACH = `
local meta = redis.call('HMGET', KEYS[1], 'ended', 'idle', 'resumable')
if not meta[1] then return {} end
if ARGV[1] == '' or meta[3] ~= '1' then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  local newest = '0-0'
  if last[1] then newest = last[1][1] end
  return {meta[1], meta[2], newest, {}}
end
return {meta[1], meta[2], ARGV[1], redis.call('XRANGE', KEYS[2], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}`;

// KEYS: meta, stream. ARGV: cursor, page size. The end flag is read before the page: if it was
// set, every event is already in the stream.
const PAGE_READ = `
return {redis.call('HGET', KEYS[1], 'ended'), redis.call('XRANGE', KEYS[2], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}`;

type StreamEntry = [id: string, fields: string[]];

/** Events read from the stream, and the log's end flag as it was before they were read (null: the log is gone). */
interface Page {
  ended: string | null;
  entries: StreamEntry[];
}

/** Where a new reader stands, and the first page it reads. */
interface Attached {
  cursor: string;
  idle: boolean;
  page: Page;
}

interface Pending {
  event: RunEvent;
  data: string;
  also: boolean;
  resolve(id: string): void;
  reject(err: unknown): void;
}

/** A batch as a log's channel carries it: the id it follows, its events, whether the log ended after them. */
interface Batch {
  prev: string;
  entries: BatchEntry[];
  end: boolean;
}

/** A reader on this process of a log this process writes. */
interface LocalReader {
  /** A batch, or "end" for an end whose position is unknown. */
  hear(batch: Batch | "end"): void;
  /** The writer stopped without ending the log. */
  gone(): void;
}

/** A write waiting its turn on its log: a batch of appends, or another script call. */
type Write = { batch: Pending[]; alsoTo: string | undefined; ifOpen: boolean; bytes: number } | { run: () => Promise<void> };

export function createRedisEventLog(options: RedisEventLogOptions): RunEventLog {
  const { commands, channels, prefix, retentionMs, openTtlMs } = options;
  const pollMs = options.pollMs ?? 1_000;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
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

  // Per log, the writes not yet sent, oldest first; a log is listed while one of its writes is in flight.
  const queues = new Map<string, Write[]>();
  // Logs this process writes, with their readers here.
  const writers = new Map<string, Set<LocalReader>>();
  const hearLocally = (key: string, batch: Batch | "end") => {
    for (const reader of writers.get(key) ?? []) reader.hear(batch);
  };

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

  const sendBatch = async (key: string, { batch, alsoTo: also, ifOpen }: Extract<Write, { batch: Pending[] }>) => {
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
    ];
    for (const one of batch) args.push(one.also ? "1" : "0", one.event.event, one.data);
    try {
      const [prev, ...ids] = (await appendScript(...args)) as string[];
      batch.forEach((one, i) => one.resolve(ids[i] ?? ""));
      if (prev !== undefined && ids.length === batch.length && writers.get(key)?.size) {
        hearLocally(key, { prev, entries: batch.map((one, i): BatchEntry => [ids[i]!, one.event.event, one.event.data]), end: false });
      }
    } catch (err) {
      const failure = (err as Error).message.includes("GANTRY_LOG_ENDED") ? new Error(`Event log ${key} has ended; open() it again before appending`) : err;
      for (const one of batch) one.reject(failure);
    }
  };

  /** Where a new reader starts, with the first page it reads: null for an unknown log. */
  const attach = async (key: string, after: string | undefined): Promise<Attached | null> => {
    const from = after === undefined ? "" : FROM_START.has(after) ? "0-0" : after;
    const reply = (await attachScript(metaKey(key), streamKey(key), from, PAGE)) as [] | [string, string | null, string, StreamEntry[]];
    if (reply.length === 0) return null;
    const [ended, idle, cursor, entries] = reply;
    return { cursor, idle: idle === "1", page: { ended, entries } };
  };

  /**
   * The attach is sent at once: the reader is attached from this call on. A reader of a log written
   * here listens from then on too, so a batch written after the attach reaches it and the attach's
   * first page is all it reads from the stream until something is missing; a reader elsewhere
   * subscribes meanwhile and reads the stream once more for what was published before its
   * subscription took. The listener goes when the reader ends, returns (even before its first
   * pull) or is aborted.
   */
  const follow = (key: string, after: string | undefined, signal: AbortSignal | undefined): AsyncGenerator<StoredEvent> => {
    const start = attach(key, after);
    start.catch(() => {});
    // Whether the stream may hold what the channel did not bring: after a message that is no batch
    // ('end', 'open'), after a gap, at every poll, and for a reader that was not listening when it attached.
    let stale = false;
    let wake: (() => void) | undefined;
    const inbox = batchInbox();
    const hear = (batch: Batch | "end") => {
      if (batch === "end" || !inbox.add(batch)) stale = true;
      wake?.();
    };
    const subscribe = () => channels.listen(channel(key), (message) => hear(message.startsWith("{") ? parseBatch(message) : "end"));
    let unlisten: (() => void) | undefined;
    let left = false;
    const local = writers.get(key);
    if (local) {
      const reader: LocalReader = {
        hear,
        gone() {
          local.delete(reader);
          void subscribe().then((stop) => {
            if (left) return stop();
            unlisten = stop;
            // What the next writer wrote before the subscription took is in the stream.
            stale = true;
            wake?.();
          });
        },
      };
      local.add(reader);
      unlisten = () => local.delete(reader);
    } else {
      stale = true;
      void subscribe().then((stop) => {
        if (left) stop();
        else unlisten = stop;
      });
    }
    const leave = () => {
      if (left) return;
      left = true;
      signal?.removeEventListener("abort", onAbort);
      unlisten?.();
    };
    const onAbort = () => {
      leave();
      wake?.();
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    const events = (async function* () {
      try {
        const position = await start;
        if (!position) return;
        let { cursor } = position;
        let page: Page | undefined = position.page;
        while (!signal?.aborted) {
          // A batch the channel carried that continues from the cursor needs no read of the stream.
          // Not while stale: a nudge before it may stand for events its `p` does not know of (an
          // older replica's appends, which keep no `last`).
          if (!stale && !page) {
            const batch = inbox.next(cursor);
            if (batch === "end") return;
            if (batch) {
              for (const [id, event, data] of batch) {
                cursor = id;
                yield { id, event, data };
                if (signal?.aborted) return;
              }
              continue;
            }
            if (inbox.waiting()) stale = true;
          }
          if (stale || page) {
            stale = false;
            const { ended, entries } = page ?? (await readPage(key, cursor));
            page = undefined;
            for (const [id, fields] of entries) {
              cursor = id;
              yield toEvent(id, fields);
              if (signal?.aborted) return;
            }
            if (entries.length === PAGE) stale = true;
            // A missing flag means the log expired or was never there: nothing more will come.
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
    const [ended, entries] = (await pageScript(metaKey(key), streamKey(key), cursor, PAGE)) as [string | null, StreamEntry[]];
    return { ended, entries };
  };

  return {
    open(key, opts) {
      return inTurn(key, async () => {
        await openScript(
          metaKey(key),
          streamKey(key),
          opts.resumable ? "1" : "0",
          opts.expiresWhenIdle ? "1" : "0",
          retentionMs,
          openTtlMs,
          channel(key),
          opts.createOnly ? "1" : "0",
        );
      });
    },

    append(key, event, appendOptions = {}) {
      return new Promise<string>((resolve, reject) => {
        const data = JSON.stringify(event.data) ?? "null";
        const { alsoTo } = appendOptions;
        const ifOpen = appendOptions.ifOpen === true;
        const pending: Pending = { event, data, also: alsoTo !== undefined, resolve, reject };
        const last = queues.get(key)?.at(-1);
        // Joins the batch waiting behind the write in flight, unless it would take it elsewhere.
        if (
          last &&
          "batch" in last &&
          last.ifOpen === ifOpen &&
          (last.alsoTo === undefined || alsoTo === undefined || last.alsoTo === alsoTo) &&
          last.batch.length < BATCH_EVENTS &&
          last.bytes + data.length <= BATCH_BYTES
        ) {
          last.batch.push(pending);
          last.bytes += data.length;
          last.alsoTo ??= alsoTo;
          return;
        }
        enqueue(key, { batch: [pending], alsoTo, ifOpen, bytes: data.length });
      });
    },

    end(key, endOptions = {}) {
      const { alsoTo } = endOptions;
      const args: Array<string | number> = [
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
      ];
      for (const event of alsoTo?.events ?? []) args.push(event.event, JSON.stringify(event.data) ?? "null");
      return inTurn(key, async () => {
        const last = (await endScript(...args)) as string | number;
        if (typeof last === "string") hearLocally(key, last === "" ? "end" : { prev: last, entries: [], end: true });
        // Ended: nothing more will be written here, and the readers here have heard the end.
        writers.delete(key);
      });
    },

    writeHere(key) {
      const readers = new Set<LocalReader>();
      writers.set(key, readers);
      return () => {
        if (writers.get(key) !== readers) return;
        writers.delete(key);
        for (const reader of [...readers]) reader.gone();
      };
    },

    read(key, { after, signal }) {
      if (after !== undefined && !FROM_START.has(after)) parseId(after);
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

type BatchEntry = [id: string, event: string, data: unknown];

/**
 * The batches a reader's channel carried, oldest first. Bounded: a reader that does not keep up
 * drops them and reads the stream instead.
 */
function batchInbox() {
  let batches: Batch[] = [];
  let held = 0;
  return {
    /** False for a batch dropped. */
    add(batch: Batch): boolean {
      if (held + batch.entries.length > INBOX_EVENTS) {
        batches = [];
        held = 0;
        return false;
      }
      batches.push(batch);
      held += batch.entries.length;
      return true;
    },
    /** Whether batches are held that do not continue from where the reader is (a gap before them). */
    waiting: () => batches.length > 0,
    /**
     * The batch that follows `cursor` exactly, or "end" when the log ended right there; drops
     * what was already read; nothing if there is a gap.
     */
    next(cursor: string): BatchEntry[] | "end" | undefined {
      while (batches.length > 0) {
        const first = batches[0]!;
        if (first.prev !== cursor && compareIds(first.entries.at(-1)?.[0] ?? first.prev, cursor) > 0) return undefined;
        batches.shift();
        held -= first.entries.length;
        if (first.prev === cursor) return first.end ? "end" : first.entries;
      }
      return undefined;
    },
  };
}

/** A channel message that is a batch (one that is not: 'open', 'end', a bare id from an older replica, makes the reader read the stream). */
function parseBatch(message: string): Batch {
  const { p, b, end } = JSON.parse(message) as { p: string; b: BatchEntry[]; end?: 1 };
  return { prev: p, entries: b, end: end === 1 };
}

function compareIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split("-").map(Number) as [number, number];
  const [bMs, bSeq] = b.split("-").map(Number) as [number, number];
  return aMs - bMs || aSeq - bSeq;
}

function toEvent(id: string, fields: string[]): StoredEvent {
  let event = "";
  let data: unknown = null;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "e") event = fields[i + 1]!;
    else if (fields[i] === "d") data = JSON.parse(fields[i + 1]!);
  }
  return { id, event, data };
}

function parseId(id: string): void {
  if (!ID_PATTERN.test(id)) throw invalid(`Last-Event-ID '${id.slice(0, 64)}' is not an event id from this server (expected <ms>-<seq>, "-1" or "-")`);
}
