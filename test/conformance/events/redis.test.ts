// The event log and bus cases against Redis (`gantry serve`), under a key prefix of this file's own;
// then what only a shared store has: two processes' logs on one key, the writer's own readers
// taking its batches from memory and going to Redis when the run moves to the other process.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createRedisBus } from "../../../src/events/redis-bus.js";
import { redisChannels } from "../../../src/events/redis-channels.js";
import { connectRedis, type RedisConnections } from "../../../src/events/redis-connection.js";
import { createRedisEventLog } from "../../../src/events/redis-event-log.js";
import type { RunEventLog, StoredEvent } from "../../../src/events/run-event-log.js";
import type { MessageBus } from "../../../src/events/event-bus.js";
import { createLogger } from "../../../src/logging.js";
import { deleteKeys, describeWithRedis, freshKeyPrefix, TEST_REDIS_URL } from "../../support/redis.js";
import { eventLogCases } from "./event-log.cases.js";

await describeWithRedis("Redis event log and bus", () => {
  const retentionMs = 300;
  const prefix = freshKeyPrefix();
  let redis: RedisConnections;
  let other: RedisConnections;
  let log: RunEventLog;
  let otherLog: RunEventLog;
  let bus: MessageBus;

  beforeAll(async () => {
    const logger = createLogger({ level: "error", json: true });
    redis = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, logger);
    other = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, logger);
    const channels = redisChannels(redis.subscriber, logger);
    log = createRedisEventLog({ commands: redis.commands, channels, prefix, retentionMs, openTtlMs: 60_000, pollMs: 100 });
    // A long poll: a reader that missed a batch would only catch up after the test's deadline.
    const otherChannels = redisChannels(other.subscriber, logger);
    otherLog = createRedisEventLog({ commands: other.commands, channels: otherChannels, prefix, retentionMs, openTtlMs: 60_000, pollMs: 60_000 });
    bus = createRedisBus({ commands: redis.commands, channels, prefix });
  });

  afterAll(async () => {
    await redis?.close();
    await other?.close();
    await deleteKeys(prefix);
  });

  eventLogCases(() => ({ log, bus, retentionMs }));

  it("replays a log written here in one command, the attach reading its first page", async () => {
    const key = `run-${randomUUID()}`;
    const stopWriting = log.writeHere(key);
    await log.open(key, { resumable: true });
    const ids = await Promise.all([1, 2, 3].map((i) => log.append(key, { event: "values", data: { i } })));
    const before = redis.commandsSent();
    const replayed: string[] = [];
    for await (const event of log.read(key, { after: "-1" })) {
      replayed.push(event.id);
      if (replayed.length === 3) void log.end(key);
    }
    stopWriting();
    expect(replayed).toEqual(ids);
    // The attach, then the end.
    expect(redis.commandsSent() - before).toBe(2);
  });

  it("lets the writer's own readers skip the channel, and moves them to it when the run goes to another process", async () => {
    const key = `run-${randomUUID()}`;
    const channel = `${prefix}events:${key}`;
    const subscribers = async () => ((await redis.commands.pubsub("NUMSUB", channel)) as [string, number])[1];
    const stopWriting = otherLog.writeHere(key);
    await otherLog.open(key, { resumable: true });
    const here: StoredEvent[] = [];
    const elsewhere: StoredEvent[] = [];
    const reading = Promise.all([
      (async () => {
        for await (const event of otherLog.read(key, { after: "-1" })) here.push(event);
      })(),
      (async () => {
        for await (const event of log.read(key, { after: "-1" })) elsewhere.push(event);
      })(),
    ]);
    const first = await Promise.all([1, 2, 3].map((i) => otherLog.append(key, { event: "values", data: { i } })));
    while (here.length < 3 || elsewhere.length < 3) await new Promise((wake) => setTimeout(wake, 10));
    // Only the reader on the other process listens on the channel.
    expect(await subscribers()).toBe(1);

    // The run is handed over: its next attempt writes from this process.
    stopWriting();
    while ((await subscribers()) < 2) await new Promise((wake) => setTimeout(wake, 10));
    const second = await Promise.all([4, 5].map((i) => log.append(key, { event: "values", data: { i } })));
    await log.end(key);
    await reading;
    const expected = [...first, ...second].map((id, n) => ({ id, event: "values", data: { i: n + 1 } }));
    expect(here).toEqual(expected);
    expect(elsewhere).toEqual(expected);
  });
});
