// Round trips to the backing services, for /metrics: statements sent to PostgreSQL and commands
// sent to Redis since start. Divided by the runs finished over the same span they say what one
// run costs each backend (npm run bench:modes prints them so).
import type { MetricsSource } from "../server/metrics.js";

export interface BackendCounters {
  /** Statements sent to PostgreSQL (absent on SQLite). */
  postgresStatements?: () => number;
  /** Commands sent to Redis (absent without Redis). */
  redisCommands?: () => number;
}

export function backendMetrics(counters: BackendCounters): MetricsSource {
  const series = [
    {
      name: "gantry_postgres_statements_total",
      key: "postgres_statements",
      help: "Statements sent to PostgreSQL, each one round trip.",
      read: counters.postgresStatements,
    },
    { name: "gantry_redis_commands_total", key: "redis_commands", help: "Commands sent to Redis, pipelined ones each counted.", read: counters.redisCommands },
  ].filter((s): s is typeof s & { read: () => number } => s.read !== undefined);
  return {
    prometheus() {
      return series.map((s) => `# HELP ${s.name} ${s.help}\n# TYPE ${s.name} counter\n${s.name} ${s.read()}\n`).join("");
    },
    json() {
      return Object.fromEntries(series.map((s) => [s.key, s.read()]));
    },
  };
}
