// The boundary between the reconciler and where revisions run. The process driver runs each one as
// a local `gantry dev` or `gantry serve` child; a kubernetes driver (docs/kubernetes-driver.md) would implement the
// same interface with a Deployment and a Service per revision.
/** Where a revision's server is in its life, as the driver sees it. */
export type InstanceState = "starting" | "healthy" | "failed" | "stopping";

export interface InstanceSpec {
  deployment_id: string;
  revision_id: string;
  /** The built langgraph.json to serve. */
  configPath: string;
  /** The build it lies in: all of it the server sees of the build cache. */
  buildDir: string;
  /** Environment of the server: the variables Gantry passes on plus the revision's secrets. */
  env: NodeJS.ProcessEnv;
  /** Replicas and sizes, for drivers that can honour them (spec §4.5); the process driver runs one. */
  resourceSpec: Record<string, unknown> | null;
  /** A rollout's new revision: it serves requests once healthy but takes no runs or crons until promote(). */
  waitForPromotion: boolean;
}

export interface InstanceView {
  deployment_id: string;
  revision_id: string;
  state: InstanceState;
}

export type DeployLog = (level: "DEBUG" | "INFO" | "WARNING" | "ERROR", message: string) => void;

export interface Lease {
  url: string;
  /** Headers the server requires of every request (its revision token). */
  headers: Record<string, string>;
  /** Ends the request's hold on the instance, so a drain can finish. */
  release(): void;
}

export interface Driver {
  /** Idempotent: a revision already starting or running is left alone. Resolves when healthy or failed. */
  start(spec: InstanceSpec, log: DeployLog): Promise<void>;
  /**
   * The revision is now the live one (the router sends it the traffic): it takes the deployment's
   * runs and crons from now on, and the deployment's other servers take no more.
   */
  promote(revisionId: string): void;
  /** Stops new work reaching the revision, waits for its in-flight requests (bounded), then stops it. */
  stop(revisionId: string): void;
  instances(): InstanceView[];
  /** A healthy revision's address, held until release() so a drain waits for the request. */
  acquire(revisionId: string): Lease | undefined;
  /** Removes a deployment's data (its database, shared by all its revisions) once nothing of it runs. */
  removeData(deploymentId: string): Promise<void>;
  /** Stops whatever a previous control-plane process left running. */
  recover(): Promise<void>;
  /** Stops every instance (control-plane shutdown). */
  close(): Promise<void>;
  /** Called whenever an instance changes state, to wake the reconciler. */
  onChange(listener: () => void): void;
}
