// TTL arithmetic shared by both adapters: minutes from now, as the ISO timestamp they expire at.

export function expiresAt(now: Date, ttlMinutes: number): string {
  return new Date(now.getTime() + ttlMinutes * 60_000).toISOString();
}
