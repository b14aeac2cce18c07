// A Prometheus histogram with one label: cumulative buckets, sum and count per label value.

export interface Histogram {
  observe(label: string, seconds: number): void;
  prometheus(): string;
  /** Count, sum and per-bucket counts by label value, for the JSON form of /metrics. */
  json(): Record<string, { count: number; sum: number; buckets: Record<string, number> }>;
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
      const out: ReturnType<Histogram["json"]> = {};
      for (const [label, s] of series) {
        out[label] = { count: s.count, sum: s.sum, buckets: Object.fromEntries(bounds.map((bound, i) => [String(bound), s.buckets[i]!])) };
      }
      return out;
    },
  };
}
