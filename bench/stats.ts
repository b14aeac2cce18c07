// Percentiles and a small table printer shared by the benchmarks.

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));
