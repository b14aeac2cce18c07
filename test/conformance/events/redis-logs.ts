// The Redis event logs the Redis conformance files run on, under a key prefix of the file's own:
// process A's log, an expiring one on A, process B's (on its own connections, polling once a
// minute, so what it reads comes from the channel's batches) and the bus.
import type { MessageBus } from "../../../src/events/event-bus.js";
import type { EventPayloadCodec } from "../../../src/events/event-payload-codec.js";
import { createRedisBus } from "../../../src/events/redis-bus.js";
import { redisChannels } from "../../../src/events/redis-channels.js";
import { connectRedis, type RedisConnections } from "../../../src/events/redis-connection.js";
import { createRedisEventLog, type RedisEventLogOptions } from "../../../src/events/redis-event-log.js";
import type { RunEventLog } from "../../../src/events/run-event-log.js";
import { createLogger } from "../../../src/logging.js";
import { deleteKeys, TEST_REDIS_URL } from "../../support/redis.js";

// Ended logs outlive every case, however slow the machine; expiry has a log of its own.
export const RETENTION_MS = 60_000;
export const EXPIRING_RETENTION_MS = 300;

export interface RedisLogs {
  redis: RedisConnections;
  other: RedisConnections;
  log: RunEventLog;
  otherLog: RunEventLog;
  expiring: RunEventLog;
  bus: MessageBus;
  /** Another log on process A's connections, with options of its own. */
  logOn(processId: string, extra: Partial<RedisEventLogOptions>): RunEventLog;
}

export async function openRedisLogs(prefix: string, payloads?: EventPayloadCodec): Promise<RedisLogs> {
  const logger = createLogger({ level: "error", json: true });
  const redis = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, logger);
  const other = await connectRedis({ url: TEST_REDIS_URL, keyPrefix: prefix }, logger);
  const channels = redisChannels(redis.subscriber, logger);
  const base = { prefix, retentionMs: RETENTION_MS, openTtlMs: 60_000, ...(payloads ? { payloads } : {}) };
  const logOn = (processId: string, extra: Partial<RedisEventLogOptions>) =>
    createRedisEventLog({ ...base, commands: redis.commands, channels, pollMs: 100, processId, ...extra });
  return {
    redis,
    other,
    log: logOn("A", {}),
    expiring: logOn("A-expiring", { retentionMs: EXPIRING_RETENTION_MS }),
    otherLog: createRedisEventLog({ ...base, commands: other.commands, channels: redisChannels(other.subscriber, logger), pollMs: 60_000, processId: "B" }),
    bus: createRedisBus({ commands: redis.commands, channels, prefix }),
    logOn,
  };
}

export async function closeRedisLogs(logs: RedisLogs | undefined, prefix: string): Promise<void> {
  await logs?.redis.close();
  await logs?.other.close();
  await deleteKeys(prefix);
}
