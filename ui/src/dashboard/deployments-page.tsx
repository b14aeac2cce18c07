// The deployments with their live status: each one's latest revision, asked again every two seconds.
import { ErrorBox, Link, Progress, Status, when } from "../components/common.js";
import { usePolled } from "../use-load.js";
import { call, deploymentPath, type Deployment, type Revision } from "./api.js";
import { deploymentPage } from "./routes.js";

const POLL_MS = 2000;

interface Row {
  deployment: Deployment;
  latest: Revision | undefined;
}

async function loadRows(): Promise<Row[]> {
  const page = await call<{ resources: Deployment[] }>("GET", "/v2/deployments?limit=100");
  return Promise.all(
    page.resources.map(async (deployment) => ({
      deployment,
      latest: deployment.latest_revision_id
        ? await call<Revision>("GET", `${deploymentPath(deployment.id)}/revisions/${deployment.latest_revision_id}`).catch(() => undefined)
        : undefined,
    })),
  );
}

export function DeploymentsPage() {
  const rows = usePolled(loadRows, [], POLL_MS);
  return (
    <section class="panel">
      <div class="title-row">
        <h2>Deployments</h2>
        <Link to="new" class="button">
          New deployment
        </Link>
      </div>
      <ErrorBox error={rows.error} />
      {!rows.data && rows.loading && <Progress label="Loading deployments…" />}
      {rows.data && rows.data.length === 0 && <p class="muted">No deployments yet.</p>}
      {rows.data && rows.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Latest revision</th>
                <th>Ref</th>
                <th>Repository</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {rows.data.map(({ deployment: d, latest }) => (
                <tr key={d.id} data-deployment={d.id}>
                  <td>
                    <Link to={deploymentPage(d.id)}>{d.name}</Link>
                    {d.status === "AWAITING_DELETE" && <span class="muted small"> (deleting)</span>}
                  </td>
                  <td>{latest ? <Status status={latest.status} /> : <span class="muted">none</span>}</td>
                  <td class="mono">{d.source_revision_config.repo_ref}</td>
                  <td class="clip mono" title={d.source_config.repo_url ?? ""}>
                    {d.source_config.repo_url}
                  </td>
                  <td class="nowrap small">{when(d.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
