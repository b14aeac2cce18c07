// `gantry control-plane`: the /v2/deployments API, the reconciler and the router in one process,
// state in an embedded SQLite file. `gantry control-plane keys create` mints an API key.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname, networkInterfaces } from "node:os";
import { parseArgs } from "node:util";
import { loadControlPlaneConfig, parseMasterKey, type ControlPlaneConfig, type ControlPlaneFlags } from "../config/control-plane-config.js";
import { createControlPlaneApp } from "../control-plane/api/app.js";
import { apiKeyCheck, hashApiKey, readKeysFile } from "../control-plane/api-keys.js";
import { Builder } from "../control-plane/builder/builder.js";
import { deploymentService } from "../control-plane/deployments.js";
import { embeddedData } from "../control-plane/drivers/deployment-data.js";
import { Sandbox } from "../control-plane/sandbox/sandbox.js";
import type { RepoPolicy } from "../control-plane/repo-policy.js";
import { postgresData } from "../control-plane/drivers/postgres-data.js";
import { ProcessDriver } from "../control-plane/drivers/process-driver.js";
import { Reconciler } from "../control-plane/reconciler/loop.js";
import { secretsCipher } from "../control-plane/secrets-cipher.js";
import { openPostgresControlPlaneStore } from "../control-plane/storage/postgres/store.js";
import { openSqliteControlPlaneStore } from "../control-plane/storage/sqlite/store.js";
import { SourceUploads, uploadSigningKey } from "../control-plane/uploads/source-uploads.js";
import { closest } from "../did-you-mean.js";
import { StartupError } from "../errors.js";
import { listenHttp } from "./listen-http.js";
import { createLogger, type Logger } from "../logging.js";

export const CONTROL_PLANE_USAGE = `Usage: gantry control-plane [options]
       gantry control-plane keys create [--data-dir <dir>] [--name <label>] [--tenant <uuid>]
       gantry control-plane keys list [--data-dir <dir>]
       gantry control-plane keys revoke <id> [--data-dir <dir>]

Keys live in the keys file as hashes; a running control plane reads the file again when it changes,
so a created key works and a revoked one is refused from the next request. A key made with
--tenant acts only in that tenant, with or without X-Tenant-Id.

Serves the /v2/deployments API, builds git repositories (or archives uploaded by the official
'langgraph deploy --remote') into Agent Servers and routes
/deployments/{id}/... to the live revision of each. State is a SQLite file in the data dir, or
PostgreSQL (schema gantry_control_plane) when DATABASE_URL is set.

Options:
  --port <n>          port to listen on (default: 8124)
  --host <addr>       address to bind (default: 127.0.0.1)
  --data-dir <dir>    state, builds and deployed servers' data (default: ./.gantry-control-plane)
  --dev               keep a generated secrets key in the data dir, and accept calls without an
                      API key while none is configured (never in production)

Environment:
  GANTRY_SECRETS_KEY          32 random bytes (base64 or hex) that encrypt deployment secrets; required without --dev
  GANTRY_API_KEYS             comma-separated API keys accepted in X-Api-Key (hashed at start-up)
  GANTRY_API_KEYS_FILE        file of key hashes written by 'keys create' (default: <data-dir>/api-keys)
  GANTRY_CONTROL_PLANE_URL    public URL of this control plane, used in deployment URLs
  GANTRY_SANDBOX              'bubblewrap' (default: each deployment in a sandbox of its own; nothing runs without one)
                              or 'off' (deployments run unconfined and can read this process's secrets)
  GANTRY_ALLOWED_REPO_ROOTS   comma-separated directories local repositories may lie under (unset: none)
  GANTRY_ALLOWED_REPO_HOSTS   repository hosts accepted though loopback, link-local or metadata
  DATABASE_URL                PostgreSQL for the control plane's state (GANTRY_CONTROL_PLANE_SCHEMA, default gantry_control_plane);
                              each deployment then gets a database of its own on the same server
  REDIS_URL                   with DATABASE_URL: deployments run as 'gantry serve' on this Redis
  GANTRY_BUILDS_PER_DEPLOYMENT cached builds kept per deployment (default 3, at least 2)
  GANTRY_BUILD_STEP_TIMEOUT_MS deadline of each build step: clone, install, build, graph import (default 15 min)
  GANTRY_GIT_IDLE_TIMEOUT_MS  a git command silent this long is given up on (default 60000)
  GANTRY_BUILD_ON_PUSH_INTERVAL_MS, GANTRY_HEALTH_TIMEOUT_MS, GANTRY_DRAIN_TIMEOUT_MS,
  GANTRY_RECONCILE_INTERVAL_MS, LOG_LEVEL, LOG_JSON`;

export interface RunningControlPlane {
  url: string;
  close(): Promise<void>;
}

