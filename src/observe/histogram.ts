// A Prometheus histogram with one label: cumulative buckets, sum and count per label value.

export interface HistogramSeries {
  count: number;
  sum: number;
  buckets: Record<string, number>;
  /** Estimated from the buckets as Prometheus's histogram_quantile does; null before any observation. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface Histogram {
  observe(label: string, seconds: number): void;
  prometheus(): string;
  /** Count, sum, per-bucket counts and percentiles by label value, for the JSON form of /metrics. */
  json(): Record<string, HistogramSeries>;
}

export function histogram(name: string, help: string, labelName: string, bounds: readonly number[]): Histogram {
  const series = new Map<string, { count: number; sum: number; buckets: number[] }>();
  return {
    observe(label, seconds) {
      let s = series.get(label);
      if (!s) series.set(label, (s = { count: 0, sum: 0, buckets: bounds.map(() => 0) }));
      s.count += 1;
      s.sum += seconds;
      bounds.forEach((bound, i) => {
        if (seconds <= bound) s.buckets[i]! += 1;
      });
    },
    prometheus() {
      const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
      for (const [label, s] of series) {
        const l = `${labelName}="${label}"`;
        bounds.forEach((bound, i) => lines.push(`${name}_bucket{${l},le="${bound}"} ${s.buckets[i]}`));
        lines.push(`${name}_bucket{${l},le="+Inf"} ${s.count}`, `${name}_sum{${l}} ${s.sum}`, `${name}_count{${l}} ${s.count}`);
      }
      return lines.join("\n") + "\n";
    },
    json() {
      const out: Record<string, HistogramSeries> = {};
      for (const [label, s] of series) {
        const at = (q: number) => quantile(q, bounds, s.buckets, s.count);
        out[label] = {
          count: s.count,
          sum: s.sum,
          buckets: Object.fromEntries(bounds.map((bound, i) => [String(bound), s.buckets[i]!])),
          p50: at(0.5),
          p95: at(0.95),
          p99: at(0.99),
        };
      }
      return out;
    },
  };
}

/**
 * The q-quantile of cumulative `buckets` (counts at or under each of `bounds`), interpolated
 * linearly inside its bucket, the first bucket starting at 0. Past the last bound it answers the
 * last bound, as Prometheus does: the buckets say no more than that.
 */
export function quantile(q: number, bounds: readonly number[], buckets: readonly number[], count: number): number | null {
  if (count === 0) return null;
  const rank = q * count;
  const i = buckets.findIndex((n) => n >= rank);
  if (i === -1) return bounds[bounds.length - 1]!;
  const lower = i === 0 ? 0 : bounds[i - 1]!;
  const below = i === 0 ? 0 : buckets[i - 1]!;
  const inBucket = buckets[i]! - below;
  return inBucket === 0 ? lower : lower + (bounds[i]! - lower) * ((rank - below) / inBucket);
}
