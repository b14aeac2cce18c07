// The Lua scripts of the Redis event log (redis-event-log.ts): each is one round trip and atomic.
// A log is a stream (`<prefix>events:<key>`) and a meta hash beside it: resumable, idle, ended,
// last (the newest id written), born (`<sec>:<usec>` of Redis's clock when this log was created:
// which log it is, and since when it holds everything), lost ('1' when it was re-created by a
// write after it vanished: its start is missing), n (events ever added: each event's index, and
// against XLEN whether some were trimmed), w (the newest writer, for fencing) and one `r:<channel>` field per process
// with a reader of the log, which expires with the log. Every message about a log goes to the log's own channel, which
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

// Ids compared as ids.
const ID_HELPERS = `
local function parseId(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end
local function before(a, b)
  local am, as = parseId(a)
  local bm, bs = parseId(b)
  return am < bm or (am == bm and as < bs)
end
`;

// A new `born`, the refusal of a write from a writer older than the log's, and the id that starts a
// log its writer lost: strictly after the last id that writer wrote, so no id of the lost log is
// ever taken for one of the new log's (Redis's clock alone may give the same millisecond).
const LOG_HELPERS = `${ID_HELPERS}
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- The first id after 'known' ('' for none) by the clock: concrete, for a log with no event to carry it.
local function nextId(known)
  local ms = nowMs()
  if known == '' then return ms .. '-0' end
  local km, ks = parseId(known)
  if ms > km then return ms .. '-0' end
  return km .. '-' .. (ks + 1)
end
local function idAfter(stream, known)
  if known == '' then return '*' end
  local km = parseId(known)
  if nowMs() > km then return '*' end
  local candidate = nextId(known)
  local top = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
  if top[1] and not before(top[1][1], candidate) then return '*' end
  return candidate
end
local function newBorn()
  local t = redis.call('TIME')
  return t[1] .. ':' .. t[2]
end
local function staleWriter(meta, writer)
  if writer == '' then return nil end
  local w = tonumber(redis.call('HGET', meta, 'w') or '0')
  if w > tonumber(writer) then return redis.error_reply('GANTRY_STALE_WRITER ' .. w) end
  return nil
end
local function raiseWriter(meta, writer)
  if writer ~= '' and tonumber(writer) > tonumber(redis.call('HGET', meta, 'w') or '0') then redis.call('HSET', meta, 'w', writer) end
end
`;

// Shared by the scripts that write events.
const WRITE_HELPERS = `${PUBLISH_HELPER}${LOG_HELPERS}
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

// KEYS: meta, stream. ARGV: resumable, expiresWhenIdle, retentionMs, openTtlMs, channel, createOnly,
// writer ('' for none).
// Creates the log, or reopens an ended one (a retried attempt continues its log); with createOnly
// an existing log is left as it is. Returns the log's born ('' for a log an older replica made)
// and its last id ('' for none).
export const OPEN = `${PUBLISH_HELPER}${LOG_HELPERS}
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'resumable', ARGV[1], 'idle', ARGV[2], 'ended', '0', 'born', newBorn())
elseif ARGV[6] == '1' then
  return {'', ''}
else
  local stale = staleWriter(KEYS[1], ARGV[7])
  if stale then return stale end
  if redis.call('HGET', KEYS[1], 'ended') == '1' then
    redis.call('HSET', KEYS[1], 'ended', '0')
    publish(KEYS[1], ARGV[5], 'open', '')
  end
end
if ARGV[6] ~= '1' then raiseWriter(KEYS[1], ARGV[7]) end
local ttl = ARGV[4]
if redis.call('HGET', KEYS[1], 'idle') == '1' then ttl = ARGV[3] end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return {redis.call('HGET', KEYS[1], 'born') or '', redis.call('HGET', KEYS[1], 'last') or ''}`;

// KEYS: meta, stream, also-meta, also-stream (the log's own again when there is none).
// ARGV: maxEvents, retentionMs, openTtlMs, channel, also-channel ('' for none), ifOpen, skip (for
// this log only: the other one's batch goes to every reader's process), writer ('' for none), the
// born of the log this writer wrote last and the last id it wrote there ('' for none), then per
// event: whether it also goes to the other log ('1'/'0'), its name, its data. Returns the id the batch follows ('' for none), the
// log's born, then the ids; nothing when ifOpen found no open log.
// A log that is gone (a key nobody opened: writers open first) becomes an idle-expiring resumable
// log marked lost; so does one that is not the log this writer wrote last (re-created since by a
// reader's open). Their batch follows no id, so that readers read the log and find out.
export const APPEND = `${WRITE_HELPERS}
local ended = redis.call('HGET', KEYS[1], 'ended')
if ended ~= '0' and ARGV[6] == '1' then return {} end
if ended then
  local stale = staleWriter(KEYS[1], ARGV[8])
  if stale then return stale end
