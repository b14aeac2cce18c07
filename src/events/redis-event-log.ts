// Event logs in Redis, so every replica can serve every stream and Last-Event-ID resumes anywhere.
// Each log is a Redis stream (XADD ids are the `<ms>-<seq>` ids clients see) plus a small hash of
// its options and whether it ended. Appends publish the new id on the log's channel; readers page
// through XRANGE and wait for that nudge, polling as well, so a lost nudge costs one poll interval.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { invalid } from "../errors.js";
import type { RedisChannels } from "./redis-channels.js";
import { DEFAULT_MAX_EVENTS, type RunEventLog, type StoredEvent } from "./run-event-log.js";

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

// KEYS: meta, stream. ARGV: resumable, expiresWhenIdle, retentionMs, openTtlMs, channel.
// Creates the log, or reopens an ended one (a retried attempt continues its log).
const OPEN = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'resumable', ARGV[1], 'idle', ARGV[2], 'ended', '0')
elseif redis.call('HGET', KEYS[1], 'ended') == '1' then
  redis.call('HSET', KEYS[1], 'ended', '0')
  redis.call('PUBLISH', ARGV[5], 'open')
end
local ttl = ARGV[4]
if redis.call('HGET', KEYS[1], 'idle') == '1' then ttl = ARGV[3] end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1`;

// KEYS: meta, stream. ARGV: event, data, maxEvents, retentionMs, openTtlMs, channel.
// A key nobody opened becomes an idle-expiring resumable log, as in the in-process log.
const APPEND = `
local ended = redis.call('HGET', KEYS[1], 'ended')
if ended == '1' then return redis.error_reply('GANTRY_LOG_ENDED') end
if not ended then redis.call('HSET', KEYS[1], 'resumable', '1', 'idle', '1', 'ended', '0') end
local ttl = ARGV[5]
if redis.call('HGET', KEYS[1], 'idle') == '1' then ttl = ARGV[4] end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'e', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PUBLISH', ARGV[6], id)
return id`;

// KEYS: meta, stream. ARGV: retentionMs, channel.
const END = `
if redis.call('HGET', KEYS[1], 'ended') ~= '0' then return 0 end
redis.call('HSET', KEYS[1], 'ended', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], 'end')
return 1`;

type StreamEntry = [id: string, fields: string[]];

export function createRedisEventLog(options: RedisEventLogOptions): RunEventLog {
  const { commands, channels, prefix, retentionMs, openTtlMs } = options;
  const pollMs = options.pollMs ?? 1_000;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const streamKey = (key: string) => `${prefix}events:${key}`;
  const metaKey = (key: string) => `${prefix}events:${key}:meta`;
  const channel = (key: string) => `${prefix}events:${key}`;
  // Scripts run by hash (EVALSHA) after the first call; each is one round trip and atomic.
  const script = (lua: string) => {
    const name = `gantryLog${createHash("sha1").update(lua).digest("hex").slice(0, 12)}`;
    commands.defineCommand(name, { numberOfKeys: 2, lua });
    const command = (commands as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[name]!;
    return (key: string, ...args: Array<string | number>) => command.call(commands, metaKey(key), streamKey(key), ...args);
  };
  const openScript = script(OPEN);
  const appendScript = script(APPEND);
  const endScript = script(END);

  /** Where a new reader starts: null for an unknown log. */
  const attach = async (key: string, after: string | undefined): Promise<{ cursor: string; idle: boolean } | null> => {
    const [[, meta], [, last]] = (await commands.pipeline().hgetall(metaKey(key)).xrevrange(streamKey(key), "+", "-", "COUNT", 1).exec()) as [
      [unknown, Record<string, string>],
      [unknown, StreamEntry[]],
    ];
    if (!meta || meta.ended === undefined) return null;
    const newest = last[0]?.[0] ?? "0-0";
    const idle = meta.idle === "1";
    // Without history there is nothing to resume from: a non-resumable log always attaches live.
    if (after === undefined || meta.resumable !== "1") return { cursor: newest, idle };
    return { cursor: FROM_START.has(after) ? "0-0" : after, idle };
  };

  async function* follow(key: string, start: Promise<{ cursor: string; idle: boolean } | null>, signal: AbortSignal | undefined): AsyncGenerator<StoredEvent> {
    let nudged = false;
    let wake: (() => void) | undefined;
    const unlisten = await channels.listen(channel(key), () => {
      nudged = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const position = await start;
      if (!position) return;
      let cursor = position.cursor;
      while (!signal?.aborted) {
        nudged = false;
        // The end flag is read before the page: if it was set, every event is already in the stream.
        const [[, ended], [, entries]] = (await commands
          .pipeline()
          .hget(metaKey(key), "ended")
          .xrange(streamKey(key), `(${cursor}`, "+", "COUNT", PAGE)
          .exec()) as [[unknown, string | null], [unknown, StreamEntry[]]];
        for (const [id, fields] of entries) {
          cursor = id;
          yield toEvent(id, fields);
          if (signal?.aborted) return;
        }
        if (entries.length === PAGE) continue;
        // A missing flag means the log expired or was never there: nothing more will come.
        if (ended !== "0") return;
        if (nudged || entries.length > 0) continue;
        await new Promise<void>((done) => {
          const timer = setTimeout(done, pollMs);
          wake = () => {
            clearTimeout(timer);
            done();
          };
          if (signal?.aborted) wake();
        });
        wake = undefined;
        // A followed thread log must outlive its idle expiry while someone is reading it.
        if (position.idle) await commands.pipeline().pexpire(metaKey(key), retentionMs).pexpire(streamKey(key), retentionMs).exec();
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      unlisten();
    }
  }

  return {
    async open(key, opts) {
      await openScript(key, opts.resumable ? "1" : "0", opts.expiresWhenIdle ? "1" : "0", retentionMs, openTtlMs, channel(key));
    },

    async append(key, event) {
      const data = JSON.stringify(event.data) ?? "null";
      try {
        return (await appendScript(key, event.event, data, maxEvents, retentionMs, openTtlMs, channel(key))) as string;
      } catch (err) {
        if ((err as Error).message.includes("GANTRY_LOG_ENDED")) throw new Error(`Event log ${key} has ended; open() it again before appending`);
        throw err;
      }
    },

    async end(key, endOptions) {
      await endScript(key, Math.min(endOptions?.retainMs ?? retentionMs, retentionMs), channel(key));
    },

    read(key, { after, signal }) {
      if (after !== undefined && !FROM_START.has(after)) parseId(after);
      if (signal?.aborted) return (async function* () {})();
      // Started now, not on the first pull: the reader is attached from this call on.
      const start = attach(key, after);
      start.catch(() => {});
      return follow(key, start, signal);
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
