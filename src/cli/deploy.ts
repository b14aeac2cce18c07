// `gantry deploy`: the CI/CD client. Creates the deployment (or updates it, which makes a new
// revision), follows the revision with one progress line per status, prints the deployment's URL
// on stdout and exits 0 on DEPLOYED; on a ...FAILED status it prints the tail of the log and exits 1.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadDeployOptions, type DeployOptions } from "../config/deploy-config.js";
import { gitProtocolOf } from "../control-plane/git-url.js";
import { StartupError } from "../errors.js";

export const DEPLOY_USAGE = `Usage: gantry deploy --name <name> [--repo-url <git url>] [options]

Creates the deployment <name> (or updates it: a new revision at the ref's current commit), follows
its revision to DEPLOYED and prints the deployment URL on stdout. Progress goes to stderr.

Options:
  --url <url>            control plane (default: $GANTRY_CONTROL_PLANE_URL or http://127.0.0.1:8124)
  --api-key <key>        API key (default: $GANTRY_API_KEY)
  --tenant-id <uuid>     X-Tenant-Id (default: $GANTRY_TENANT_ID)
  --repo-url <url>       git repository; required to create (https, ssh, file:// or a path)
  --ref <ref>            branch, tag (refs/tags/...) or commit (default: main)
  --config <path>        langgraph.json inside the repository (default: langgraph.json)
  --secret NAME=VALUE    a secret for the deployment's environment; repeatable. NAME alone reads
                         the value from this environment. Given secrets replace the stored set.
  --build-on-push        rebuild whenever the ref moves
  --custom-url <url>     the deployment's own address (an http(s) origin whose Host the control
                         plane routes to it); printed instead of the router URL. "" clears it
  --install-command <c>  how the build installs dependencies (default: npm ci when the repository
                         has a package-lock.json); e.g. "npm ci --omit=dev" when Gantry itself is
                         a dev dependency of the project. "" goes back to the default
  --build-command <c>    run after the install, in the directory of the config. "" clears it
  --poll-interval <s>    seconds between status checks (default: 1)
  --timeout <s>          give up after this many seconds (default: 900)

Exit codes: 0 deployed, 1 failed (the log tail is printed), 2 bad usage, 3 timed out.`;

const FAILED = new Set(["CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED", "UNKNOWN"]);
const LOG_TAIL = 30;

class ApiError extends Error {}

export async function runDeployCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      url: { type: "string" },
      "api-key": { type: "string" },
      "tenant-id": { type: "string" },
      name: { type: "string" },
      "repo-url": { type: "string" },
      ref: { type: "string" },
      config: { type: "string" },
      secret: { type: "string", multiple: true },
      "build-on-push": { type: "boolean" },
      "custom-url": { type: "string" },
      "install-command": { type: "string" },
      "build-command": { type: "string" },
      "poll-interval": { type: "string" },
      timeout: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(DEPLOY_USAGE);
    return 0;
  }
  let options: DeployOptions;
  try {
    options = loadDeployOptions(values);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    console.error(`gantry deploy: ${err.message}\n\n${DEPLOY_USAGE}`);
    return 2;
  }
  try {
    return await deploy(options);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    console.error(`gantry deploy: ${err.message}`);
    return 1;
  }
}

