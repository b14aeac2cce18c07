// Percentiles, rounding and the load loops shared by the benchmarks.

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** Calls `task` from `clients` concurrent loops until `seconds` have passed; returns the elapsed seconds. */
export async function loadFor(seconds: number, clients: number, task: (client: number, n: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) await task(client, n);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Runs `task(i)` for i in [from, to) with at most `clients` in flight; returns the elapsed seconds. */
export async function loadRange(from: number, to: number, clients: number, task: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = from;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < to) await task(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}
