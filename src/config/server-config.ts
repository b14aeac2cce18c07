// Environment variables and CLI flags -> one frozen ServerConfig. Every default sits next to its
// variable; nothing else in Gantry reads process.env.
import { type EncryptionConfig, loadEncryptionConfig } from "./encryption-config.js";
import { resolve, join, dirname } from "node:path";
import { z } from "zod";
import { loadObserveConfig, type ObserveConfig } from "./observe-config.js";
import { StartupError } from "../errors.js";
import type { LogLevel } from "../logging.js";
import { parseGraphDefaults, type GraphDefaults } from "./graph-defaults.js";
import { loadProjectConfig, type ProjectConfig } from "./langgraph-config.js";
import { databaseUrlFrom, redisUrlFrom } from "./service-urls.js";
import { loadWebhookConfig, type WebhookConfig } from "./webhook-config.js";

export interface DevFlags {
  config?: string;
  port?: string;
  host?: string;
  dataDir?: string;
  /**
   * Other processes use the same database (the control plane's revisions of one deployment during
   * a rollout): live leases at start-up stay with their owners, and runs unfinished at shutdown go
   * back to the queue instead of being interrupted.
   */
  sharedDatabase?: boolean;
  /** Serve the API but take no runs or crons until resumed (a rollout's new revision). */
  startDrained?: boolean;
}

export interface ServeFlags {
  config?: string;
  port?: string;
  host?: string;
  role?: string;
}

export type ServeRole = "all" | "api" | "worker";

export interface ServeConfig extends ServerConfig {
  databaseUrl: string;
  role: ServeRole;
  redis: { url: string; keyPrefix: string };
}

export interface ThreadTtlConfig {
  strategy: "delete" | "keep_latest";
  defaultTtl?: number;
  sweepIntervalMinutes: number;
  sweepLimit: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  /** Where the embedded SQLite file lives; `.gantry/` beside langgraph.json unless --data-dir says otherwise. */
  dataDir: string;
  sqliteFile: string;
  /**
   * Where `gantry dev` keeps the schemas it read from TypeScript types; `<dataDir>/schema-cache`
   * unless GANTRY_SCHEMA_CACHE_DIR names a directory several data dirs share.
   */
  schemaCacheDir: string;
  /** PostgreSQL instead of the embedded file, when set. */
  databaseUrl?: string;
  /** The variable databaseUrl came from (DATABASE_URL, or an official server's name), for messages. */
  databaseVariable?: string;
  /** `gantry serve`: PostgreSQL or nothing; `gantry dev` falls back to the embedded file. */
  databaseRequired?: boolean;
  postgresPoolMax: number;
  /** GANTRY_POSTGRES_PREPARED_STATEMENTS: false for poolers that cannot route named statements. */
  postgresPreparedStatements: boolean;
  project: ProjectConfig;
  log: { level: LogLevel; json: boolean };
  maxBodyBytes: number;
  corsAllowOrigins: string[];
  /** "" or a path such as "/api" that every route is served under. */
  mountPrefix: string;
  threadTtl: ThreadTtlConfig;
  queue: QueueConfig;
  /** How long a finished run's events stay readable for joins (RESUMABLE_STREAM_TTL_SECONDS). */
  streamRetentionMs: number;
  /** The protocol WebSocket's ping interval (GANTRY_WS_PING_MS). */
  websocketPingMs: number;
  /** Set by the control plane: every request must carry it (server/revision-token.ts). */
  revisionToken?: string;
  cron: CronConfig;
  webhooks: WebhookConfig;
  /** LANGGRAPH_CONFIG, by graph id: the config and context a graph's assistants get when created without them. */
  graphDefaults: Record<string, GraphDefaults>;
  /** LangSmith tracing and OpenTelemetry export. */
  observe: ObserveConfig;
  /** Encryption at rest: keys from the environment (encryption-config.ts). */
  encryption: EncryptionConfig;
}

export interface CronConfig {
  /** How often the scheduler looks for due crons. */
  pollMs: number;
  /** A file holding the instant schedules are read at, instead of the system clock (GANTRY_CRON_CLOCK_FILE; for tests). */
  clockFile?: string;
}

export interface QueueConfig {
  /** Runs one process executes at once (N_JOBS_PER_WORKER). */
  concurrency: number;
  /** A run longer than this ends with status timeout (BG_JOB_TIMEOUT_SECS). */
  timeoutMs: number;
  leaseMs: number;
  heartbeatMs: number;
  pollMs: number;
  sweepMs: number;
  maxAttempts: number;
  /** How long shutdown waits for running runs (BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS). */
  shutdownGraceMs: number;
  /** How long a run that did not ask for stream_resumable keeps its events once it has ended. */
  unresumableRetainMs: number;
}

