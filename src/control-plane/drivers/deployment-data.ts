// Where a deployment's data lives. It belongs to the deployment, not to a revision: every revision
// of one deployment runs on the same database, so threads, runs and store items outlive rollouts,
// as on the platform. Two kinds: an embedded SQLite file per deployment, or a PostgreSQL database
// per deployment (postgres-data.ts).
/** How a revision's server is started on its deployment's data. */
export interface ServerLaunch {
  command: "dev" | "serve";
  /** Arguments after the command and the driver's own (--config, --port, --host). */
  args: string[];
  /** Set over the revision's environment: the server's database (and Redis) settings. */
  env: Record<string, string>;
}

export interface DeploymentData {
  /** Idempotent: makes the deployment's database when it does not exist yet. */
  prepare(deploymentId: string): Promise<ServerLaunch>;
  /** Removes the deployment's database; called once none of its servers runs. Idempotent. */
  remove(deploymentId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * `gantry dev` on one SQLite file per deployment, in the deployment's data dir (the driver passes
 * it as --data-dir: <deploymentsDir>/<deployment_id>/data). --shared-database because two
 * revisions share the file during a rollout (docs/decisions.md).
 */
export function embeddedData(): DeploymentData {
  return {
    async prepare() {
      return { command: "dev", args: ["--shared-database"], env: {} };
    },
    // The driver removes the deployment's whole directory, the data dir with it.
    async remove() {},
    async close() {},
  };
}
