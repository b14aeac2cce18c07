// TTL arithmetic shared by both adapters: minutes from now, as the ISO timestamp they expire at.
import type { ThreadTtlInput } from "./ports.js";
import type { TtlStrategy } from "./records.js";

export function expiresAt(now: Date, ttlMinutes: number): string {
  return new Date(now.getTime() + ttlMinutes * 60_000).toISOString();
}

/** A new thread's three TTL columns (strategy, minutes, expiry), all null when it has no TTL. */
export function newThreadTtl(ttl: ThreadTtlInput | undefined, now: Date): [TtlStrategy | null, number | null, string | null] {
  return ttl ? [ttl.strategy, ttl.ttl_minutes, expiresAt(now, ttl.ttl_minutes)] : [null, null, null];
}
