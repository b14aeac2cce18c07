// Records -> the wire shapes of spec §4. Secret values never leave here: names with a mask.
import { SECRET_MASK, type DeploymentView } from "../deployments.js";
import type { LogRecord, RevisionRecord } from "../storage/records.js";

/** An internal_source revision's digest of its archive stays inside: repo_commit_sha is a git commit on the wire. */
export function revisionConfigWire(revision: RevisionRecord | undefined) {
  const git = revision?.source === "github";
  return {
    repo_ref: git ? revision.repo_ref : null,
    langgraph_config_path: revision?.langgraph_config_path ?? null,
    image_uri: null,
    source_tarball_path: revision?.source_tarball_path ?? null,
    repo_commit_sha: git ? revision.repo_commit_sha : null,
  };
}

export function revisionWire(revision: RevisionRecord) {
  return {
    id: revision.id,
    created_at: revision.created_at,
    updated_at: revision.updated_at,
    status: revision.status,
    source: revision.source,
    source_revision_config: revisionConfigWire(revision),
  };
}

/** `baseUrl` is the control plane's public address; a deployment is served under /deployments/{id}, and at its custom_url when set. */
export function deploymentWire({ deployment: d, latest }: DeploymentView, baseUrl: string) {
  return {
    id: d.id,
    tenant_id: d.tenant_id,
    name: d.name,
    source: d.source,
    source_config: {
      integration_id: d.integration_id,
      repo_url: d.source === "github" ? d.repo_url : null,
      deployment_type: d.deployment_type,
      build_on_push: d.build_on_push,
      custom_url: d.custom_url ?? `${baseUrl}/deployments/${d.id}`,
      resource_spec: d.resource_spec,
      listener_id: null,
      listener_config: null,
      install_command: d.install_command,
      build_command: d.build_command,
    },
    source_revision_config: revisionConfigWire(latest),
    secrets: (latest?.secret_names ?? []).map((name) => ({ name, value: SECRET_MASK })),
    secret_references: null,
    created_at: d.created_at,
    updated_at: d.updated_at,
    status: d.status,
    latest_revision_id: d.latest_revision_id,
    active_revision_id: d.active_revision_id,
    image_version: null,
  };
}

export function logWire(log: LogRecord) {
  return { id: String(log.id), timestamp: log.timestamp, level: log.level, message: log.message };
}