async function deploy(options: DeployOptions): Promise<number> {
  const call = client(options);
  const started = Date.now();
  const found = await call<{ resources: { id: string; name: string }[] }>("GET", `/v2/deployments?name_contains=${encodeURIComponent(options.name)}&limit=100`);
  const existing = found.resources.find((d) => d.name === options.name);
  let deployment: { id: string; latest_revision_id: string };
  if (existing) {
    deployment = await call("PATCH", `/v2/deployments/${existing.id}`, {
      source_config: sourceConfigChanges(options),
      source_revision_config: { repo_ref: options.ref, langgraph_config_path: options.configPath },
      ...(options.secrets ? { secrets: options.secrets } : {}),
    });
    progress(`Updating deployment ${options.name} (${deployment.id})`);
  } else {
    if (!options.repoUrl) {
      console.error(`gantry deploy: there is no deployment named '${options.name}' yet; pass --repo-url to create it.`);
      return 2;
    }
    deployment = await call("POST", "/v2/deployments", {
      name: options.name,
      source: "github",
      source_config: {
        repo_url: absoluteIfLocal(options.repoUrl),
        build_on_push: options.buildOnPush ?? false,
        ...(options.customUrl ? { custom_url: options.customUrl } : {}),
        ...(options.installCommand ? { install_command: options.installCommand } : {}),
        ...(options.buildCommand ? { build_command: options.buildCommand } : {}),
      },
      source_revision_config: { repo_ref: options.ref, langgraph_config_path: options.configPath },
      secrets: options.secrets ?? [],
    });
    progress(`Created deployment ${options.name} (${deployment.id})`);
  }
  const revisionId = deployment.latest_revision_id;
  progress(`Revision ${revisionId}`);

  let last = "";
  const deadline = started + options.timeoutMs;
  for (;;) {
    const revision = await call<{ status: string; source_revision_config?: { repo_commit_sha?: string | null } }>(
      "GET",
      `/v2/deployments/${deployment.id}/revisions/${revisionId}`,
    );
    const status = revision.status;
    if (status !== last) {
      const sha = revision.source_revision_config?.repo_commit_sha;
      progress(`  ${elapsed(started)}  ${status}${sha && status === "BUILDING" ? ` (commit ${sha.slice(0, 12)})` : ""}`);
      last = status;
    }
    if (status === "DEPLOYED") {
      const final = await call<{ source_config: { custom_url: string } }>("GET", `/v2/deployments/${deployment.id}`);
      console.log(final.source_config.custom_url);
      return 0;
    }
    if (FAILED.has(status)) {
      await printLogTail(call, deployment.id, revisionId, status === "DEPLOY_FAILED" ? "deploy" : "build");
      return 1;
    }
    if (Date.now() >= deadline) {
      progress(`Timed out after ${Math.round(options.timeoutMs / 1000)} s with the revision in ${status}.`);
      return 3;
    }
    await new Promise((done) => setTimeout(done, options.pollMs));
  }
}

async function printLogTail(call: Call, deploymentId: string, revisionId: string, type: "build" | "deploy"): Promise<void> {
  const page = await call<{ logs: { level: string; message: string }[] }>(
    "GET",
    `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=${type}&order=desc&limit=${LOG_TAIL}`,
  );
  const lines = page.logs.reverse();
  progress(`Last ${lines.length} lines of the ${type} log:`);
  for (const line of lines) progress(`  ${line.level.padEnd(7)} ${line.message}`);
}

/** The answer's JSON as the caller expects it: the control plane's API is ours, its shapes known. */
type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** Transport errors are retried three times, as the official CLI does; an HTTP error is not. */
function client(options: DeployOptions): Call {
  return async (method, path, body) => {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      let response: Response;
      try {
        response = await fetch(options.url + path, {
          method,
          headers: {
            ...(options.apiKey ? { "X-Api-Key": options.apiKey } : {}),
            ...(options.tenantId ? { "X-Tenant-Id": options.tenantId } : {}),
            ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (err) {
        lastError = err;
        await new Promise((done) => setTimeout(done, 500 * (attempt + 1)));
        continue;
      }
      const text = await response.text();
      if (!response.ok) throw new ApiError(`${method} ${path} answered ${response.status}: ${text}`);
      return text ? JSON.parse(text) : null;
    }
    throw new ApiError(`cannot reach the control plane at ${options.url}: ${(lastError as Error).message}`);
  };
}

function progress(line: string): void {
  process.stderr.write(line + "\n");
}

const elapsed = (since: number) => `${((Date.now() - since) / 1000).toFixed(1).padStart(6)}s`;

/** What an update changes in source_config: only the flags given; null leaves it as it is. */
function sourceConfigChanges(options: DeployOptions): Record<string, unknown> | null {
  const changes: Record<string, unknown> = {};
  if (options.buildOnPush !== undefined) changes.build_on_push = options.buildOnPush;
  if (options.customUrl !== undefined) changes.custom_url = options.customUrl;
  if (options.installCommand !== undefined) changes.install_command = options.installCommand || null;
  if (options.buildCommand !== undefined) changes.build_command = options.buildCommand || null;
  return Object.keys(changes).length > 0 ? changes : null;
}

/**
 * A checkout named relative to here (`.`, `../agent`) is sent as its absolute path: the control
 * plane (on this machine, with the directory under GANTRY_ALLOWED_REPO_ROOTS) has another cwd.
 */
function absoluteIfLocal(repoUrl: string): string {
  return gitProtocolOf(repoUrl) === undefined && existsSync(repoUrl) ? resolve(repoUrl) : repoUrl;
}
