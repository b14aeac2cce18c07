// Where tests find Redis, and what a suite does when it (or PostgreSQL) is not there: on a laptop
// it is skipped with the reason in its name; in CI it fails, because a silently skipped suite would
// pass. Each test file uses a key prefix of its own and removes its keys when done.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { beforeAll, describe, it } from "vitest";
import { postgresAvailable, TEST_DATABASE_URL } from "./postgres.js";
import { deleteKeysWithPrefix } from "../../src/events/redis-keys.js";

export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

const HOW_TO_START =
  'start it (redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no, ' +
  "or docker run -d -p 6379:6379 redis:7) or point REDIS_URL at a running server";

export async function redisAvailable(): Promise<boolean> {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 3_000, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A key prefix no other test file uses. */
export function freshKeyPrefix(): string {
  return `gantry-test-${randomBytes(6).toString("hex")}:`;
}

/** Deletes every key under the prefix. */
export async function deleteKeys(prefix: string): Promise<void> {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  client.on("error", () => {});
  await client.connect();
  try {
    await deleteKeysWithPrefix(client, prefix);
  } finally {
    client.disconnect();
  }
}

/** `describe` when Redis answers; otherwise a visibly skipped suite, or a failing one in CI. */
export async function describeWithRedis(name: string, body: () => void): Promise<void> {
  if (await redisAvailable()) {
    describe(name, body);
    return;
  }
  const reason = `Redis is not reachable at ${TEST_REDIS_URL.replace(/:[^:@/]*@/, ":@")}`;
  if (process.env.CI === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reason}; CI needs it: ${HOW_TO_START}`);
      });
      it("runs against Redis", () => {});
    });
    return;
  }
  describe.skip(`${name} (skipped: ${reason}; to run it, ${HOW_TO_START})`, body);
}

/** `describe` when both PostgreSQL and Redis answer; otherwise a visibly skipped suite, or a failing one in CI. */
export async function describeWithPostgresAndRedis(name: string, body: () => void): Promise<void> {
  const [pgUp, redisUp] = await Promise.all([postgresAvailable(), redisAvailable()]);
  if (pgUp && redisUp) {
    describe(name, body);
    return;
  }
  const reasons = [
    ...(pgUp ? [] : [`PostgreSQL is not reachable at ${TEST_DATABASE_URL.replace(/:[^:@/]*@/, ":@")}`]),
    ...(redisUp ? [] : [`Redis is not reachable at ${TEST_REDIS_URL.replace(/:[^:@/]*@/, ":@")} (${HOW_TO_START})`]),
  ];
  const reason = reasons.join("; ");
  if (process.env.CI === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reason}; CI needs both`);
      });
      it("runs against PostgreSQL and Redis", () => {});
    });
    return;
  }
  describe.skip(`${name} (skipped: ${reason})`, body);
}
