// The Redis connections of one `gantry serve` process: one for commands and one for subscriptions
// (a connection in subscriber mode can run no other command). Two per process whatever the load,
// so the connection budget is 2 × replicas. Both reconnect on their own after a Redis restart;
// commands issued meanwhile wait (bounded by `commandTimeoutMs`) and fail rather than hang.
import { Redis } from "ioredis";
import { StartupError } from "../errors.js";
import type { Logger } from "../logging.js";

export interface RedisOptions {
  url: string;
  /** Prepended to every key and channel, so several deployments can share one Redis (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** How long a command may wait, queued during a reconnect or in flight, before it fails. */
  commandTimeoutMs?: number;
}

export interface RedisConnections {
  readonly prefix: string;
  readonly commands: Redis;
  readonly subscriber: Redis;
  /** True when both connections are up. */
  ready(): boolean;
  /** A round trip on the command connection, bounded by the command timeout. */
  ping(): Promise<boolean>;
  /** Commands sent on both connections since connecting, pipelined ones each counted (/metrics). */
  commandsSent(): number;
  close(): Promise<void>;
}

const CONNECT_DEADLINE_MS = 5_000;
// Reconnect quickly at first, then every two seconds: a restarted Redis is back within a poll or two.
const retryDelay = (attempt: number) => Math.min(100 * attempt, 2_000);

export async function connectRedis(options: RedisOptions, log: Logger): Promise<RedisConnections> {
  let sent = 0;
  const open = (role: string) => {
    const client = new Redis(options.url, {
      lazyConnect: true,
      retryStrategy: retryDelay,
      // Queued commands fail after this many reconnect attempts instead of waiting forever.
      maxRetriesPerRequest: 20,
      commandTimeout: options.commandTimeoutMs ?? 10_000,
      connectionName: `gantry-${role}-${process.pid}`,
      // Commands issued in one tick (concurrent runs' appends and reads) leave in one write and come
      // back in one read: fewer syscalls on both ends, and no command waits behind another's round trip.
      enableAutoPipelining: role === "commands",
    });
    // Every command passes here, a pipeline's too (ioredis sends each of them through it).
    const send = client.sendCommand.bind(client);
    client.sendCommand = (...args: Parameters<Redis["sendCommand"]>) => {
      sent += 1;
      return send(...args);
    };
    // Logged once per outage: ioredis emits an error for every failed reconnect attempt, and none
    // at all when Redis is back before the first reconnect, so a scheduled reconnect counts too.
    let down = false;
    const lost = (detail: { err?: string }) => {
      if (down) return;
      down = true;
      log.warn("Redis connection lost; reconnecting", { connection: role, ...detail });
    };
    client.on("error", (err: Error) => lost({ err: err.message }));
    client.on("reconnecting", () => lost({}));
    client.on("ready", () => {
      if (!down) return;
      down = false;
      log.info("Redis connection restored", { connection: role });
    });
    return client;
  };
  const commands = open("commands");
  const subscriber = open("subscriber");
  try {
    await Promise.all([connectWithin(commands), connectWithin(subscriber)]);
  } catch (err) {
    commands.disconnect();
    subscriber.disconnect();
    throw new StartupError(
      `Cannot connect to Redis at ${describeTarget(options.url)} (from REDIS_URL): ${(err as Error).message}. Check that it is running and the URL is right`,
    );
  }
  return {
    prefix: options.keyPrefix,
    commands,
    subscriber,
    ready: () => commands.status === "ready" && subscriber.status === "ready",
    commandsSent: () => sent,
    async ping() {
      if (commands.status !== "ready") return false;
      try {
        return (await commands.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    async close() {
      await Promise.allSettled([commands.quit(), subscriber.quit()]);
    },
  };
}

async function connectWithin(client: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_DEADLINE_MS / 1000} s`)), CONNECT_DEADLINE_MS);
  });
  try {
    await Promise.race([client.connect(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Host and port of a Redis URL, without the credentials it may carry. */
export function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "6379"}`;
  } catch {
    return "the configured Redis URL";
  }
}
