// The bubblewrap command line that confines one process of a deployment. Pure: what it may see is
// given, nothing is read from the host here (sandbox.ts decides the paths).
//
// The process gets new user, PID, IPC, UTS and cgroup namespaces (its /proc shows only its own
// processes), and a file system built from nothing: the host's programs and libraries read-only,
// the paths it was given, a private /tmp and /dev. The network is the host's: a graph calls model
// APIs, and a revision's server must be reachable by the router (revision-token.ts guards that).

export interface Confinement {
  /** Seen read-only at the same path: node, Gantry's install and its dependencies. */
  runtime: string[];
  /** Seen read-only at the same path, even inside a hidden path: the build being run. */
  readOnly: string[];
  /** Seen read-write at the same path: the deployment's data, home and temp dirs (and a build's work dir). */
  writable: string[];
  /** Under a read-only path but not to be seen (the control plane's data dir): dirs become empty, files /dev/null. */
  hidden: { path: string; kind: "dir" | "file" }[];
  /** How the host's top-level system paths are: a symlink (merged /usr) or a directory to bind. */
  systemPaths: { path: string; symlinkTo?: string }[];
  cwd: string;
}

export interface BubblewrapOptions {
  /** The server is PID 1 of its namespace, so a SIGTERM sent to it (its host PID, from --info-fd) reaches it. */
  asPid1: boolean;
  /** The descriptor bwrap writes {"child-pid": …} to. */
  infoFd?: number;
}

export function bubblewrapArgs(confinement: Confinement, command: string, args: string[], options: BubblewrapOptions): string[] {
  const out = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--disable-userns", "--die-with-parent"];
  for (const system of confinement.systemPaths) {
    if (system.symlinkTo !== undefined) out.push("--symlink", system.symlinkTo, system.path);
    else out.push("--ro-bind-try", system.path, system.path);
  }
  // Before the binds: a path given below may lie under /tmp, and a later tmpfs would hide it.
  out.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const path of confinement.runtime) out.push("--ro-bind", path, path);
  // After the runtime binds that would show them, before the deployment's own dirs that may lie inside.
  for (const hidden of confinement.hidden) {
    if (hidden.kind === "dir") out.push("--tmpfs", hidden.path);
    else out.push("--ro-bind", "/dev/null", hidden.path);
  }
  for (const path of confinement.readOnly) out.push("--ro-bind", path, path);
  for (const path of confinement.writable) out.push("--bind", path, path);
  out.push("--chdir", confinement.cwd);
  if (options.asPid1) out.push("--as-pid-1");
  if (options.infoFd !== undefined) out.push("--info-fd", String(options.infoFd));
  out.push("--", command, ...args);
  return out;
}
