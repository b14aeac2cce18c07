// The event log and bus cases against Redis (`gantry serve`), under a key prefix of this file's own.
import { afterAll, beforeAll } from "vitest";
import { createRedisBus } from "../../../src/events/redis-bus.js";
import { redisChannels } from "../../../src/events/redis-channels.js";
import { connectRedis, type RedisConnections } from "../../../src/events/redis-connection.js";
import { createRedisEventLog } from "../../../src/events/redis-event-log.js";
import type { RunEventLog } from "../../../src/events/run-event-log.js";
import type { MessageBus } from "../../../src/events/event-bus.js";
import { createLogger } from "../../../src/logging.js";
import { deleteKeys, describeWithRedis, freshKeyPrefix, TEST_REDIS_URL } from "../../support/redis.js";
import { eventLogCases } from "./event-log.cases.js";

await describeWithRedis("Redis event log and bus", () => {
  const retentionMs = 300;
  const prefix = freshKeyPrefix();
  let redis: RedisConnections;
  let log: RunEventLog;
  let bus: MessageBus;

  beforeAll(async () => {
    const logger = createLogger({ level: "error", json: true });
    redis = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, logger);
    const channels = redisChannels(redis.subscriber, logger);
    log = createRedisEventLog({ commands: redis.commands, channels, prefix, retentionMs, openTtlMs: 60_000, pollMs: 100 });
    bus = createRedisBus({ commands: redis.commands, channels, prefix });
  });

  afterAll(async () => {
    await redis?.close();
    await deleteKeys(prefix);
  });

  eventLogCases(() => ({ log, bus, retentionMs }));
});
