// What the control plane needs from its database. The SQLite adapter implements it; the API,
// the reconciler and the CLI only ever see this interface.
import type { DeploymentRecord, DeploymentStatus, LogLevel, LogRecord, LogType, RevisionRecord, RevisionStatus } from "./records.js";

export interface DeploymentFilter {
  tenant_id?: string;
  name_contains?: string;
  status?: DeploymentStatus;
  deployment_type?: DeploymentRecord["deployment_type"];
  ids?: string[];
}

export type NewRevision = Omit<RevisionRecord, "seq" | "created_at" | "updated_at" | "repo_commit_sha" | "status">;

export type DeploymentChanges = Partial<
  Pick<DeploymentRecord, "build_on_push" | "install_command" | "build_command" | "resource_spec" | "custom_url" | "custom_host">
>;

export interface LogQuery {
  type: LogType;
  order: "asc" | "desc";
  limit: number;
  /** Exclusive cursor: a log id from a previous page. */
  after?: number;
  level?: LogLevel;
  query?: string;
  start_ms?: number;
  end_ms?: number;
}

export interface ControlPlaneStore {
  /** The deployment and its first revision, in one transaction; an internal_source deployment starts without one. */
  createDeployment(
    deployment: Omit<DeploymentRecord, "latest_revision_id" | "active_revision_id" | "created_at" | "updated_at">,
    revision: NewRevision | undefined,
  ): Promise<DeploymentRecord>;
  getDeployment(id: string): Promise<DeploymentRecord | undefined>;
  listDeployments(filter: DeploymentFilter, limit: number, offset: number): Promise<DeploymentRecord[]>;
  /** The deployment, not being deleted, whose custom_host is one of `hosts`. */
  findByCustomHost(hosts: string[]): Promise<DeploymentRecord | undefined>;
  /** All deployments, for the reconciler (including those awaiting delete). */
  allDeployments(): Promise<DeploymentRecord[]>;
  /** Field changes and, when given, a new revision that becomes the latest; one transaction. */
  updateDeployment(id: string, changes: DeploymentChanges, revision?: NewRevision): Promise<DeploymentRecord>;
  markDeleting(id: string): Promise<void>;
  purgeDeployment(id: string): Promise<void>;

  getRevision(deploymentId: string, revisionId: string): Promise<RevisionRecord | undefined>;
  /** Newest first. */
  listRevisions(deploymentId: string, statuses: RevisionStatus[] | undefined, limit: number, offset: number): Promise<RevisionRecord[]>;
  /** Moves a revision to `status` only while it is in one of `from`; returns whether it moved. */
  setRevisionStatus(revisionId: string, status: RevisionStatus, from: readonly RevisionStatus[]): Promise<boolean>;
  setRevisionCommit(revisionId: string, sha: string): Promise<void>;
  /** The revision becomes DEPLOYED and the deployment's active one, in one transaction. */
  promote(deploymentId: string, revisionId: string): Promise<void>;

  appendLog(revisionId: string, type: LogType, level: LogLevel, message: string): Promise<void>;
  readLogs(revisionId: string, query: LogQuery): Promise<LogRecord[]>;
  /** The log lines of every revision of a deployment, as one stream ordered by id. */
  readDeploymentLogs(deploymentId: string, query: LogQuery): Promise<LogRecord[]>;
  close(): Promise<void>;
}
