// Environment variables and flags of `gantry control-plane` -> one frozen ControlPlaneConfig.
// The master key and API keys are read here once; nothing else in the control plane reads process.env.
import { dirname, isAbsolute, resolve, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { StartupError } from "../errors.js";
import type { LogLevel } from "../logging.js";

export interface ControlPlaneFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  /** Explicit dev mode: a master key kept in the data dir, and no API key needed when none is configured. */
  dev?: boolean;
}

export interface ControlPlaneConfig {
  host: string;
  port: number;
  dataDir: string;
  sqliteFile: string;
  /** PostgreSQL for the control plane's own state (schema gantry_control_plane), instead of the SQLite file. */
  databaseUrl?: string;
  /** The PostgreSQL schema holding the control plane's tables. */
  databaseSchema: string;
  /** With databaseUrl: revisions run as `gantry serve` on Redis, each deployment under its own key prefix. */
  redisUrl?: string;
  /** Where hashes of keys made by `gantry control-plane keys create` are kept. */
  keysFile: string;
  /** Plain keys from GANTRY_API_KEYS; hashed at start-up and then dropped. */
  envApiKeys: string[];
  /** 32-byte AES-256-GCM key for secrets, or undefined in dev mode (a key file in the data dir is used). */
  masterKey?: Buffer;
  dev: boolean;
  /** The address users reach this control plane at; deployment URLs are built from it. */
  publicUrl?: string;
  log: { level: LogLevel; json: boolean };
  reconciler: ReconcilerConfig;
  /** What git starts from: this environment minus the control plane's own settings and keys. */
  childEnv: NodeJS.ProcessEnv;
  /** What a deployment's builds and servers start from: only DEPLOYMENT_VARIABLES of this environment. */
  deploymentEnv: NodeJS.ProcessEnv;
  /** "off" only when the operator opted out: deployments then run unconfined. */
  sandbox: "bubblewrap" | "off";
  /** Directories local repo_urls (paths, file://) may lie under; none when GANTRY_ALLOWED_REPO_ROOTS is unset. */
  allowedRepoRoots: string[];
  /** Hosts repo_url may name though they are loopback, link-local or otherwise not routable (GANTRY_ALLOWED_REPO_HOSTS). */
  allowedRepoHosts: string[];
  /** Gantry's own install: never a repository to build. */
  installDir: string;
}

export interface ReconcilerConfig {
  /** How often the reconciler re-plans every deployment even when nothing woke it. */
  tickMs: number;
  /** How often `build_on_push` deployments ask the remote for their ref's commit. */
  pushPollMs: number;
  /** A new revision that does not answer GET /ok within this time is DEPLOY_FAILED. */
  healthTimeoutMs: number;
  /** How long a replaced revision may finish its in-flight requests before it is stopped. */
  drainMs: number;
  /** Cached builds kept per deployment; the live revision's and the previous one's are always kept. */
  buildsPerDeployment: number;
  /** Deadline of each build step (clone, install, build, graph import). */
  buildStepTimeoutMs: number;
  /** A git command with no output this long (over http(s): under 1 byte/s) is given up on. */
  gitIdleTimeoutMs: number;
}

const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  REDIS_URL: z.string().min(1).optional(),
  GANTRY_CONTROL_PLANE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "must be lower-case letters, digits and underscores")
    .default("gantry_control_plane"),
  GANTRY_SECRETS_KEY: z.string().min(1).optional(),
  GANTRY_API_KEYS: z.string().optional(),
  GANTRY_API_KEYS_FILE: z.string().min(1).optional(),
  GANTRY_CONTROL_PLANE_URL: z.string().url().optional(),
  GANTRY_SANDBOX: z.enum(["bubblewrap", "off"], { message: "must be 'bubblewrap' or 'off'" }).default("bubblewrap"),
  GANTRY_ALLOWED_REPO_ROOTS: z
    .string()
    .optional()
    .refine((text) => list(text).every((dir) => isAbsolute(dir)), "must be absolute directories, separated by commas"),
  GANTRY_ALLOWED_REPO_HOSTS: z.string().optional(),
  GANTRY_RECONCILE_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
  // A local control plane polls a git remote cheaply; 30 s keeps a hosted remote well under any rate limit.
  GANTRY_BUILD_ON_PUSH_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  GANTRY_HEALTH_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  GANTRY_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  // The live build, the one a rollback returns to, and one more: a clone with node_modules is large.
  GANTRY_BUILDS_PER_DEPLOYMENT: z.coerce.number().int().min(2, "must be at least 2 (the live build and the previous one)").default(3),
  // An `npm ci` of a large project on a slow mirror takes minutes; fifteen leaves room without hiding a hang for hours.
  GANTRY_BUILD_STEP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  // git with --progress reports at least once a second while a transfer moves; a minute of silence is a dead remote.
  GANTRY_GIT_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000, "must be at least 1000").default(60_000),
  LOG_LEVEL: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(["debug", "info", "warn", "error"]))
    .default("info"),
  LOG_JSON: z.enum(["true", "false", "1", "0"]).optional(),
});

