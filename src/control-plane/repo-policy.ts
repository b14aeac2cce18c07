// Which repositories a deployment may be built from. A local repository (a path or a file:// URL)
// only under GANTRY_ALLOWED_REPO_ROOTS, and never /proc, the control plane's data dir or Gantry's
// own install (`file:///proc/self/cwd` is the control plane's checkout). A remote host never on
// loopback, link-local or a metadata address unless GANTRY_ALLOWED_REPO_HOSTS names it. Checked
// when the deployment is created, and again each time git is about to connect: a name may resolve
// elsewhere by then, so an http(s) remote is pinned to the addresses just checked.
import { realpathSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gitProtocolOf } from "./git-url.js";
import { bareHost, forbiddenRepoHost } from "./host-ranges.js";

export interface RepoPolicy {
  /** Directories local repositories may lie under; empty: none is accepted. */
  allowedRoots: readonly string[];
  /** Never a repository, nor inside one: the control plane's data dir, Gantry's install. */
  forbiddenRoots: readonly string[];
  /** Hosts accepted though loopback, link-local or metadata. */
  allowedHosts: readonly string[];
}

export type Lookup = (host: string) => Promise<string[]>;

const lookupAll: Lookup = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** Why repo_url is refused, or undefined. A name that does not resolve now is left to the build. */
export async function checkRepoUrl(repoUrl: string, policy: RepoPolicy, resolveHost: Lookup = lookupAll): Promise<string | undefined> {
  const remote = await checkRemote(repoUrl, policy, resolveHost);
  return "error" in remote ? remote.error : undefined;
}

/**
 * Just before git connects: the same checks, and for http(s) the git settings (as environment)
 * that make it use the addresses checked and follow no redirect elsewhere.
 */
export async function checkRemote(
  repoUrl: string,
  policy: RepoPolicy,
  resolveHost: Lookup = lookupAll,
): Promise<{ error: string } | { env: Record<string, string> }> {
  const protocol = gitProtocolOf(repoUrl);
  if (protocol === "file") {
    const error = checkLocal(repoUrl, policy);
    return error ? { error } : { env: {} };
  }
  const target = remoteOf(repoUrl);
  if (!target) return { error: "names no host git can connect to" };
  if (policy.allowedHosts.includes(bareHost(target.host))) return { env: {} };
  const literal = forbiddenRepoHost(target.host);
  if (literal) return { error: `${literal}; name it in GANTRY_ALLOWED_REPO_HOSTS to allow it` };
  const name = bareHost(target.host);
  let addresses: string[] = [];
  if (isIP(name) === 0) {
    try {
      addresses = await resolveHost(name);
    } catch {
      return { env: {} };
    }
    for (const address of addresses) {
      const problem = forbiddenRepoHost(address);
      if (problem) return { error: `${name} resolves to ${address}: ${problem}; name it in GANTRY_ALLOWED_REPO_HOSTS to allow it` };
    }
  }
  if ((protocol !== "http" && protocol !== "https") || addresses.length === 0) return { env: {} };
  const port = target.port || (protocol === "https" ? "443" : "80");
  const pinned = addresses.map((a) => (isIP(a) === 6 ? `[${a}]` : a)).join(",");
  return {
    env: {
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "http.curloptResolve",
      GIT_CONFIG_VALUE_0: `${name}:${port}:${pinned}`,
      // A redirect would reach a host never checked.
      GIT_CONFIG_KEY_1: "http.followRedirects",
      GIT_CONFIG_VALUE_1: "false",
    },
  };
}

function checkLocal(repoUrl: string, policy: RepoPolicy): string | undefined {
  if (policy.allowedRoots.length === 0) {
    return "local repositories (a path or a file:// URL) are refused: set GANTRY_ALLOWED_REPO_ROOTS to the directories they may lie under";
  }
  let path: string;
  try {
    path = resolve(repoUrl.startsWith("/") ? repoUrl : fileURLToPath(repoUrl));
  } catch {
    return "must be a file:// URL of this machine (file:///path/to/repo)";
  }
  // Both the path as written and where its links lead: /proc/self/cwd is a link to the control plane's checkout.
  for (const candidate of [path, realOrSame(path)]) {
    if (within(candidate, "/proc")) return `${candidate} is under /proc`;
    for (const forbidden of policy.forbiddenRoots) {
      if (within(candidate, forbidden) || within(forbidden, candidate)) {
        // Most often a project with Gantry installed in it, deployed by that same Gantry.
        return (
          `${candidate} holds or lies in ${forbidden}, the control plane's data or install directory, which no deployment is built from: ` +
          "deploy a clone kept elsewhere (git clone --bare), or run a control plane installed outside the repositories it builds"
        );
      }
    }
  }
  const real = realOrSame(path);
  if (!policy.allowedRoots.some((root) => within(path, root) && within(real, realOrSame(root)))) {
    return `${path} is not under GANTRY_ALLOWED_REPO_ROOTS (${policy.allowedRoots.join(", ")})`;
  }
  return undefined;
}

function remoteOf(repoUrl: string): { host: string; port: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repoUrl)) {
    try {
      const url = new URL(repoUrl);
      return url.hostname ? { host: url.hostname, port: url.port } : undefined;
    } catch {
      return undefined;
    }
  }
  // scp-like: [user@]host:path
  const host = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):/.exec(repoUrl)?.[1];
  return host ? { host, port: "" } : undefined;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