const EnvSchema = z.object({
  LANGGRAPH_POSTGRES_POOL_MAX_SIZE: z.coerce.number().int().positive().default(20),
  GANTRY_POSTGRES_PREPARED_STATEMENTS: z.enum(["true", "false", "1", "0"]).default("true"),
  LOG_LEVEL: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(["debug", "info", "warn", "error"]))
    .default("info"),
  LOG_JSON: z.enum(["true", "false", "1", "0"]).optional(),
  // Same cap as the platform: 300 MB.
  HTTP_MAX_REQUEST_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(300 * 1024 * 1024),
  CORS_ALLOW_ORIGINS: z.string().default("*"),
  MOUNT_PREFIX: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  N_JOBS_PER_WORKER: z.coerce.number().int().positive().default(10),
  BG_JOB_TIMEOUT_SECS: z.coerce.number().positive().default(3600),
  BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: z.coerce.number().min(0).max(3600).default(180),
  BG_JOB_MAX_ATTEMPTS: z.coerce.number().int().positive().default(3),
  RESUMABLE_STREAM_TTL_SECONDS: z.coerce.number().positive().default(120),
  GANTRY_CRON_CLOCK_FILE: z.string().min(1).optional(),
  // For tests: the 10 s a run that did not ask for stream_resumable keeps its events (execute-run.ts).
  GANTRY_UNRESUMABLE_RETAIN_MS: z.coerce.number().int().positive().default(10_000),
  // Lease timings: a run's lease lapses GANTRY_RUN_LEASE_MS after its worker last renewed it.
  GANTRY_RUN_LEASE_MS: z.coerce.number().int().positive().default(30_000),
  GANTRY_RUN_HEARTBEAT_MS: z.coerce.number().int().positive().default(10_000),
  GANTRY_RUN_SWEEP_MS: z.coerce.number().int().positive().default(30_000),
  GANTRY_QUEUE_POLL_MS: z.coerce.number().int().positive().default(1_000),
  // Protocol WebSockets are pinged this often; a peer that misses one ping is dropped. Under the
  // 60 s idle timeout of common proxies and load balancers, so an idle socket is never cut by them.
  GANTRY_WS_PING_MS: z.coerce.number().int().positive().default(20_000),
  GANTRY_REVISION_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  GANTRY_SCHEMA_CACHE_DIR: z.string().min(1).optional(),
  REDIS_KEY_PREFIX: z.string().default("gantry:"),
});

const ROLES: readonly ServeRole[] = ["all", "api", "worker"];

/**
 * `gantry serve`: the production server. PostgreSQL and Redis are both required; a missing one is
 * named rather than silently replaced by the embedded default (which is `gantry dev`).
 */
export function loadServeConfig(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env, isTty = Boolean(process.stdout.isTTY)): ServeConfig {
  const role = (flags.role ?? "all") as ServeRole;
  if (!ROLES.includes(role)) throw new StartupError(`--role must be one of ${ROLES.join(", ")}, got '${flags.role}'`);
  const database = databaseUrlFrom(env);
  const redis = redisUrlFrom(env);
  const missing = [
    ...(database ? [] : ["DATABASE_URL (PostgreSQL; or DATABASE_URI, POSTGRES_URI_CUSTOM)"]),
    ...(redis ? [] : ["REDIS_URL (Redis; or REDIS_URI, REDIS_URI_CUSTOM)"]),
  ];
  if (!database || !redis) {
    throw new StartupError(
      `gantry serve needs ${missing.join(" and ")}; set ${missing.length > 1 ? "them" : "it"}, or run \`gantry dev\` for the embedded single-process server`,
    );
  }
  const base = loadDevConfig({ ...flags, port: flags.port ?? env.PORT ?? "8123", host: flags.host ?? "0.0.0.0" }, env, isTty);
  return Object.freeze({
    ...base,
    databaseUrl: database.url,
    databaseVariable: database.variable,
    databaseRequired: true,
    role,
    redis: { url: redis.url, keyPrefix: env.REDIS_KEY_PREFIX ?? "gantry:" },
  });
}

