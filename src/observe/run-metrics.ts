// What an operator alerts on, for /metrics: the queue (across replicas, from the database), this
// process's workers, the runs it finished (by status, how long they ran and waited), and the
// streams it has open. The queue and worker gauges carry the names of the platform's self-hosted
// server (`lg_api_*`), so dashboards and alerts written for it work here; the rest are Gantry's.
import type { Logger } from "../logging.js";
import type { QueueStats } from "../storage/run-ports.js";
import { histogram } from "./histogram.js";

const DURATION_BOUNDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
const QUEUE_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface WorkerLoad {
  /** Runs this process executes at once (N_JOBS_PER_WORKER). */
  max: number;
  /** Runs executing now. */
  active: number;
}

export interface RunMetrics {
  /** A run was claimed after waiting this long since it became due (or was created). */
  runStarted(queueSeconds: number): void;
  /** A run's outcome was recorded. */
  runEnded(status: string, seconds: number): void;
  /** An SSE stream opened; the function returned closes it. */
  streamOpened(): () => void;
  prometheus(): Promise<string>;
  json(): Promise<Record<string, unknown>>;
}

export function createRunMetrics(deps: { queueStats: (now: Date) => Promise<QueueStats>; workers?: () => WorkerLoad | undefined; log: Logger }): RunMetrics {
  const finished = new Map<string, number>();
  const durations = histogram("gantry_run_duration_seconds", "Time from a run's claim to its outcome, by status.", "status", DURATION_BOUNDS);
  const queued = histogram("gantry_run_queue_seconds", "Time runs waited in the queue before a worker took them.", "queue", QUEUE_BOUNDS);
  let streams = 0;

  /** Null when the database cannot answer: /metrics still shows the rest, as the platform's does. */
  const queue = async (): Promise<{ stats: QueueStats; waitMax: number } | null> => {
    const now = new Date();
    try {
      const stats = await deps.queueStats(now);
      return { stats, waitMax: stats.oldestDueAt ? Math.max(0, (now.getTime() - stats.oldestDueAt.getTime()) / 1000) : 0 };
    } catch (err) {
      deps.log.warn("queue figures left out of /metrics: the database did not answer", { err });
      return null;
    }
  };

  return {
    runStarted(queueSeconds) {
      queued.observe("all", queueSeconds);
    },
    runEnded(status, seconds) {
      finished.set(status, (finished.get(status) ?? 0) + 1);
      durations.observe(status, seconds);
    },
    streamOpened() {
      streams += 1;
      let open = true;
      return () => {
        if (open) streams -= 1;
        open = false;
      };
    },
    async prometheus() {
      const q = await queue();
      const lines: string[] = [];
      const gauge = (name: string, help: string, value: number) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
      if (q) {
        gauge("lg_api_num_pending_runs", "The number of runs currently pending.", q.stats.pending);
        gauge("lg_api_num_running_runs", "The number of runs currently running.", q.stats.running);
        gauge("lg_api_pending_runs_wait_time_max", "The maximum time a run has been pending, in seconds.", q.waitMax);
      }
      const workers = deps.workers?.();
      if (workers) {
        gauge("lg_api_workers_max", "The maximum number of workers available.", workers.max);
        gauge("lg_api_workers_active", "The number of currently active workers.", workers.active);
        gauge("lg_api_workers_available", "The number of available (idle) workers.", workers.max - workers.active);
      }
      lines.push(
        "# HELP gantry_runs_finished_total Runs whose outcome this process recorded, by status.",
        "# TYPE gantry_runs_finished_total counter",
        ...[...finished].map(([status, n]) => `gantry_runs_finished_total{status="${status}"} ${n}`),
      );
      gauge("gantry_active_streams", "Server-sent event streams open on this process.", streams);
      return lines.join("\n") + "\n" + durations.prometheus() + queued.prometheus();
    },
    async json() {
      const q = await queue();
      const workers = deps.workers?.();
      return {
        ...(q ? { queue: { n_pending: q.stats.pending, n_running: q.stats.running, pending_runs_wait_time_max_secs: q.waitMax } } : {}),
        ...(workers ? { workers: { max: workers.max, active: workers.active, available: workers.max - workers.active } } : {}),
        runs: { finished: Object.fromEntries(finished), duration_seconds: durations.json(), queue_seconds: queued.json().all ?? null },
        active_streams: streams,
      };
    },
  };
}
