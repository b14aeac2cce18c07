-- The control plane's state: deployments, their revisions (each with its own encrypted secrets
-- snapshot, so a rollback brings back the secrets it ran with), and build/deploy log lines.
-- Lives in its own schema (gantry_control_plane by default), apart from any Agent Server's tables.
CREATE TABLE deployments (
  id UUID PRIMARY KEY,
  tenant_id UUID NOT NULL,
  -- Unique per tenant among deployments not being deleted (partial index below).
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  deployment_type TEXT NOT NULL,
  repo_url TEXT NOT NULL,
  integration_id UUID,
  build_on_push BOOLEAN NOT NULL DEFAULT FALSE,
  install_command TEXT,
  build_command TEXT,
  resource_spec JSONB,
  -- AWAITING_DATABASE until a first revision is live, READY after, AWAITING_DELETE once deleted.
  status TEXT NOT NULL,
  latest_revision_id UUID,
  -- The revision the router sends traffic to; changes only when a revision passed its health check.
  active_revision_id UUID,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX deployments_live_name ON deployments (tenant_id, name) WHERE status <> 'AWAITING_DELETE';
CREATE INDEX deployments_created ON deployments (created_at DESC, id DESC);

CREATE TABLE revisions (
  id UUID PRIMARY KEY,
  deployment_id UUID NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
  -- Increases per deployment; "newest first" is seq DESC, never a timestamp comparison.
  seq INTEGER NOT NULL,
  status TEXT NOT NULL,
  source TEXT NOT NULL,
  repo_ref TEXT NOT NULL,
  langgraph_config_path TEXT NOT NULL,
  -- The commit actually built; NULL until the builder resolved the ref.
  repo_commit_sha TEXT,
  -- When set, the commit to build instead of resolving repo_ref (redeploys and build_on_push).
  pinned_commit_sha TEXT,
  -- AES-256-GCM of the JSON secrets list, bound to this row's id; never leaves the process in clear.
  secrets_sealed TEXT NOT NULL,
  secret_names JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  UNIQUE (deployment_id, seq)
);

CREATE TABLE revision_logs (
  id BIGSERIAL PRIMARY KEY,
  revision_id UUID NOT NULL REFERENCES revisions (id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('build', 'deploy')),
  level TEXT NOT NULL,
  message TEXT NOT NULL,
  -- Epoch milliseconds, the unit the official CLI reads.
  timestamp BIGINT NOT NULL
);
CREATE INDEX revision_logs_by_revision ON revision_logs (revision_id, type, id);
