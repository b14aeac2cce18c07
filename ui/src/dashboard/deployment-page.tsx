// One deployment: its URL and thread/run view, its revisions (newest first, statuses live), the logs
// of the revision picked, a form for a new revision, and delete.
import { useState } from "preact/hooks";
import { errorText } from "../api.js";
import { ErrorBox, Link, Progress, Status, when } from "../components/common.js";
import { navigate } from "../router.js";
import { usePolled } from "../use-load.js";
import { call, deploymentPath, SETTLED, type Deployment, type Revision } from "./api.js";
import { EditForm } from "./edit-form.js";
import { RevisionLogs } from "./revision-logs.js";
import { deploymentPage } from "./routes.js";

const POLL_MS = 1000;

export function DeploymentPage({ deploymentId, revisionId }: { deploymentId: string; revisionId: string | undefined }) {
  const deployment = usePolled(() => call<Deployment>("GET", deploymentPath(deploymentId)), [deploymentId], POLL_MS);
  const revisions = usePolled(
    () => call<{ resources: Revision[] }>("GET", `${deploymentPath(deploymentId)}/revisions?limit=50`).then((page) => page.resources),
    [deploymentId],
    POLL_MS,
  );
  const [actionError, setActionError] = useState<string | undefined>(undefined);

  const redeploy = async (revision: Revision) => {
    setActionError(undefined);
    try {
      await call("POST", `${deploymentPath(deploymentId)}/revisions/${revision.id}/redeploy`);
      revisions.reload();
      deployment.reload();
    } catch (err) {
      setActionError(errorText(err));
    }
  };

  const d = deployment.data;
  if (!d) {
    return (
      <section class="panel">
        <ErrorBox error={deployment.error} />
        {deployment.loading && <Progress label="Loading the deployment…" />}
      </section>
    );
  }
  const picked = revisions.data?.find((r) => r.id === revisionId);
  return (
    <div class="stack">
      <section class="panel">
        <div class="title-row">
          <h2>{d.name}</h2>
          <a class="button" href={`/deployments/${d.id}/gantry/`}>
            Threads and runs
          </a>
        </div>
        <ErrorBox error={deployment.error} />
        <dl class="facts">
          <dt>URL</dt>
          <dd class="mono" aria-label="URL">
            {d.source_config.custom_url}
          </dd>
          <dt>Repository</dt>
          <dd class="mono">{d.source_config.repo_url}</dd>
          <dt>Ref / config</dt>
          <dd class="mono">
            {d.source_revision_config.repo_ref} · {d.source_revision_config.langgraph_config_path}
          </dd>
          <dt>Type</dt>
          <dd>
            {d.source_config.deployment_type}
            {d.source_config.build_on_push ? ", builds on push" : ""}
          </dd>
          <dt>Status</dt>
          <dd>
            <Status status={d.status} />
          </dd>
          <dt>Secrets</dt>
          <dd class="mono">{d.secrets.length ? d.secrets.map((s) => s.name).join(", ") : <span class="muted">none</span>}</dd>
        </dl>
        <p class="muted small">
          Its API is the URL above, with this API key:{" "}
          <code>
            new Client({"{"} apiUrl, apiKey {"}"})
          </code>
          .
        </p>
      </section>

      <section class="panel" aria-label="Revisions">
        <h3>Revisions</h3>
        <ErrorBox error={actionError ?? revisions.error} />
        {!revisions.data && revisions.loading && <Progress label="Loading revisions…" />}
        {revisions.data && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Created</th>
                  <th>Status</th>
                  <th>Ref</th>
                  <th>Commit</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {revisions.data.map((r) => (
                  <tr key={r.id} data-revision={r.id} class={r.id === revisionId ? "picked" : ""}>
                    <td class="nowrap small">
                      {when(r.created_at)}
                      {r.id === d.active_revision_id && <span class="live"> live</span>}
                    </td>
                    <td>
                      <Status status={r.status} />
                    </td>
                    <td class="mono">{r.source_revision_config.repo_ref}</td>
                    <td class="mono" title={r.source_revision_config.repo_commit_sha ?? ""}>
                      {r.source_revision_config.repo_commit_sha?.slice(0, 10) ?? ""}
                    </td>
                    <td>
                      <div class="actions">
                        <Link to={deploymentPage(d.id, r.id)}>Logs</Link>
                        {r.id !== d.active_revision_id && SETTLED.includes(r.status) && (
                          <button type="button" class="secondary" onClick={() => redeploy(r)}>
                            Redeploy this revision
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {picked && <RevisionLogs key={picked.id} deploymentId={d.id} revision={picked} />}

      <EditForm
        deployment={d}
        onSaved={() => {
          deployment.reload();
          revisions.reload();
        }}
      />
      <DeleteDeployment deployment={d} />
    </div>
  );
}

function DeleteDeployment({ deployment }: { deployment: Deployment }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    try {
      await call("DELETE", deploymentPath(deployment.id));
      navigate("");
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <section class="panel danger" aria-label="Delete">
      <h3>Delete</h3>
      <ErrorBox error={error} />
      {!asking ? (
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Delete deployment
        </button>
      ) : (
        <div role="alertdialog" aria-label="Confirm delete">
          <p>
            Delete <strong>{deployment.name}</strong>? Its server stops and its threads, runs and data are removed. This cannot be undone.
          </p>
          <div class="row">
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Yes, delete {deployment.name}
            </button>
            <button type="button" class="secondary" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
