// One thread: its status and metadata, the run panel, the current state and the checkpoint history.
import { useMemo, useState } from "preact/hooks";
import type { Client } from "@langchain/langgraph-sdk";
import { ErrorBox, Json, Link, Progress, Status, when } from "../components/common.js";
import { useLoad } from "../use-load.js";
import { RunPanel } from "./run-panel.js";

const HISTORY_LIMIT = 20;

export function ThreadPage({ client, threadId, assistantId }: { client: Client; threadId: string; assistantId?: string }) {
  const [version, setVersion] = useState(0);
  const refresh = () => setVersion((v) => v + 1);
  const thread = useLoad(() => client.threads.get(threadId), [client, threadId, version]);
  const state = useLoad(() => client.threads.getState(threadId), [client, threadId, version]);
  const history = useLoad(() => client.threads.getHistory(threadId, { limit: HISTORY_LIMIT }), [client, threadId, version]);
  const interrupts = useMemo(() => state.data?.tasks.flatMap((t) => t.interrupts) ?? [], [state.data]);
  const fromMetadata = thread.data?.metadata?.assistant_id;

  return (
    <div>
      <div class="title-row">
        <h2>
          <Link to="threads">Threads</Link> / <span class="mono">{threadId}</span>
        </h2>
        <div class="row">
          {thread.data && <Status status={thread.data.status} />}
          <button type="button" class="secondary" onClick={refresh} disabled={thread.loading}>
            {thread.loading ? "Refreshing…" : "Refresh"}
          </button>
        </div>
      </div>
      <ErrorBox error={thread.error} />
      <div class="split">
        {thread.data && (
          <RunPanel
            key={threadId}
            client={client}
            threadId={threadId}
            assistantId={assistantId ?? (typeof fromMetadata === "string" ? fromMetadata : undefined)}
            interrupts={interrupts}
            onFinished={refresh}
          />
        )}
        <div class="grow stack">
          <section class="panel" aria-label="Current state">
            <h3>Current state</h3>
            <ErrorBox error={state.error} />
            {state.loading && !state.data && <Progress label="Loading state…" />}
            {state.data && (
              <>
                <dl class="facts">
                  <dt>Next</dt>
                  <dd>{state.data.next.length ? state.data.next.join(", ") : "nothing (done)"}</dd>
                  <dt>Checkpoint</dt>
                  <dd class="mono small">{state.data.checkpoint?.checkpoint_id ?? "none yet"}</dd>
                  <dt>Metadata</dt>
                  <dd class="mono small">{JSON.stringify(thread.data?.metadata ?? {})}</dd>
                </dl>
                <Json value={state.data.values} label="State values" />
              </>
            )}
          </section>
          <section class="panel" aria-label="History">
            <h3>History</h3>
            <ErrorBox error={history.error} />
            {history.data?.length === 0 && <p class="muted">No checkpoints yet: start a run.</p>}
            <ol class="history">
              {history.data?.map((h) => (
                <li key={h.checkpoint.checkpoint_id}>
                  <details>
                    <summary>
                      <span>step {String(h.metadata?.step ?? "?")}</span>
                      <span class="muted">{String(h.metadata?.source ?? "")}</span>
                      <span>{h.next.length ? `→ ${h.next.join(", ")}` : "done"}</span>
                      <span class="muted small">{when(h.created_at ?? undefined)}</span>
                    </summary>
                    <Json value={h.values} />
                  </details>
                </li>
              ))}
            </ol>
            {history.data?.length === HISTORY_LIMIT && <p class="muted small">Showing the latest {HISTORY_LIMIT} checkpoints.</p>}
          </section>
        </div>
      </div>
    </div>
  );
}
