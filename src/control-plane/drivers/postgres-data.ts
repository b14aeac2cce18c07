// A PostgreSQL database per deployment, on the control plane's own server: gantry_<deployment id
// without dashes>. With Redis as well, revisions are `gantry serve` replicas (events and signals
// cross processes through Redis, under a key prefix of their own); without it, `gantry dev` on the
// database.
import { Redis } from "ioredis";
import pg from "pg";
import { deleteKeysWithPrefix } from "../../events/redis-keys.js";
import { listenedClient } from "../../storage/postgres/connection-watch.js";
import type { Logger } from "../../logging.js";
import type { DeploymentData } from "./deployment-data.js";

export interface PostgresDataOptions {
  /** The control plane's DATABASE_URL: its server hosts the deployments' databases too. */
  databaseUrl: string;
  redisUrl?: string;
  log: Logger;
}

export const deploymentDatabaseName = (deploymentId: string) => `gantry_${deploymentId.replaceAll("-", "")}`;

/** Every key and channel of one deployment's servers starts with this. */
export const deploymentKeyPrefix = (deploymentId: string) => `gantry:${deploymentId}:`;

/** The same server, user and options as `databaseUrl`, another database. */
export function databaseUrlFor(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = "/" + database;
  return url.toString();
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

export function postgresData(options: PostgresDataOptions): DeploymentData {
  // The clients' own listener keeps a connection dying mid-statement from ending the process (the
  // statement fails by itself); the pool's logs one that dies idle.
  const admin = new pg.Pool({ connectionString: options.databaseUrl, max: 2, Client: listenedClient(pg.Client, () => {}) });
  admin.on("error", (err) => options.log.warn("control-plane PostgreSQL connection error", { err: err.message }));

  return {
    async prepare(deploymentId) {
      const database = deploymentDatabaseName(deploymentId);
      const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
      if (!rowCount) {
        try {
          await admin.query(`CREATE DATABASE ${quoteIdent(database)}`);
          options.log.info("created the deployment's database", { deployment_id: deploymentId, database });
        } catch (err) {
          // 42P04 duplicate_database, or 23505 when two creations race on the catalog: it exists.
          const code = (err as { code?: string }).code;
          if (code !== "42P04" && code !== "23505") throw err;
        }
      }
      const env: Record<string, string> = { DATABASE_URL: databaseUrlFor(options.databaseUrl, database) };
      if (!options.redisUrl) return { command: "dev", args: ["--shared-database"], env };
      return { command: "serve", args: [], env: { ...env, REDIS_URL: options.redisUrl, REDIS_KEY_PREFIX: deploymentKeyPrefix(deploymentId) } };
    },

    async remove(deploymentId) {
      const database = deploymentDatabaseName(deploymentId);
      // Its servers are stopped; a connection left over (a pool closing late) must not block the drop.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [database]);
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)}`);
      options.log.info("dropped the deployment's database", { deployment_id: deploymentId, database });
      if (options.redisUrl) await removeKeys(options.redisUrl, deploymentKeyPrefix(deploymentId));
    },

    close: () => admin.end(),
  };
}

/** Event logs expire on their own; deleting them now means nothing of the deployment is left. */
async function removeKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: 10_000 });
  // Failed commands reject on their own; without a listener ioredis writes each error to stderr.
  redis.on("error", () => {});
  try {
    await redis.connect();
    await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
