// Removing every key under a prefix: what is left of a deployment's servers, or of a test's.
import type { Redis } from "ioredis";

/** SCAN + UNLINK in pages, the prefix taken literally (its glob characters escaped). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
}