export async function runControlPlaneCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string", short: "p" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      dev: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(CONTROL_PLANE_USAGE);
    return 0;
  }
  if (positionals.length > 0) {
    const nearest = closest(positionals[0]!, ["keys"]);
    console.error(`Unknown argument '${positionals[0]}'${nearest ? `: did you mean 'gantry control-plane ${nearest}'?` : "."}\n\n${CONTROL_PLANE_USAGE}`);
    return 2;
  }
  const server = await startControlPlane({
    ...(values.port !== undefined ? { port: values.port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values["data-dir"] !== undefined ? { dataDir: values["data-dir"] } : {}),
    ...(values.dev ? { dev: true } : {}),
  });
  await new Promise<void>((resolveStop) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      server.close().then(resolveStop, resolveStop);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  return 0;
}

export async function startControlPlane(flags: ControlPlaneFlags, log?: Logger): Promise<RunningControlPlane> {
  const config = loadControlPlaneConfig(flags);
  const logger = log ?? createLogger(config.log);
  mkdirSync(config.dataDir, { recursive: true });
  const masterKey = config.masterKey ?? devMasterKey(config, logger);
  const keys = apiKeyCheck(config.envApiKeys.map(hashApiKey), config.keysFile, config.dev);
  if (loadKeyHashes(config) === 0) {
    if (!config.dev) {
      throw new StartupError(
        `No API key is configured: set GANTRY_API_KEYS or run 'gantry control-plane keys create --data-dir ${config.dataDir}' (or pass --dev to accept calls without a key).`,
      );
    }
    logger.warn("no API key configured: --dev accepts every call without one");
  }

  const store = config.databaseUrl
    ? await openPostgresControlPlaneStore(config.databaseUrl, config.databaseSchema)
    : openSqliteControlPlaneStore(config.sqliteFile);
  logger.info("storage ready", {
    backend: config.databaseUrl ? "postgres" : "sqlite",
    location: config.databaseUrl ? `schema ${config.databaseSchema}` : config.sqliteFile,
    migrated: store.migrated,
  });
  const cipher = secretsCipher(masterKey);
  let wake = () => {};
  const uploads = new SourceUploads({ dir: join(config.dataDir, "uploads"), signingKey: uploadSigningKey(masterKey) });
  const repoPolicy: RepoPolicy = {
    allowedRoots: config.allowedRepoRoots,
    forbiddenRoots: [config.dataDir, config.installDir],
    allowedHosts: config.allowedRepoHosts,
  };
  const deployments = deploymentService({ store, cipher, archives: uploads, repoPolicy, changed: () => wake() });
  const deploymentsDir = join(config.dataDir, "deployments");
  const sandbox = await Sandbox.open({
    mode: config.sandbox,
    path: config.childEnv.PATH ?? "",
    deploymentsDir,
    ownFiles: [config.dataDir, config.keysFile],
    log: logger,
  });
  const driver = new ProcessDriver({
    deploymentsDir,
    sandbox,
    data: config.databaseUrl
      ? postgresData({ databaseUrl: config.databaseUrl, ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}), log: logger })
      : embeddedData(),
    healthTimeoutMs: config.reconciler.healthTimeoutMs,
    drainMs: config.reconciler.drainMs,
    log: logger,
  });
  const builder = new Builder({
    buildsDir: join(config.dataDir, "builds"),
    stepTimeoutMs: config.reconciler.buildStepTimeoutMs,
    gitIdleMs: config.reconciler.gitIdleTimeoutMs,
    gitEnv: config.childEnv,
    sandbox,
    repoPolicy,
  });
  const reconciler = new Reconciler(
    { store, deployments, cipher, builder, driver, uploads, deploymentEnv: config.deploymentEnv, log: logger },
    { tickMs: config.reconciler.tickMs, pushPollMs: config.reconciler.pushPollMs, buildsPerDeployment: config.reconciler.buildsPerDeployment },
  );
  wake = () => reconciler.wake();
  await reconciler.start();

  const app = createControlPlaneApp({
    deployments,
    store,
    driver,
    keys,
    checkPush: (id) => reconciler.checkPushNow(id),
    uploads,
    log: logger,
    ownHostNames: ownHostNames(config),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
  });
  const { server, origin: url } = await listenHttp(app.fetch, config.host, config.port);
  logger.info("listening", { url });

  let closing: Promise<void> | null = null;
  return {
    url,
    close() {
      closing ??= (async () => {
        await reconciler.stop();
        server.closeAllConnections();
        await new Promise<void>((done) => server.close(() => done()));
        await driver.close();
        await store.close();
        logger.info("stopped");
      })();
      return closing;
    },
  };
}

/** The names and addresses this machine and control plane answer to, which no custom_url may take. */
function ownHostNames(config: ControlPlaneConfig): string[] {
  const names = [config.host, hostname()];
  if (config.publicUrl) names.push(new URL(config.publicUrl).hostname);
  for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.push(address.address);
  return names;
}

/** How many keys are configured; a keys file that cannot be read stops the start. */
function loadKeyHashes(config: ControlPlaneConfig): number {
  try {
    return config.envApiKeys.length + readKeysFile(config.keysFile).length;
  } catch (err) {
    throw new StartupError(`The API keys file cannot be read: ${(err as Error).message}`);
  }
}

/** --dev only: a key generated once and kept (mode 0600) in the data dir, so secrets survive restarts. */
function devMasterKey(config: ControlPlaneConfig, log: Logger): Buffer {
  const file = join(config.dataDir, "dev-secrets-key");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("base64"), { mode: 0o600 });
  log.warn("secrets are encrypted with a key kept in the data dir (--dev); set GANTRY_SECRETS_KEY in production", { file });
  return parseMasterKey(readFileSync(file, "utf8"));
}
