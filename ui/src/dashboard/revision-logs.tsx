// A revision's build or deploy log. While the revision is still moving the log is followed: new lines
// are asked for every second after the last one shown, and once more when it settles.
import { useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../api.js";
import { ErrorBox, Status } from "../components/common.js";
import { logsAfter, SETTLED, type LogLine, type Revision } from "./api.js";

const FOLLOW_MS = 1000;

export function RevisionLogs({ deploymentId, revision }: { deploymentId: string; revision: Revision }) {
  const [type, setType] = useState<"build" | "deploy">("build");
  const [lines, setLines] = useState<LogLine[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const settled = SETTLED.includes(revision.status);
  const last = useRef<string | undefined>(undefined);

  useEffect(() => {
    setLines([]);
    last.current = undefined;
  }, [type]);

  useEffect(() => {
    let stopped = false;
    let asking = false;
    const fetchMore = async () => {
      // One call at a time, so a slow answer never shows the same lines twice.
      if (asking) return;
      asking = true;
      try {
        const more = await logsAfter(deploymentId, revision.id, type, last.current);
        if (stopped || more.length === 0) return;
        last.current = more.at(-1)!.id;
        setLines((shown) => [...shown, ...more]);
        setError(undefined);
      } catch (err) {
        if (!stopped) setError(errorText(err));
      } finally {
        asking = false;
      }
    };
    void fetchMore();
    const timer = settled ? undefined : setInterval(fetchMore, FOLLOW_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [deploymentId, revision.id, type, settled]);

  return (
    <section class="panel" aria-label="Logs">
      <div class="title-row">
        <h3>
          Logs of revision <span class="mono small">{revision.id}</span> <Status status={revision.status} />
        </h3>
        <div class="tabs" role="tablist">
          {(["build", "deploy"] as const).map((t) => (
            <button key={t} type="button" role="tab" aria-selected={type === t} class={type === t ? "" : "secondary"} onClick={() => setType(t)}>
              {t === "build" ? "Build log" : "Deploy log"}
            </button>
          ))}
        </div>
      </div>
      <ErrorBox error={error} />
      {!settled && <p class="muted small">Following…</p>}
      <pre class="log" aria-label={`${type} log`}>
        {lines.length === 0 ? (
          <span class="muted">No lines yet.</span>
        ) : (
          lines.map((l) => <div key={l.id} class={`log-${l.level}`}>{`${new Date(l.timestamp).toLocaleTimeString()} ${l.level.padEnd(7)} ${l.message}`}</div>)
        )}
      </pre>
    </section>
  );
}
