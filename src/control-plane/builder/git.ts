// The git side of a build: resolve a ref to a commit with `git ls-remote`, and check a commit out
// into a directory. git runs in an environment Gantry chooses, never the deployment's: secrets
// reach only the install and build commands and the server, so no secret (GIT_ALLOW_PROTOCOL,
// GIT_SSH_COMMAND, GIT_CONFIG_*) can change what git does with repo_url. Only the protocol
// repo_url names is allowed, prompts are off, no system or global gitconfig is read, and a remote
// that stops sending is given up on after the idle limit.
import { gitProtocolOf } from "../git-url.js";
import { runStep, type LineSink } from "./run-command.js";

const FULL_SHA = /^[0-9a-f]{40}$/;

/** What git may take from the control plane's own environment: where programs are, ssh keys and agent, proxies. */
const INHERITED = ["PATH", "HOME", "SSH_AUTH_SOCK", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "ALL_PROXY", "all_proxy"];

export interface GitOptions {
  /** The control plane's environment (childEnv); the deployment's secrets are never in it. */
  baseEnv: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** No output (and, over http(s), less than 1 byte/s) for this long ends the command. */
  idleMs: number;
  signal?: AbortSignal;
  onLine: LineSink;
  /** Asked just before git connects (repo-policy.ts): refuses the remote, or adds git settings pinning it. */
  checkRemote: (repoUrl: string) => Promise<{ error: string } | { env: Record<string, string> }>;
}

/** The whole environment of a git command that reaches repoUrl. */
export function gitEnv(repoUrl: string, options: Pick<GitOptions, "baseEnv" | "idleMs">): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED) if (options.baseEnv[name] !== undefined) env[name] = options.baseEnv[name];
  const protocol = gitProtocolOf(repoUrl);
  return {
    ...env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "echo",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    // An http(s) remote also needs its own protocol for redirects within it; no other protocol is allowed.
    GIT_ALLOW_PROTOCOL: protocol === "http" || protocol === "https" ? "http:https" : (protocol ?? "none"),
    GIT_HTTP_LOW_SPEED_LIMIT: "1",
    GIT_HTTP_LOW_SPEED_TIME: String(Math.max(1, Math.ceil(options.idleMs / 1000))),
  };
}

const stepOptions = (repoUrl: string, options: GitOptions, cwd: string, onLine: LineSink, pinned: Record<string, string>) => ({
  cwd,
  env: { ...gitEnv(repoUrl, options), ...pinned },
  timeoutMs: options.timeoutMs,
  idleMs: options.idleMs,
  ...(options.signal ? { signal: options.signal } : {}),
  onLine,
});

/** The commit `ref` points at (a branch, a tag, `refs/...`, or a full sha), or an error sentence. */
export async function resolveRef(repoUrl: string, ref: string, options: GitOptions): Promise<{ sha: string } | { error: string }> {
  if (FULL_SHA.test(ref)) return { sha: ref };
  const remote = await options.checkRemote(repoUrl);
  if ("error" in remote) return { error: `The repository is refused: ${remote.error}` };
  const result = await runStep(
    "git",
    ["ls-remote", "--", repoUrl],
    stepOptions(repoUrl, options, process.cwd(), () => {}, remote.env),
  );
  if (result.code !== 0)
    return { error: result.error ?? `git ls-remote of ${redactUrl(repoUrl)} failed (exit code ${result.code}): the repository cannot be reached or read` };
  const refs = new Map<string, string>();
  for (const line of result.stdout.split("\n")) {
    const [sha, name] = line.trim().split(/\s+/);
    if (sha && name) refs.set(name, sha);
  }
  for (const candidate of [`${ref}^{}`, ref, `refs/heads/${ref}`, `refs/tags/${ref}^{}`, `refs/tags/${ref}`]) {
    const sha = refs.get(candidate);
    if (sha) return { sha };
  }
  return { error: `Ref '${ref}' does not exist in ${redactUrl(repoUrl)}` };
}

/**
 * A full clone checked out at `sha` (detached). Shallow fetches of a sha are not allowed by every
 * server. --progress keeps git talking on a slow but live transfer, which the idle limit needs.
 */
export async function checkout(repoUrl: string, sha: string, dir: string, options: GitOptions): Promise<string | undefined> {
  const remote = await options.checkRemote(repoUrl);
  if ("error" in remote) return `The repository is refused: ${remote.error}`;
  const clone = await runStep(
    "git",
    ["clone", "--progress", "--no-checkout", "--", repoUrl, dir],
    stepOptions(repoUrl, options, process.cwd(), options.onLine, remote.env),
  );
  if (clone.code !== 0) return clone.error ?? `git clone of ${redactUrl(repoUrl)} failed (exit code ${clone.code})`;
  const co = await runStep(
    "git",
    ["-c", "advice.detachedHead=false", "checkout", "--progress", "--detach", sha],
    stepOptions(repoUrl, options, dir, options.onLine, {}),
  );
  if (co.code !== 0) return co.error ?? `git checkout of commit ${sha} failed (exit code ${co.code})`;
  return undefined;
}

/** Credentials in a URL never reach a log line. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, "//***@");
}
