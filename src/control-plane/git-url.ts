// The git remotes a deployment may name, and the protocol each uses: what the API accepts as
// repo_url and what git is then allowed (GIT_ALLOW_PROTOCOL) when it builds one.

/** The URL schemes Gantry clones from; remote helpers (`ext::`, `fd::`) and other schemes are refused. */
const URL_SCHEMES = ["https", "http", "ssh", "git", "file"] as const;
export type GitProtocol = (typeof URL_SCHEMES)[number];

/** The protocol git uses for a repo_url this module accepted, for GIT_ALLOW_PROTOCOL. */
export function gitProtocolOf(repoUrl: string): GitProtocol | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(repoUrl)?.[1]?.toLowerCase();
  if (scheme) return (URL_SCHEMES as readonly string[]).includes(scheme) ? (scheme as GitProtocol) : undefined;
  if (repoUrl.startsWith("/")) return "file";
  // scp-like `user@host:path` (ssh); a bare `name::address` is a remote helper (ext::, fd::), never allowed.
  if (/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^:]/.test(repoUrl) || /^[A-Za-z0-9.-]+:[^:]+$/.test(repoUrl)) return "ssh";
  return undefined;
}
