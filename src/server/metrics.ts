// Request counts and latency histograms by route pattern, method and status, rendered in the
// Prometheus text format (or JSON). Patterns, not raw paths, keep the label set bounded.

const BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  method: string;
  route: string;
  status: number;
  count: number;
  sum: number;
  buckets: number[];
}

export interface Metrics {
  observe(method: string, route: string, status: number, seconds: number): void;
  prometheus(): Promise<string>;
  json(): Promise<{ requests: Array<Omit<Series, "buckets">> } & Record<string, unknown>>;
}

/** Figures kept elsewhere (the webhook delivery loop, the queue) that /metrics renders with its own; some ask the database. */
export interface MetricsSource {
  prometheus(): string | Promise<string>;
  json(): Record<string, unknown> | Promise<Record<string, unknown>>;
}

export function createMetrics(sources: MetricsSource[] = []): Metrics {
  const series = new Map<string, Series>();
  const startedAt = Date.now();
  return {
    observe(method, route, status, seconds) {
      const key = `${method} ${route} ${status}`;
      let s = series.get(key);
      if (!s) {
        s = { method, route, status, count: 0, sum: 0, buckets: BUCKETS_SECONDS.map(() => 0) };
        series.set(key, s);
      }
      s.count += 1;
      s.sum += seconds;
      BUCKETS_SECONDS.forEach((bound, i) => {
        if (seconds <= bound) s.buckets[i]! += 1;
      });
    },
    async prometheus() {
      const lines = [
        "# HELP gantry_http_requests_total HTTP requests answered, by route pattern, method and status.",
        "# TYPE gantry_http_requests_total counter",
      ];
      for (const s of series.values()) lines.push(`gantry_http_requests_total{${labels(s)}} ${s.count}`);
      lines.push("# HELP gantry_http_request_duration_seconds Time to answer HTTP requests.", "# TYPE gantry_http_request_duration_seconds histogram");
      for (const s of series.values()) {
        BUCKETS_SECONDS.forEach((bound, i) => lines.push(`gantry_http_request_duration_seconds_bucket{${labels(s)},le="${bound}"} ${s.buckets[i]}`));
        lines.push(`gantry_http_request_duration_seconds_bucket{${labels(s)},le="+Inf"} ${s.count}`);
        lines.push(`gantry_http_request_duration_seconds_sum{${labels(s)}} ${s.sum}`);
        lines.push(`gantry_http_request_duration_seconds_count{${labels(s)}} ${s.count}`);
      }
      lines.push(
        "# HELP gantry_uptime_seconds Seconds since the server started.",
        "# TYPE gantry_uptime_seconds gauge",
        `gantry_uptime_seconds ${(Date.now() - startedAt) / 1000}`,
      );
      const fromSources = await Promise.all(sources.map((source) => source.prometheus()));
      return lines.join("\n") + "\n" + fromSources.join("");
    },
    async json() {
      const extra = Object.assign({}, ...(await Promise.all(sources.map((source) => source.json())))) as Record<string, unknown>;
      return { ...extra, requests: [...series.values()].map(({ buckets: _buckets, ...rest }) => rest) };
    },
  };
}

function labels(s: Series): string {
  return `method="${s.method}",route="${escapeLabel(s.route)}",status="${s.status}"`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
