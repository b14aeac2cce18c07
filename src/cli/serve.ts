// `gantry serve`: the production server, one replica of many over one PostgreSQL and one Redis.
// Run events, thread streams, wake-ups and cancels travel through Redis so any replica serves any
// request; PostgreSQL holds everything durable. SIGTERM stops claiming, lets running runs finish
// for the grace period, then hands what is left back to the queue for another replica.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { loadServeConfig, type ServeFlags } from "../config/server-config.js";
import { createRedisBus } from "../events/redis-bus.js";
import { redisChannels } from "../events/redis-channels.js";
import { connectRedis } from "../events/redis-connection.js";
import { createRedisEventLog } from "../events/redis-event-log.js";
import { configuredKeyRing } from "../encryption/configured-key-ring.js";
import { sealedEventPayloads } from "../encryption/sealed-event-payloads.js";
import { createLogger, type Logger } from "../logging.js";
import type { RunningServer } from "./agent-server.js";
import { type EarlyListener, listenEarly } from "./listen-http.js";

export async function startServeServer(flags: ServeFlags, log?: Logger): Promise<RunningServer> {
  const config = loadServeConfig(flags);
  const logger = log ?? createLogger(config.log);
  // Built before Redis is reached, so a bad key stops start-up with its one line and nothing to close.
  const { aesKey, previousAesKeys } = config.encryption;
  const payloads = aesKey ? sealedEventPayloads(configuredKeyRing(aesKey, previousAesKeys)) : undefined;
  const redis = await connectRedis({ url: config.redis.url, keyPrefix: config.redis.keyPrefix }, logger);
  const prefix = config.redis.keyPrefix;
  const channels = redisChannels(redis.subscriber, logger);
  const workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const events = createRedisEventLog({
    commands: redis.commands,
    channels,
    prefix,
    retentionMs: config.streamRetentionMs,
    // A log outlives its longest possible run, retries included, then goes even if nobody ended it.
    openTtlMs: config.queue.timeoutMs * config.queue.maxAttempts + config.streamRetentionMs,
    pollMs: config.queue.pollMs,
    processId: workerId,
    ...(payloads ? { payloads } : {}),
  });
  // Held for a little less than one sweep interval, so whichever replica ticks next can take it.
  const lockMs = Math.max(1, config.queue.sweepMs - Math.min(1_000, Math.floor(config.queue.sweepMs / 10)));
  const sweepLock = async () => (await redis.commands.set(`${prefix}sweeper`, workerId, "PX", lockMs, "NX")) === "OK";
  let early: EarlyListener | undefined;
  try {
    // The port before the server's modules and the graphs load, and those once configuration and
    // Redis are known good: a misconfigured replica, or one on a port in use, fails before the bulk
    // of its start-up.
    early = await listenEarly(config.host, config.port);
    const { startAgentServer } = await import("./agent-server.js");
    return await startAgentServer(
      config,
      logger,
      {
        role: config.role,
        workerId,
        events,
        bus: createRedisBus({ commands: redis.commands, channels, prefix }),
        aloneOnDatabase: false,
        handOffOnShutdown: true,
        sweepLock,
        probes: [{ name: "redis", label: "Redis", ping: () => redis.ping() }],
        redisCommandsSent: () => redis.commandsSent(),
        close: () => redis.close(),
      },
      early,
    );
  } catch (err) {
    early?.server.close();
    await redis.close();
    throw err;
  }
}
