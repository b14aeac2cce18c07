// `gantry deploy` flags and environment -> one frozen DeployOptions. Defaults sit here with why.
import { StartupError } from "../errors.js";

export interface DeployFlags {
  url?: string;
  "api-key"?: string;
  "tenant-id"?: string;
  name?: string;
  "repo-url"?: string;
  ref?: string;
  config?: string;
  secret?: string[];
  "build-on-push"?: boolean;
  "custom-url"?: string;
  "install-command"?: string;
  "build-command"?: string;
  "poll-interval"?: string;
  timeout?: string;
}

export interface DeployOptions {
  url: string;
  apiKey?: string;
  tenantId?: string;
  name: string;
  repoUrl?: string;
  ref: string;
  configPath: string;
  /** Undefined when no --secret was given: an update then keeps the deployment's secrets. */
  secrets?: { name: string; value: string }[];
  buildOnPush?: boolean;
  /** The deployment's own address (source_config.custom_url); "" clears it. */
  customUrl?: string;
  /** source_config.install_command and build_command; "" clears one (the default: `npm ci` when there is a lock file). */
  installCommand?: string;
  buildCommand?: string;
  pollMs: number;
  timeoutMs: number;
}

// The docs' sample client polls every 60 s for up to 1800 s: sized for cloud builds of container
// images. A local control plane reports each status within a second and builds a cached commit in
// seconds, so we poll every second (one cheap GET) and give up after 15 minutes, which still covers
// a cold `npm ci` of a large project.
const DEFAULT_POLL_SECONDS = 1;
const DEFAULT_TIMEOUT_SECONDS = 900;

export function loadDeployOptions(flags: DeployFlags, env: NodeJS.ProcessEnv = process.env): DeployOptions {
  if (!flags.name) throw new StartupError("--name is required: the deployment to create or update.");
  const secrets = flags.secret?.map((spec) => {
    const eq = spec.indexOf("=");
    // NAME alone takes the value from this environment, so it never appears in a process listing.
    const name = eq === -1 ? spec : spec.slice(0, eq);
    const value = eq === -1 ? env[name] : spec.slice(eq + 1);
    if (value === undefined) throw new StartupError(`--secret ${name}: no '=' value given and ${name} is not set in the environment.`);
    return { name, value };
  });
  const apiKey = flags["api-key"] ?? env.GANTRY_API_KEY;
  const tenantId = flags["tenant-id"] ?? env.GANTRY_TENANT_ID;
  return Object.freeze({
    url: (flags.url ?? env.GANTRY_CONTROL_PLANE_URL ?? "http://127.0.0.1:8124").replace(/\/+$/, ""),
    ...(apiKey ? { apiKey } : {}),
    ...(tenantId ? { tenantId } : {}),
    name: flags.name,
    ...(flags["repo-url"] ? { repoUrl: flags["repo-url"] } : {}),
    ref: flags.ref ?? "main",
    configPath: flags.config ?? "langgraph.json",
    ...(secrets ? { secrets } : {}),
    ...(flags["build-on-push"] !== undefined ? { buildOnPush: flags["build-on-push"] } : {}),
    ...(flags["custom-url"] !== undefined ? { customUrl: flags["custom-url"] } : {}),
    ...(flags["install-command"] !== undefined ? { installCommand: flags["install-command"] } : {}),
    ...(flags["build-command"] !== undefined ? { buildCommand: flags["build-command"] } : {}),
    pollMs: seconds("--poll-interval", flags["poll-interval"], DEFAULT_POLL_SECONDS) * 1000,
    timeoutMs: seconds("--timeout", flags.timeout, DEFAULT_TIMEOUT_SECONDS) * 1000,
  });
}

function seconds(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new StartupError(`${flag} must be a positive number of seconds, got '${value}'`);
  return n;
}
