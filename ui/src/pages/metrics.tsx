// The figures of /metrics for a person: the queue, workers, streams, run outcomes with their
// duration and time-in-queue percentiles, and webhook attempts, each with a line of its recent
// samples. Polled every few seconds; the samples live in this page only, so they start afresh on
// each visit (Prometheus and the Grafana dashboard keep the history).
import { useEffect, useState } from "preact/hooks";
import { type AuthHeader, fetchMetrics, type HistogramFigures, type MetricsFigures } from "../api.js";
import { ErrorBox, Progress } from "../components/common.js";
import { Sparkline } from "../components/sparkline.js";
import { usePolled } from "../use-load.js";

const REFRESH_MS = 3000;
/** Samples kept per figure: three minutes at the refresh above. */
const SAMPLES = 60;

interface Sample {
  pending: number | null;
  oldestWait: number | null;
  running: number | null;
  busy: number | null;
  streams: number;
  finished: number;
  durationP50: number | null;
  queueP50: number | null;
  delivered: number;
}

function sampleOf(m: MetricsFigures): Sample {
  return {
    pending: m.queue?.n_pending ?? null,
    oldestWait: m.queue?.pending_runs_wait_time_max_secs ?? null,
    running: m.queue?.n_running ?? null,
    busy: m.workers?.active ?? null,
    streams: m.active_streams,
    finished: Object.values(m.runs.finished).reduce((a, b) => a + b, 0),
    durationP50: m.runs.duration_seconds.success?.p50 ?? null,
    queueP50: m.runs.queue_seconds?.p50 ?? null,
    delivered: m.webhook_attempts?.delivered ?? 0,
  };
}

export function MetricsPage({ auth }: { auth: AuthHeader | undefined }) {
  const metrics = usePolled(fetchMetrics, [auth], REFRESH_MS);
  const [samples, setSamples] = useState<Sample[]>([]);
  useEffect(() => {
    if (metrics.data) setSamples((before) => [...before, sampleOf(metrics.data!)].slice(-SAMPLES));
  }, [metrics.data]);

  const m = metrics.data;
  const series = <K extends keyof Sample>(key: K) => samples.map((s) => s[key]);
  return (
    <section class="panel">
      <div class="title-row">
        <h2>Metrics</h2>
        <span class="muted small">
          Every {REFRESH_MS / 1000} s from <code>/metrics</code>: the queue across replicas, the rest this process
        </span>
      </div>
      <ErrorBox error={metrics.error} />
      {!m && metrics.loading && <Progress label="Loading metrics…" />}
      {m && (
        <>
          <div class="figures">
            <Figure
              id="pending"
              label="Pending runs"
              value={m.queue ? String(m.queue.n_pending) : "—"}
              note={m.queue ? undefined : "the database did not answer"}
              samples={series("pending")}
            />
            <Figure
              id="oldest-wait"
              label="Oldest pending"
              value={m.queue ? seconds(m.queue.pending_runs_wait_time_max_secs) : "—"}
              samples={series("oldestWait")}
            />
            <Figure id="running" label="Running runs" value={m.queue ? String(m.queue.n_running) : "—"} samples={series("running")} />
            <Figure
              id="workers"
              label="Workers busy"
              value={m.workers ? `${m.workers.active} / ${m.workers.max}` : "—"}
              note={m.workers ? `${m.workers.available} free` : "none on this replica"}
              samples={series("busy")}
            />
            <Figure id="streams" label="Active streams" value={String(m.active_streams)} samples={series("streams")} />
            <Figure id="finished" label="Runs finished" value={String(sampleOf(m).finished)} note={byStatus(m.runs.finished)} samples={series("finished")} />
            <Figure
              id="duration"
              label="Run duration p50, successful runs"
              value={seconds(m.runs.duration_seconds.success?.p50)}
              note={percentiles(m.runs.duration_seconds.success)}
              samples={series("durationP50")}
            />
            <Figure
              id="queue-time"
              label="Time in queue p50"
              value={seconds(m.runs.queue_seconds?.p50)}
              note={percentiles(m.runs.queue_seconds)}
              samples={series("queueP50")}
            />
            <Figure
              id="webhooks"
              label="Webhooks delivered"
              value={String(m.webhook_attempts?.delivered ?? 0)}
              note={`retry ${m.webhook_attempts?.retry ?? 0} · failed ${m.webhook_attempts?.failed ?? 0}`}
              samples={series("delivered")}
            />
          </div>
          <h3>Runs by status</h3>
          {Object.keys(m.runs.finished).length === 0 ? (
            <p class="muted">No run has finished on this process yet.</p>
          ) : (
            <div class="table-wrap">
              <table class="by-status">
                <thead>
                  <tr>
                    <th>Status</th>
                    <th>Finished</th>
                    <th>Duration p50</th>
                    <th>p95</th>
                    <th>p99</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(m.runs.finished).map(([status, n]) => {
                    const d = m.runs.duration_seconds[status];
                    return (
                      <tr key={status} data-status={status}>
                        <td>{status}</td>
                        <td>{n}</td>
                        <td>{seconds(d?.p50)}</td>
                        <td>{seconds(d?.p95)}</td>
                        <td>{seconds(d?.p99)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function Figure({ id, label, value, note, samples }: { id: string; label: string; value: string; note?: string; samples: readonly (number | null)[] }) {
  return (
    <div class="figure" data-figure={id}>
      <span class="muted small">{label}</span>
      <strong class="value">{value}</strong>
      <Sparkline values={samples} capacity={SAMPLES} label={label} />
      <span class="muted small note">{note ?? "\u00a0"}</span>
    </div>
  );
}

function byStatus(finished: Record<string, number>): string {
  return (
    Object.entries(finished)
      .map(([status, n]) => `${status} ${n}`)
      .join(" · ") || "none yet"
  );
}

function percentiles(h: HistogramFigures | null | undefined): string {
  if (!h || h.count === 0) return "no runs yet";
  return `p95 ${seconds(h.p95)} · p99 ${seconds(h.p99)}`;
}

/** Seconds as a person reads them; the histograms' buckets make anything finer than that noise. */
function seconds(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (value < 1) return `${Math.round(value * 1000)} ms`;
  if (value < 120) return `${value.toFixed(1)} s`;
  return `${(value / 60).toFixed(1)} min`;
}
