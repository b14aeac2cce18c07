// The Lua scripts of the Redis event log (redis-event-log.ts): each is one round trip and atomic.
// A log is a stream (`<prefix>events:<key>`) and a meta hash beside it: resumable, idle, ended,
// last (the newest id written) and one `r:<channel>` field per process with a reader of the log,
// which expires with the log. Every message about a log goes to the log's own channel, which
// readers on replicas older than the process channels subscribe to, and to each of those processes'
// channels, prefixed with the log's channel and a newline.

// Sends a message about a log: not to `skip`, the writer's own process when its readers take its
// writes from memory.
const PUBLISH_HELPER = `
local function publish(meta, channel, message, skip)
  redis.call('PUBLISH', channel, message)
  local routed
  for _, field in ipairs(redis.call('HKEYS', meta)) do
    if string.sub(field, 1, 2) == 'r:' and string.sub(field, 3) ~= skip then
      routed = routed or (channel .. '\\n' .. message)
      redis.call('PUBLISH', string.sub(field, 3), routed)
    end
  end
end
`;

// Shared by the scripts that write events.
const WRITE_HELPERS = `${PUBLISH_HELPER}
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
-- time for an idle-expiring log, the open TTL otherwise), and its readers get the batch itself
-- with the id it follows, so one that is up to date takes it as it is instead of reading the stream.
local function written(meta, stream, channel, prev, entries, last, retentionMs, openTtlMs, skip)
  local t = openTtlMs
  if redis.call('HGET', meta, 'idle') == '1' then t = retentionMs end
  redis.call('HSET', meta, 'last', last)
  redis.call('PEXPIRE', meta, t)
  redis.call('PEXPIRE', stream, t)
  publish(meta, channel, '{"p":"' .. (prev or '') .. '","b":[' .. table.concat(entries, ',') .. ']}', skip)
end
`;

// KEYS: meta, stream. ARGV: resumable, expiresWhenIdle, retentionMs, openTtlMs, channel, createOnly.
// Creates the log, or reopens an ended one (a retried attempt continues its log); with createOnly
// an existing log is left as it is.
export const OPEN = `${PUBLISH_HELPER}
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'resumable', ARGV[1], 'idle', ARGV[2], 'ended', '0')
elseif ARGV[6] == '1' then
  return 0
elseif redis.call('HGET', KEYS[1], 'ended') == '1' then
  redis.call('HSET', KEYS[1], 'ended', '0')
  publish(KEYS[1], ARGV[5], 'open', '')
end
local ttl = ARGV[4]
if redis.call('HGET', KEYS[1], 'idle') == '1' then ttl = ARGV[3] end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1`;

// KEYS: meta, stream, also-meta, also-stream (the log's own again when there is none).
// ARGV: maxEvents, retentionMs, openTtlMs, channel, also-channel ('' for none), ifOpen, skip (for
// this log only: the other one's batch goes to every reader's process), then per event: whether it
// also goes to the other log ('1'/'0'), its name, its data. Returns the id the batch follows ('' for
// none), then the ids; nothing when ifOpen found no open log.
// A key nobody opened becomes an idle-expiring resumable log, as in the in-process log.
export const APPEND = `${WRITE_HELPERS}
local ended = redis.call('HGET', KEYS[1], 'ended')
if ended ~= '0' and ARGV[6] == '1' then return {} end
if ended == '1' then return redis.error_reply('GANTRY_LOG_ENDED') end
if not ended then redis.call('HSET', KEYS[1], 'resumable', '1', 'idle', '1', 'ended', '0') end
local also = ARGV[5] ~= '' and redis.call('HGET', KEYS[3], 'ended') == '0'
local prev = lastOf(KEYS[1], KEYS[2])
local alsoPrev = also and lastOf(KEYS[3], KEYS[4])
local ids, entries, alsoEntries = {}, {}, {}
local alsoLast = false
for i = 8, #ARGV, 3 do
  local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i + 1], 'd', ARGV[i + 2])
  local tail = tailOf(ARGV[i + 1], ARGV[i + 2])
  ids[#ids + 1] = id
  entries[#entries + 1] = '["' .. id .. '"' .. tail
  if also and ARGV[i] == '1' then
    alsoLast = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i + 1], 'd', ARGV[i + 2])
    alsoEntries[#alsoEntries + 1] = '["' .. alsoLast .. '"' .. tail
  end
end
written(KEYS[1], KEYS[2], ARGV[4], prev, entries, ids[#ids], ARGV[2], ARGV[3], ARGV[7])
if alsoLast then written(KEYS[3], KEYS[4], ARGV[5], alsoPrev, alsoEntries, alsoLast, ARGV[2], ARGV[3], '') end
table.insert(ids, 1, prev or '')
return ids`;

// KEYS: meta, stream, also-meta, also-stream (the log's own again when there is none).
// ARGV: retainMs, channel, maxEvents, retentionMs, openTtlMs, also-channel ('' for none), skip (as
// for APPEND), then per event for the other log: its name, its data.
// The readers hear the id the end follows: one that has read up to it is done, unread.
// Returns that id ('' when unknown), or 0 for a log that had ended already. The other log gets its
// events, if it is open, whether or not this one had ended (as separate calls would).
export const END = `${WRITE_HELPERS}
local result = 0
if redis.call('HGET', KEYS[1], 'ended') == '0' then
  redis.call('HSET', KEYS[1], 'ended', '1')
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
  local last = lastOf(KEYS[1], KEYS[2])
  if last then publish(KEYS[1], ARGV[2], '{"p":"' .. last .. '","b":[],"end":1}', ARGV[7]) else publish(KEYS[1], ARGV[2], 'end', ARGV[7]) end
  result = last or ''
end
if ARGV[6] ~= '' and #ARGV > 7 and redis.call('HGET', KEYS[3], 'ended') == '0' then
  local prev = lastOf(KEYS[3], KEYS[4])
  local entries, last = {}, nil
  for i = 8, #ARGV, 2 do
    last = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'e', ARGV[i], 'd', ARGV[i + 1])
    entries[#entries + 1] = '["' .. last .. '"' .. tailOf(ARGV[i], ARGV[i + 1])
  end
  written(KEYS[3], KEYS[4], ARGV[6], prev, entries, last, ARGV[4], ARGV[5], '')
end
return result`;

// KEYS: meta, stream. ARGV: the id a reader starts after ('' to attach live), page size, the
// reader's process channel.
// Registers the process as a reader of the log, in the same step as the position is taken, so every
// message about what comes after that position reaches it. Returns where the reader starts, and
// what it reads first: the log's end flag, whether it expires when idle, the id the reader stands
// at, and the first page after it (none when it attaches live, as it does to a non-resumable log,
// which keeps no history). Nothing for an unknown log.
export const ATTACH = `
local meta = redis.call('HMGET', KEYS[1], 'ended', 'idle', 'resumable')
if not meta[1] then return {} end
redis.call('HSET', KEYS[1], 'r:' .. ARGV[3], '1')
if ARGV[1] == '' or meta[3] ~= '1' then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  local newest = '0-0'
  if last[1] then newest = last[1][1] end
  return {meta[1], meta[2], newest, {}}
end
return {meta[1], meta[2], ARGV[1], redis.call('XRANGE', KEYS[2], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}`;

// KEYS: meta, stream. ARGV: cursor, page size. The end flag is read before the page: if it was
// set, every event is already in the stream.
export const PAGE_READ = `
return {redis.call('HGET', KEYS[1], 'ended'), redis.call('XRANGE', KEYS[2], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}`;