end
if ended == '1' then return redis.error_reply('GANTRY_LOG_ENDED') end
local prev = nil
local firstId = '*'
if not ended then
  redis.call('HSET', KEYS[1], 'resumable', '1', 'idle', '1', 'ended', '0', 'born', newBorn(), 'lost', '1')
  firstId = idAfter(KEYS[2], ARGV[10])
elseif ARGV[6] ~= '1' and ARGV[9] ~= '' and redis.call('HGET', KEYS[1], 'born') ~= ARGV[9] then
  redis.call('HSET', KEYS[1], 'born', newBorn(), 'lost', '1')
  firstId = idAfter(KEYS[2], ARGV[10])
else
  prev = lastOf(KEYS[1], KEYS[2])
end
raiseWriter(KEYS[1], ARGV[8])
local also = ARGV[5] ~= '' and redis.call('HGET', KEYS[3], 'ended') == '0'
local alsoPrev = also and lastOf(KEYS[3], KEYS[4])
local ids, entries, alsoEntries = {}, {}, {}
local alsoLast = false
for i = 11, #ARGV, 3 do
  local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], firstId, 'e', ARGV[i + 1], 'd', ARGV[i + 2])
  -- What a reader must resume after to read this log without a gap.
  if firstId ~= '*' then redis.call('HSET', KEYS[1], 'origin', id) end
  firstId = '*'
  local tail = tailOf(ARGV[i + 1], ARGV[i + 2])
  ids[#ids + 1] = id
  entries[#entries + 1] = '["' .. id .. '"' .. tail
  if also and ARGV[i] == '1' then
    alsoLast = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i + 1], 'd', ARGV[i + 2])
    alsoEntries[#alsoEntries + 1] = '["' .. alsoLast .. '"' .. tail
  end
end
redis.call('HINCRBY', KEYS[1], 'n', #ids)
written(KEYS[1], KEYS[2], ARGV[4], prev, entries, ids[#ids], ARGV[2], ARGV[3], ARGV[7])
if alsoLast then
  redis.call('HINCRBY', KEYS[3], 'n', #alsoEntries)
  written(KEYS[3], KEYS[4], ARGV[5], alsoPrev, alsoEntries, alsoLast, ARGV[2], ARGV[3], '')
end
table.insert(ids, 1, redis.call('HGET', KEYS[1], 'born') or '')
table.insert(ids, 1, prev or '')
return ids`;

// KEYS: meta, stream, also-meta, also-stream (the log's own again when there is none).
// ARGV: retainMs, channel, maxEvents, retentionMs, openTtlMs, also-channel ('' for none), skip (as
// for APPEND), writer ('' for none), the born of the log this writer wrote last and the last id it
// wrote there ('' for none), then per event for the other log: its name, its data.
// The readers hear the id the end follows: one that has read up to it is done, unread.
// Returns that id ('' when unknown), or 0 for a log that had ended already. The other log gets its
// events, if it is open, whether or not this one had ended (as separate calls would).
// The log this writer wrote, gone, is left behind ended and marked lost (replaced: marked lost):
// later joins say so instead of finding nothing, and readers only hear a nudge, so they read it.
export const END = `${WRITE_HELPERS}
local ended = redis.call('HGET', KEYS[1], 'ended')
if ended then
  local stale = staleWriter(KEYS[1], ARGV[8])
  if stale then return stale end
end
local lost = false
if ARGV[9] ~= '' and not ended then
  redis.call('HSET', KEYS[1], 'resumable', '1', 'idle', '0', 'ended', '0', 'born', newBorn(), 'lost', '1', 'origin', nextId(ARGV[10]))
  ended, lost = '0', true
elseif ARGV[9] ~= '' and ended == '0' and redis.call('HGET', KEYS[1], 'born') ~= ARGV[9] then
  redis.call('HSET', KEYS[1], 'born', newBorn(), 'lost', '1')
  lost = true
end
local result = 0
if ended == '0' then
  redis.call('HSET', KEYS[1], 'ended', '1')
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
  local last = lastOf(KEYS[1], KEYS[2])
  if lost then last = nil end
  if last then publish(KEYS[1], ARGV[2], '{"p":"' .. last .. '","b":[],"end":1}', ARGV[7]) else publish(KEYS[1], ARGV[2], 'end', ARGV[7]) end
  result = last or ''
end
if ARGV[6] ~= '' and #ARGV > 10 and redis.call('HGET', KEYS[3], 'ended') == '0' then
  local prev = lastOf(KEYS[3], KEYS[4])
  local entries, last = {}, nil
  for i = 11, #ARGV, 2 do
    last = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'e', ARGV[i], 'd', ARGV[i + 1])
    entries[#entries + 1] = '["' .. last .. '"' .. tailOf(ARGV[i], ARGV[i + 1])
  end
  redis.call('HINCRBY', KEYS[3], 'n', #entries)
  written(KEYS[3], KEYS[4], ARGV[6], prev, entries, last, ARGV[4], ARGV[5], '')
end
return result`;

// KEYS: meta, stream. ARGV: where a reader starts: after an id, or after an index (a number: the
// event's ordinal, counted by 'n'), '' to attach live, '0-0' for the start; page size, the reader's
// process channel.
// Registers the process as a reader of the log, in the same step as the position is taken, so every
// message about what comes after that position reaches it. Returns where the reader starts, and
// what it reads first: the log's end flag, whether it expires when idle, the id the reader stands
// at, the first page after it (none when it attaches live, as it does to a non-resumable log,
// which keeps no history), the log's born, why the replay would read short ('' when it would
// not: 'start' for the start of a log marked lost, 'before' for an id from before the log began
// or before events it trimmed, or an index it trimmed or has not reached, 'restarted' for any
// index in a log marked lost, which counts from 0 again), and the index of the event the reader
// stands at (-1 before the first). Nothing for an unknown log.
// The index of an event held is its place in the stream plus the events trimmed, 'n' less XLEN.
export const ATTACH = `${ID_HELPERS}
local meta = redis.call('HMGET', KEYS[1], 'ended', 'idle', 'resumable', 'born', 'lost', 'n', 'origin')
if not meta[1] then return {} end
redis.call('HSET', KEYS[1], 'r:' .. ARGV[3], '1')
local born = meta[4] or ''
local held = redis.call('XLEN', KEYS[2])
local first = math.max(tonumber(meta[6] or '0') - held, 0)
local newest = first + held - 1
if ARGV[1] == '' or meta[3] ~= '1' then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  local newestId = '0-0'
  if last[1] then newestId = last[1][1] end
  return {meta[1], meta[2], newestId, {}, born, '', newest}
end
local gap = ''
local cursor, index = ARGV[1], first - 1
if ARGV[1] == '0-0' then
  if meta[5] == '1' then gap = 'start' end
elseif not string.find(ARGV[1], '-', 1, true) then
  index = tonumber(ARGV[1])
  if meta[5] == '1' then
    gap = 'restarted'
  elseif index < first - 1 or index > newest then
    gap = 'before'
  elseif index == first - 1 then
    cursor = '0-0'
  elseif newest - index <= index - first then
    cursor = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', newest - index + 1)[newest - index + 1][1]
  else
    cursor = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', index - first + 1)[index - first + 1][1]
  end
else
  if meta[7] then
    if before(ARGV[1], meta[7]) then gap = 'before' end
  elseif born ~= '' then
    local colon = string.find(born, ':', 1, true)
    local ms = tonumber(string.sub(born, 1, colon - 1)) * 1000 + math.floor(tonumber(string.sub(born, colon + 1)) / 1000)
    if before(ARGV[1], ms .. '-0') then gap = 'before'
    -- In the millisecond the log was born, an id may be an earlier log's: it must be one of this one's.
    elseif tonumber(string.match(ARGV[1], '^(%d+)-')) == ms and #redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[1]) == 0 then gap = 'before' end
  end
  if gap == '' and first > 0 then
    local oldest = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
    if oldest[1] and before(ARGV[1], oldest[1][1]) then gap = 'before' end
  end
  -- An id from before indexes (a client reconnecting across an upgrade): its index is counted back from the newest.
  if gap == '' then index = newest - #redis.call('XRANGE', KEYS[2], '(' .. ARGV[1], '+') end
end
if gap ~= '' then return {meta[1], meta[2], ARGV[1], {}, born, gap, index} end
return {meta[1], meta[2], cursor, redis.call('XRANGE', KEYS[2], '(' .. cursor, '+', 'COUNT', ARGV[2]), born, '', index}`;

// KEYS: meta, stream. ARGV: cursor, page size. The end flag is read before the page: if it was
// set, every event is already in the stream. Then the log's born: a reader that attached to
// another log (this one was re-created since) has lost what was between. Last, '1' when the log
// trimmed events past the cursor (a reader further behind than the log keeps): counted appends
// exceed what the stream holds and its oldest event comes after the cursor. A reader whose cursor
// is exactly the last event trimmed is told so too; it stands maxEvents behind the writer anyway.
export const PAGE_READ = `${ID_HELPERS}
local ended = redis.call('HGET', KEYS[1], 'ended')
local entries = redis.call('XRANGE', KEYS[2], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])
local trimmed = ''
if ARGV[1] ~= '0-0' and tonumber(redis.call('HGET', KEYS[1], 'n') or '0') > redis.call('XLEN', KEYS[2]) then
  local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
  if first[1] and before(ARGV[1], first[1][1]) then trimmed = '1' end
end
return {ended, entries, redis.call('HGET', KEYS[1], 'born') or '', trimmed}`;

// KEYS: meta, stream. ARGV: channel. Removes the log; its readers on every process hear 'gone' and stop.
export const DELETE = `${PUBLISH_HELPER}
if redis.call('EXISTS', KEYS[1]) == 1 then publish(KEYS[1], ARGV[1], 'gone', '') end
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;