export function loadControlPlaneConfig(
  flags: ControlPlaneFlags,
  env: NodeJS.ProcessEnv = process.env,
  isTty = Boolean(process.stdout.isTTY),
): ControlPlaneConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StartupError(`Environment variable ${issue.path.join(".")} is invalid: ${issue.message}`);
  }
  const e = parsed.data;
  const dev = flags.dev ?? false;
  const masterKey = e.GANTRY_SECRETS_KEY !== undefined ? parseMasterKey(e.GANTRY_SECRETS_KEY) : undefined;
  if (!masterKey && !dev) {
    throw new StartupError(
      "GANTRY_SECRETS_KEY is not set: deployment secrets are encrypted with it. Set it to 32 random bytes in base64 " +
        "(openssl rand -base64 32), or pass --dev to keep a generated key in the data dir (not for production).",
    );
  }
  const dataDir = resolve(flags.dataDir ?? ".gantry-control-plane");
  return Object.freeze({
    host: flags.host ?? "127.0.0.1",
    port: flags.port !== undefined ? parsePort(flags.port) : 8124,
    dataDir,
    sqliteFile: join(dataDir, "control-plane.sqlite"),
    ...(e.DATABASE_URL ? { databaseUrl: e.DATABASE_URL } : {}),
    databaseSchema: e.GANTRY_CONTROL_PLANE_SCHEMA,
    ...(e.REDIS_URL ? { redisUrl: e.REDIS_URL } : {}),
    keysFile: resolve(e.GANTRY_API_KEYS_FILE ?? join(dataDir, "api-keys")),
    envApiKeys: (e.GANTRY_API_KEYS ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean),
    ...(masterKey ? { masterKey } : {}),
    dev,
    ...(e.GANTRY_CONTROL_PLANE_URL ? { publicUrl: e.GANTRY_CONTROL_PLANE_URL.replace(/\/+$/, "") } : {}),
    log: { level: e.LOG_LEVEL, json: e.LOG_JSON !== undefined ? e.LOG_JSON === "true" || e.LOG_JSON === "1" : !isTty },
    reconciler: {
      tickMs: e.GANTRY_RECONCILE_INTERVAL_MS,
      pushPollMs: e.GANTRY_BUILD_ON_PUSH_INTERVAL_MS,
      healthTimeoutMs: e.GANTRY_HEALTH_TIMEOUT_MS,
      drainMs: e.GANTRY_DRAIN_TIMEOUT_MS,
      buildsPerDeployment: e.GANTRY_BUILDS_PER_DEPLOYMENT,
      buildStepTimeoutMs: e.GANTRY_BUILD_STEP_TIMEOUT_MS,
      gitIdleTimeoutMs: e.GANTRY_GIT_IDLE_TIMEOUT_MS,
    },
    childEnv: childEnvOf(env),
    deploymentEnv: deploymentEnvOf(env),
    sandbox: e.GANTRY_SANDBOX,
    allowedRepoRoots: list(e.GANTRY_ALLOWED_REPO_ROOTS).map((dir) => resolve(dir)),
    allowedRepoHosts: list(e.GANTRY_ALLOWED_REPO_HOSTS).map((host) => host.toLowerCase().replace(/^\[|\]$/g, "")),
    installDir: INSTALL_DIR,
  });
}

/** The control plane's own settings (keys among them); a deployment can neither inherit nor set them. */
export const CONTROL_PLANE_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape).filter((k) => k.startsWith("GANTRY_"));

/** Variables of the control plane itself that a deployment must never see or inherit. */
const NOT_FOR_CHILDREN = [
  "DATABASE_URL",
  "DATABASE_URI",
  "POSTGRES_URI",
  "REDIS_URL",
  "REDIS_URI",
  "REDIS_KEY_PREFIX",
  "PORT",
  "MOUNT_PREFIX",
  "LOG_JSON",
  "LOG_LEVEL",
];

/** Gantry's package root (this file is <root>/src/config/). */
const INSTALL_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * What a deployment inherits of the control plane's environment: where programs are, locale and
 * time zone, proxies and CA bundles. Anything else (a cloud's credentials, a token in the
 * operator's shell) stays with the control plane; a deployment gets its own as secrets.
 */
export const DEPLOYMENT_VARIABLES: readonly string[] = [
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

function deploymentEnvOf(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const key of DEPLOYMENT_VARIABLES) if (env[key] !== undefined) out[key] = env[key];
  // The node running the control plane first: npm and the build's own scripts find the same one.
  out.PATH = [dirname(process.execPath), out.PATH].filter(Boolean).join(":");
  return Object.freeze(out);
}

function childEnvOf(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (CONTROL_PLANE_VARIABLES.includes(key) || NOT_FOR_CHILDREN.includes(key)) continue;
    out[key] = value;
  }
  return Object.freeze(out);
}

/** 32 bytes, given as base64 (44 characters) or hex (64 characters). */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) {
    throw new StartupError(`GANTRY_SECRETS_KEY must be 32 bytes in base64 or hex (openssl rand -base64 32); it decodes to ${key.length} bytes`);
  }
  return key;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new StartupError(`--port must be a whole number from 0 to 65535, got '${value}'`);
  }
  return port;
}
