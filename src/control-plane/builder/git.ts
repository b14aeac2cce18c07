// The git side of a build: resolve a ref to a commit with `git ls-remote`, and check a commit out
// into a directory. Any URL git accepts works (https, ssh, file://, a local path); prompts are off,
// so a repository that needs credentials fails instead of hanging.
import { runStep, type LineSink } from "./run-command.js";

const FULL_SHA = /^[0-9a-f]{40}$/;

export interface GitOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  onLine: LineSink;
}

const gitEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "echo" });

/** The commit `ref` points at (a branch, a tag, `refs/...`, or a full sha), or an error sentence. */
export async function resolveRef(repoUrl: string, ref: string, options: GitOptions): Promise<{ sha: string } | { error: string }> {
  if (FULL_SHA.test(ref)) return { sha: ref };
  const result = await runStep("git", ["ls-remote", "--", repoUrl], { cwd: process.cwd(), env: gitEnv(options.env), timeoutMs: options.timeoutMs, onLine: () => {} });
  if (result.code !== 0) return { error: result.error ?? `git ls-remote of ${redactUrl(repoUrl)} failed (exit code ${result.code}): the repository cannot be reached or read` };
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

/** A full clone checked out at `sha` (detached). Shallow fetches of a sha are not allowed by every server. */
export async function checkout(repoUrl: string, sha: string, dir: string, options: GitOptions): Promise<string | undefined> {
  const env = gitEnv(options.env);
  const clone = await runStep("git", ["clone", "--quiet", "--no-checkout", "--", repoUrl, dir], { cwd: process.cwd(), env, timeoutMs: options.timeoutMs, onLine: options.onLine });
  if (clone.code !== 0) return clone.error ?? `git clone of ${redactUrl(repoUrl)} failed (exit code ${clone.code})`;
  const co = await runStep("git", ["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", sha], { cwd: dir, env, timeoutMs: options.timeoutMs, onLine: options.onLine });
  if (co.code !== 0) return co.error ?? `git checkout of commit ${sha} failed (exit code ${co.code})`;
  return undefined;
}

/** Credentials in a URL never reach a log line. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, "//***@");
}
