// The event log and bus cases against Redis (`gantry serve`), under a key prefix of this file's own;
// then what only a shared store has: two processes' logs (A and B) on one key, readers hearing
// another process's writes on their process's one channel, the writer's own readers taking its
// batches from memory, and the run moving from one process to the other.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redisChannels } from "../../../src/events/redis-channels.js";
import { connectRedis, type RedisConnections } from "../../../src/events/redis-connection.js";
import { createRedisEventLog } from "../../../src/events/redis-event-log.js";
import { EventsLostError, type RunEventLog, type ReadEvent } from "../../../src/events/run-event-log.js";
import type { MessageBus } from "../../../src/events/event-bus.js";
import { createLogger } from "../../../src/logging.js";
import { describeWithRedis, freshKeyPrefix, TEST_REDIS_URL } from "../../support/redis.js";
import { eventLogCases } from "./event-log.cases.js";
import { closeRedisLogs, EXPIRING_RETENTION_MS, openRedisLogs, RETENTION_MS, type RedisLogs } from "./redis-logs.js";

await describeWithRedis("Redis event log and bus", () => {
  const retentionMs = RETENTION_MS;
  const expiringRetentionMs = EXPIRING_RETENTION_MS;
  const prefix = freshKeyPrefix();
  let logs: RedisLogs | undefined;
  let redis: RedisConnections;
  let other: RedisConnections;
  let log: RunEventLog;
  let otherLog: RunEventLog;
  let expiring: RunEventLog;
  let bus: MessageBus;

  beforeAll(async () => {
    logs = await openRedisLogs(prefix);
    ({ redis, other, log, otherLog, expiring, bus } = logs);
  });

  afterAll(() => closeRedisLogs(logs, prefix));

  eventLogCases(() => ({ log, bus, expiring, expiringRetentionMs }));

  const collect = async (events: AsyncIterable<ReadEvent>) => {
    const out: ReadEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };
  const until = async (what: string, done: () => boolean | Promise<boolean>) => {
    const deadline = Date.now() + 5_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((wake) => setTimeout(wake, 10));
    }
  };
  const subscribers = async (channel: string) => ((await redis.commands.pubsub("NUMSUB", channel)) as [string, number])[1];
  const values = (ids: string[], from = 1) => ids.map((id, n) => ({ id, event: "values", data: { i: n + from }, index: n + from - 1 }));

  // A log deleted and made again within one millisecond: an id of the old log can carry the new
  // log's birth millisecond, so a resume from it must be checked against the new log's entries.
  it("refuses a resume from an id of a deleted log that shares the new log's birth millisecond", async () => {
    const k = `protocol:${randomUUID()}`;
    await log.open(k, { resumable: true, expiresWhenIdle: true });
    await log.append(k, { event: "values", data: { secret: 1 } });
    await log.delete([k]);
    // Opened as a reader opens it, not yet written: an append here would mark it lost instead.
    await log.open(k, { resumable: true, expiresWhenIdle: true, createOnly: true });
    const born = (await redis.commands.hget(`${prefix}events:${k}:meta`, "born")) as string;
    const [seconds, micros] = born.split(":").map(Number) as [number, number];
    const sameMillisecond = `${seconds * 1000 + Math.floor(micros / 1000)}-999`;
    await expect(collect(log.read(k, { after: sameMillisecond }))).rejects.toThrow(EventsLostError);
  });

  it("replays a log in one command, the attach reading its first page, with no subscription of its own", async () => {
    const key = `run-${randomUUID()}`;
    await log.open(key, { resumable: true });
    const ids = await Promise.all([1, 2, 3].map((i) => log.append(key, { event: "values", data: { i } })));
    await log.end(key);
    const before = other.commandsSent();
    for (let n = 0; n < 5; n++) expect(await collect(otherLog.read(key, { after: "-1" }))).toEqual(values(ids));
    expect(other.commandsSent() - before).toBe(5);
    // One subscription per process, made at start, whatever it reads.
    expect(await subscribers(`${prefix}events:proc:B`)).toBe(1);
    expect(await subscribers(`${prefix}events:${key}`)).toBe(0);
  });

  it("brings every batch to a reader on a process that has just started, before its subscription is confirmed", async () => {
    const key = `run-${randomUUID()}`;
    await log.open(key, { resumable: true });
    const first = await log.append(key, { event: "values", data: { i: 1 } });
    const logger = createLogger({ level: "error", json: true });
    const started = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, logger);
    try {
      const channels = redisChannels(started.subscriber, logger);
      const fresh = createRedisEventLog({ commands: started.commands, channels, prefix, retentionMs, openTtlMs: 60_000, pollMs: 60_000, processId: "C" });
      const reading = collect(fresh.read(key, { after: "-1" }));
      const rest: string[] = [];
      for (let i = 2; i <= 4; i++) rest.push(await log.append(key, { event: "values", data: { i } }));
      await log.end(key);
      expect(await reading).toEqual(values([first, ...rest]));
    } finally {
      await started.close();
    }
  });

  it("brings a reader every batch another process writes, from the channel alone", async () => {
    const key = `run-${randomUUID()}`;
    const stopWriting = log.writeHere(key);
    await log.open(key, { resumable: true });
    const before = other.commandsSent();
    // B polls once a minute: whatever it does not hear, it would not see within the test.
    const reading = collect(otherLog.read(key, { after: "-1" }));
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await log.append(key, { event: "values", data: { i } }));
    await log.end(key);
    stopWriting();
    expect(await reading).toEqual(values(ids));
    // The attach alone: five batches and the end came from the channel.
    expect(other.commandsSent() - before).toBe(1);
  });

  it("moves a reader that attached before the run started on its process to the writer's batches, with nothing sent to it twice", async () => {
    const key = `run-${randomUUID()}`;
    const ownChannel = `${prefix}events:proc:B`;
    const heard: string[] = [];
    const listener = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, createLogger({ level: "error", json: true }));
    try {
      listener.subscriber.on("message", (_channel: string, message: string) => heard.push(message));
      await listener.subscriber.subscribe(ownChannel);
      await otherLog.open(key, { resumable: true, createOnly: true });
      const reading = collect(otherLog.read(key, { after: "-1" }));
      // The first attempt runs on A, the second here on B.
      const first = await Promise.all([1, 2].map((i) => log.append(key, { event: "values", data: { i } })));
      await until("A's batches on B's channel", () => heard.some((message) => message.includes(first[1]!)));
      const stopWriting = otherLog.writeHere(key);
      const sentBefore = heard.length;
      const second = await Promise.all([3, 4, 5].map((i) => otherLog.append(key, { event: "values", data: { i } })));
      await otherLog.end(key);
      stopWriting();
      expect(await reading).toEqual(values([...first, ...second]));
      await log.append(`run-${randomUUID()}`, { event: "values", data: null });
      expect(heard.length).toBe(sentBefore);
    } finally {
      await listener.close();
    }
  });

  it("keeps readers on both processes going when the run moves from one to the other", async () => {
    const key = `run-${randomUUID()}`;
    const stopWriting = otherLog.writeHere(key);
    await otherLog.open(key, { resumable: true });
    const here = collect(otherLog.read(key, { after: "-1" }));
    const elsewhere = collect(log.read(key, { after: "-1" }));
    const first = await Promise.all([1, 2, 3].map((i) => otherLog.append(key, { event: "values", data: { i } })));
    // The run is handed over: its next attempt writes from A.
    stopWriting();
    const second = await Promise.all([4, 5].map((i) => log.append(key, { event: "values", data: { i } })));
    await log.end(key);
    const expected = values([...first, ...second]);
    expect(await here).toEqual(expected);
    expect(await elsewhere).toEqual(expected);
  });

  it("lets a reader leave while its log goes on, its process ignoring what it hears of it", async () => {
    const key = `run-${randomUUID()}`;
    await log.open(key, { resumable: true });
    const controller = new AbortController();
    const leaving = otherLog.read(key, { after: "-1", signal: controller.signal });
    // Returned before its first pull, as a stream closed before it began.
    await otherLog.read(key, { after: "-1" })[Symbol.asyncIterator]().return?.();
    const first = await log.append(key, { event: "values", data: { i: 1 } });
    const iterator = leaving[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ id: first, event: "values", data: { i: 1 }, index: 0 });
    controller.abort();
    expect((await iterator.next()).done).toBe(true);
    // B stays registered on the log and hears the next batches, for no reader of its own.
    const later = await Promise.all([2, 3].map((i) => log.append(key, { event: "values", data: { i } })));
    const again = collect(otherLog.read(key, { after: later[0]! }));
    const last = await log.append(key, { event: "values", data: { i: 4 } });
    await log.end(key);
    expect((await again).map((e) => e.id)).toEqual([later[1], last]);
  });

  // What a Redis restart without persistence, or an eviction, does to a log: its keys go, nothing is told.
  const wipe = (key: string) => redis.commands.del(`${prefix}events:${key}`, `${prefix}events:${key}:meta`);

  it("tells a reader whose log's keys vanish that events were lost, whether or not its writer writes again", async () => {
    for (const writesAgain of [false, true]) {
      const key = `run-${randomUUID()}`;
      await log.open(key, { resumable: true });
      const first = await log.append(key, { event: "values", data: { i: 1 } });
      const reader = log.read(key, { after: "-1" })[Symbol.asyncIterator]();
      expect((await reader.next()).value).toEqual({ id: first, event: "values", data: { i: 1 }, index: 0 });
      const next = reader.next();
      await wipe(key);
      if (writesAgain) await log.append(key, { event: "values", data: { i: 2 } });
      await expect(next).rejects.toThrow(EventsLostError);
      // Its writer's end leaves the log behind, lost: a join now says so too.
      await log.end(key);
      await expect(collect(log.read(key, { after: "-1" }))).rejects.toThrow(EventsLostError);
      await expect(collect(otherLog.read(key, { after: first }))).rejects.toThrow(EventsLostError);
      await expect(collect(otherLog.read(key, { after: "0" }))).rejects.toThrow(EventsLostError);
    }
  });

  it("tells the readers on the writer's process, which take its batches from memory, that the log was lost", async () => {
    const key = `run-${randomUUID()}`;
    const stopWriting = log.writeHere(key);
    await log.open(key, { resumable: true });
    const here = collect(log.read(key, { after: "-1" }));
    await log.append(key, { event: "values", data: { i: 1 } });
    await wipe(key);
    await log.append(key, { event: "values", data: { i: 2 } });
    await log.end(key);
    stopWriting();
    await expect(here).rejects.toThrow(EventsLostError);
  });

  it("tells a resume from before events trimmed for the size bound that they are lost", async () => {
    const logger = createLogger({ level: "error", json: true });
    const small = createRedisEventLog({
      commands: redis.commands,
      channels: redisChannels(redis.subscriber, logger),
      prefix,
      retentionMs,
      openTtlMs: 60_000,
      maxEvents: 10,
      processId: "S",
    });
    const key = `run-${randomUUID()}`;
    await small.open(key, { resumable: true });
    const ids = await Promise.all(Array.from({ length: 400 }, (_, i) => small.append(key, { event: "values", data: { i } })));
    await small.end(key);
    await expect(collect(small.read(key, { after: ids[5]! }))).rejects.toThrow(EventsLostError);
    expect((await collect(small.read(key, { after: ids[398]! }))).map((e) => e.id)).toEqual([ids[399]]);
    // By index: what the stream still holds is found from either end, and what it trimmed is lost.
    await expect(collect(small.read(key, { after: "5" }))).rejects.toThrow("no longer holds the events after 5");
    const held = await collect(small.read(key, { after: "-1" }));
    expect(held.map((e) => e.index)).toEqual(held.map((_, i) => 400 - held.length + i));
    expect(held.map((e) => e.id)).toEqual(ids.slice(400 - held.length));
    for (const from of [held[0]!.index, held[1]!.index, 397, 398, 399]) {
      expect((await collect(small.read(key, { after: String(from) }))).map((e) => [e.id, e.index])).toEqual(
        ids.slice(from + 1).map((id, i) => [id, from + 1 + i]),
      );
    }
    await expect(collect(small.read(key, { after: String(held[0]!.index - 2) }))).rejects.toThrow(EventsLostError);
  });

  it("tells a reader that fell further behind than the log keeps that it lost events, instead of skipping them", async () => {
    const logger = createLogger({ level: "error", json: true });
    const options = { prefix, retentionMs, openTtlMs: 60_000, maxEvents: 10, pollMs: 60_000 };
    const writer = createRedisEventLog({ ...options, commands: redis.commands, channels: redisChannels(redis.subscriber, logger), processId: "W" });
    const reader = createRedisEventLog({ ...options, commands: other.commands, channels: redisChannels(other.subscriber, logger), processId: "R" });
    const key = `run-${randomUUID()}`;
    await writer.open(key, { resumable: true });
    const first = await writer.append(key, { event: "values", data: { i: 0 } });
    const behind = reader.read(key, { after: "-1" })[Symbol.asyncIterator]();
    expect((await behind.next()).value?.id).toBe(first);
    // More than the reader's inbox holds: it must go back to the stream, which kept only the last few.
    await Promise.all(Array.from({ length: 5000 }, (_, i) => writer.append(key, { event: "values", data: { i: i + 1 } })));
    await writer.end(key);
    await expect(collect({ [Symbol.asyncIterator]: () => behind })).rejects.toThrow(/fell further behind/);
  });
});
