// The control plane's records as storage returns them. Wire shapes are built from these in api/.
export const REVISION_STATUSES = [
  "CREATING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILDING",
  "AWAITING_DEPLOY",
  "DEPLOYING",
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
  "UNKNOWN",
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

export const DEPLOYMENT_STATUSES = ["AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** Statuses a revision never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<RevisionStatus> = new Set([
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
  "UNKNOWN",
]);

/** A git repository Gantry clones, or archives the official CLI uploads (`deploy --remote`). */
export type DeploymentSource = "github" | "internal_source";

export interface DeploymentRecord {
  id: string;
  tenant_id: string;
  name: string;
  source: DeploymentSource;
  deployment_type: "dev_free" | "dev" | "prod";
  /** "" for an internal_source deployment: it has no repository. */
  repo_url: string;
  integration_id: string | null;
  build_on_push: boolean;
  install_command: string | null;
  build_command: string | null;
  resource_spec: Record<string, unknown> | null;
  /** The deployment's own address, when one was given; requests whose Host is custom_host reach it. */
  custom_url: string | null;
  custom_host: string | null;
  status: DeploymentStatus;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface RevisionRecord {
  id: string;
  deployment_id: string;
  seq: number;
  status: RevisionStatus;
  source: DeploymentSource;
  /** "" for an internal_source revision. */
  repo_ref: string;
  langgraph_config_path: string;
  repo_commit_sha: string | null;
  pinned_commit_sha: string | null;
  /** internal_source: the uploaded archive (an object path from upload-url) this revision builds. */
  source_tarball_path: string | null;
  secrets_sealed: string;
  secret_names: string[];
  created_at: string;
  updated_at: string;
}

export type LogType = "build" | "deploy";
export type LogLevel = "DEBUG" | "INFO" | "WARNING" | "ERROR" | "CRITICAL";

export interface LogRecord {
  id: number;
  revision_id: string;
  type: LogType;
  level: LogLevel;
  message: string;
  timestamp: number;
}
