// Assistants: the list, and the chosen one's details and graph drawing, with a way to start a
// thread on it.
import { useState } from "preact/hooks";
import type { Client } from "@langchain/langgraph-sdk";
import { errorText } from "../api.js";
import { ErrorBox, Json, Link, Progress, when } from "../components/common.js";
import { GraphDrawing } from "../components/graph-drawing.js";
import type { GraphJson } from "../graph-layout.js";
import { navigate } from "../router.js";
import { useLoad } from "../use-load.js";

export function AssistantsPage({ client, assistantId }: { client: Client; assistantId?: string }) {
  const list = useLoad(() => client.assistants.search({ limit: 100, sortBy: "created_at", sortOrder: "asc" }), [client]);
  const selected = assistantId ?? list.data?.[0]?.assistant_id;
  return (
    <div class="split">
      <section class="panel list-panel">
        <h2>Assistants</h2>
        <ErrorBox error={list.error} />
        {list.loading && !list.data && <Progress label="Loading assistants…" />}
        {list.data?.length === 0 && <p class="muted">No assistants. Add graphs to langgraph.json.</p>}
        <ul class="pick-list">
          {list.data?.map((a) => (
            <li key={a.assistant_id} class={a.assistant_id === selected ? "picked" : ""}>
              <Link to={`assistants/${encodeURIComponent(a.assistant_id)}`}>
                <strong>{a.name}</strong>
                <span class="muted small">{a.graph_id}</span>
              </Link>
            </li>
          ))}
        </ul>
      </section>
      {selected && <AssistantDetail key={selected} client={client} assistantId={selected} />}
    </div>
  );
}

function AssistantDetail({ client, assistantId }: { client: Client; assistantId: string }) {
  const assistant = useLoad(() => client.assistants.get(assistantId), [client, assistantId]);
  const graph = useLoad(() => client.assistants.getGraph(assistantId) as Promise<GraphJson>, [client, assistantId]);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string>();

  const newThread = async () => {
    setCreating(true);
    setError(undefined);
    try {
      const thread = await client.threads.create({ metadata: { created_from: "gantry-ui" } });
      navigate(`threads/${thread.thread_id}?assistant=${encodeURIComponent(assistantId)}`);
    } catch (err) {
      setError(errorText(err));
      setCreating(false);
    }
  };

  return (
    <section class="panel grow">
      <ErrorBox error={assistant.error} />
      {assistant.data && (
        <>
          <div class="title-row">
            <h2>{assistant.data.name}</h2>
            <button type="button" onClick={newThread} disabled={creating}>
              {creating ? "Creating…" : "New thread with this assistant"}
            </button>
          </div>
          <ErrorBox error={error} />
          <dl class="facts">
            <dt>Assistant</dt>
            <dd class="mono">{assistant.data.assistant_id}</dd>
            <dt>Graph</dt>
            <dd>{assistant.data.graph_id}</dd>
            <dt>Version</dt>
            <dd>{assistant.data.version}</dd>
            <dt>Updated</dt>
            <dd>{when(assistant.data.updated_at)}</dd>
          </dl>
          {Object.keys(assistant.data.config ?? {}).length > 0 && (
            <details>
              <summary>Config</summary>
              <Json value={assistant.data.config} />
            </details>
          )}
        </>
      )}
      <h3>Graph</h3>
      <ErrorBox error={graph.error} />
      {graph.loading && !graph.data && <Progress label="Drawing the graph…" />}
      {graph.data && <GraphDrawing graph={graph.data} />}
    </section>
  );
}