export function loadDevConfig(flags: DevFlags, env: NodeJS.ProcessEnv = process.env, isTty = Boolean(process.stdout.isTTY)): ServerConfig {
  const parsedEnv = EnvSchema.safeParse(env);
  if (!parsedEnv.success) {
    const issue = parsedEnv.error.issues[0]!;
    throw new StartupError(`Environment variable ${issue.path.join(".")} is invalid: ${issue.message}`);
  }
  const e = parsedEnv.data;
  const project = loadProject(flags.config ?? "langgraph.json", env);
  const port = flags.port !== undefined ? parsePort(flags.port) : (e.PORT ?? 2024);
  const dataDir = resolve(flags.dataDir ?? join(dirname(project.configPath), ".gantry"));
  const ttl = project.raw.checkpointer?.ttl;
  const mountPrefix = project.http.mount_prefix ?? e.MOUNT_PREFIX ?? "";
  if (mountPrefix && !/^\/[A-Za-z0-9._~\-/]*[^/]$/.test(mountPrefix)) {
    throw new StartupError(`MOUNT_PREFIX '${mountPrefix}' must start with '/' and not end with '/'`);
  }
  return Object.freeze({
    host: flags.host ?? "127.0.0.1",
    port,
    dataDir,
    sqliteFile: join(dataDir, "gantry.sqlite"),
    schemaCacheDir: resolve(e.GANTRY_SCHEMA_CACHE_DIR ?? join(dataDir, "schema-cache")),
    ...(() => {
      const database = databaseUrlFrom(env);
      return database ? { databaseUrl: database.url, databaseVariable: database.variable } : {};
    })(),
    postgresPoolMax: e.LANGGRAPH_POSTGRES_POOL_MAX_SIZE,
    postgresPreparedStatements: e.GANTRY_POSTGRES_PREPARED_STATEMENTS === "true" || e.GANTRY_POSTGRES_PREPARED_STATEMENTS === "1",
    project,
    log: { level: e.LOG_LEVEL, json: e.LOG_JSON !== undefined ? e.LOG_JSON === "true" || e.LOG_JSON === "1" : !isTty },
    maxBodyBytes: e.HTTP_MAX_REQUEST_BODY_BYTES,
    corsAllowOrigins:
      project.http.cors?.allow_origins ??
      e.CORS_ALLOW_ORIGINS.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    mountPrefix,
    threadTtl: {
      strategy: ttl?.strategy ?? "delete",
      ...(ttl?.default_ttl !== undefined ? { defaultTtl: ttl.default_ttl } : {}),
      sweepIntervalMinutes: ttl?.sweep_interval_minutes ?? 5,
      sweepLimit: ttl?.sweep_limit ?? 1000,
    },
    queue: {
      concurrency: e.N_JOBS_PER_WORKER,
      timeoutMs: e.BG_JOB_TIMEOUT_SECS * 1000,
      leaseMs: e.GANTRY_RUN_LEASE_MS,
      // At least two renewals per lease, so one slow heartbeat never lets a live run's lease lapse.
      heartbeatMs: Math.min(e.GANTRY_RUN_HEARTBEAT_MS, Math.floor(e.GANTRY_RUN_LEASE_MS / 2)),
      pollMs: e.GANTRY_QUEUE_POLL_MS,
      sweepMs: e.GANTRY_RUN_SWEEP_MS,
      maxAttempts: e.BG_JOB_MAX_ATTEMPTS,
      shutdownGraceMs: e.BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS * 1000,
      unresumableRetainMs: e.GANTRY_UNRESUMABLE_RETAIN_MS,
    },
    streamRetentionMs: e.RESUMABLE_STREAM_TTL_SECONDS * 1000,
    websocketPingMs: e.GANTRY_WS_PING_MS,
    ...(e.GANTRY_REVISION_TOKEN !== undefined ? { revisionToken: e.GANTRY_REVISION_TOKEN } : {}),
    cron: {
      // Schedules have minute resolution: an occurrence fires within a second of its time.
      pollMs: 1_000,
      ...(e.GANTRY_CRON_CLOCK_FILE !== undefined ? { clockFile: resolve(e.GANTRY_CRON_CLOCK_FILE) } : {}),
    },
    webhooks: loadWebhookConfig(project, env),
    // As every variable langgraph.json's `env` sets: the process environment wins (applyProjectEnv).
    graphDefaults: parseGraphDefaults(env.LANGGRAPH_CONFIG ?? project.env.LANGGRAPH_CONFIG),
    observe: loadObserveConfig(project, env),
    encryption: loadEncryptionConfig(env),
  });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new StartupError(`--port must be a whole number from 0 to 65535, got '${value}'`);
  }
  return port;
}

/**
 * Set by the control plane for a revision of a deployment that has secrets: the env file
 * langgraph.json names may be missing, the secrets stand in for it (langgraph-config.ts).
 */
export const ENV_FILE_OPTIONAL_VARIABLE = "GANTRY_ENV_FILE_OPTIONAL";

/** langgraph.json, read as the environment asks (a control-plane revision's own rules). */
export function loadProject(configPath: string, env: NodeJS.ProcessEnv = process.env): ProjectConfig {
  return loadProjectConfig(configPath, { envFileOptional: env[ENV_FILE_OPTIONAL_VARIABLE] === "1" });
}

/** langgraph.json `env` reaches the graphs through process.env, without overriding what is already set. */
export function applyProjectEnv(project: ProjectConfig, env: NodeJS.ProcessEnv = process.env): void {
  for (const [key, value] of Object.entries(project.env)) {
    if (env[key] === undefined) env[key] = value;
  }
}
