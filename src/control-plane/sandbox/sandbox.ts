// Where a deployment's code runs (its install and build commands, the graph import, its server):
// in a bubblewrap sandbox of its own (docs/decisions.md says why bubblewrap). Each deployment has
// a user of its own when the control plane runs as root (a uid from a range no account uses,
// recorded as the owner of the deployment's directory), and sees of the file system only the
// runtime, its build and its own directories; its environment is what the caller built, nothing
// inherited. When bubblewrap does not work here, no deployment code runs at all, unless the
// operator opted out with GANTRY_SANDBOX=off.
import { execFile, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { createHash } from "node:crypto";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Logger } from "../../logging.js";
import { bubblewrapArgs, type Confinement } from "./bubblewrap-args.js";

export type SandboxMode = "bubblewrap" | "off";

/** Gantry's own install: bin/, src/ and its node_modules. */
const GANTRY_ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
/** Deployment users: uids from 1,000,000,000 up, far above any account's. */
const UID_BASE = 1_000_000_000;
const UID_RANGE = 1_000_000_000;
const SYSTEM_PATHS = ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/run/systemd/resolve"];

const run = promisify(execFile);

/** A deployment's own directories, owned by its user. */
export interface DeploymentDirs {
  deploymentId: string;
  /** <deploymentsDir>/<id>: the revisions' pid files (the control plane's), and the dirs below. */
  root: string;
  /** Its data: the embedded database, caches. Writable by its code. */
  data: string;
  /** HOME of its processes (npm's cache). Writable by its code. */
  home: string;
  /** TMPDIR of its processes (tsx's compile cache survives a restart). Writable by its code. */
  tmp: string;
  uid?: number;
  gid?: number;
}

/** What to spawn instead of the command, with which environment and user. */
export interface Launch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** Set for a server: bwrap writes the server's host PID to this descriptor (fd 4 of the spawn). */
  infoFd?: number;
}

export interface LaunchRequest {
  /** The build to run, read-only. */
  readOnly: string[];
  /** A build's work dir, besides the deployment's own dirs. */
  writable?: string[];
  cwd: string;
  /** A long-running server: PID 1 of its namespace, reachable by SIGTERM (see Launch.infoFd). */
  server?: boolean;
}

export interface SandboxOptions {
  mode: SandboxMode;
  /** Where bwrap is looked for: the control plane's PATH. */
  path: string;
  deploymentsDir: string;
  /** The control plane's own files (data dir, keys file): hidden when they lie inside the runtime. */
  ownFiles: string[];
  log: Logger;
}

export class Sandbox {
  private assigning: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly options: SandboxOptions,
    /** Why no deployment code may run here; undefined when it may. */
    readonly refusal: string | undefined,
    private readonly confinement: Omit<Confinement, "readOnly" | "writable" | "cwd">,
    private readonly bwrap = "bwrap",
  ) {}

  get mode(): SandboxMode {
    return this.options.mode;
  }

  /** Checks that bubblewrap really works here (a nested container may refuse namespaces). */
  static async open(options: SandboxOptions): Promise<Sandbox> {
    const confinement = hostConfinement(options.ownFiles);
    if (options.mode === "off") {
      options.log.warn(
        "GANTRY_SANDBOX=off: deployments run without a sandbox, as the control plane's user, and can read its files, its environment and each other's",
      );
      return new Sandbox(options, undefined, confinement);
    }
    const bwrap = findExecutable("bwrap", options.path);
    const refusal = bwrap
      ? await probe(bwrap, confinement, options.deploymentsDir)
      : "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap), or set GANTRY_SANDBOX=off to run deployments unconfined";
    if (refusal) options.log.error("no deployment will be built or started", { reason: refusal });
    else options.log.info("deployments run sandboxed", { sandbox: bwrap, user: isRoot() ? "one per deployment" : "the control plane's, in a user namespace" });
    return new Sandbox(options, refusal, confinement, bwrap);
  }

  /** Makes the deployment's directories, owned by its user; idempotent. */
  prepare(deploymentId: string): Promise<DeploymentDirs> {
    const next = this.assigning.then(() => this.assign(deploymentId));
    this.assigning = next.catch(() => {});
    return next;
  }

  /** Gives a directory the control plane made (a clone, an unpacked archive) to the deployment's user. */
  async handOver(dirs: DeploymentDirs, path: string): Promise<void> {
    if (dirs.uid === undefined) return;
    // -h and -R's default -P: a link in the tree is changed itself, never what it points at.
    await run("chown", ["-hR", `${dirs.uid}:${dirs.gid}`, "--", path]);
  }

  /** The command as it is spawned: inside the deployment's sandbox, with HOME and TMPDIR its own. */
  wrap(dirs: DeploymentDirs, command: string, args: string[], env: NodeJS.ProcessEnv, request: LaunchRequest): Launch {
    const fullEnv = { ...env, HOME: dirs.home, TMPDIR: dirs.tmp };
    if (this.options.mode === "off") return { command, args, env: fullEnv };
    if (this.refusal) throw new Error(this.refusal);
    const infoFd = request.server ? 4 : undefined;
    const sandboxArgs = bubblewrapArgs(
      { ...this.confinement, readOnly: request.readOnly, writable: [dirs.data, dirs.home, dirs.tmp, ...(request.writable ?? [])], cwd: request.cwd },
      command,
      args,
      { asPid1: request.server === true, ...(infoFd !== undefined ? { infoFd } : {}) },
    );
    return {
      command: this.bwrap,
      args: sandboxArgs,
      env: fullEnv,
      ...(dirs.uid !== undefined ? { uid: dirs.uid, gid: dirs.gid! } : {}),
      ...(infoFd !== undefined ? { infoFd } : {}),
    };
  }

  private async assign(deploymentId: string): Promise<DeploymentDirs> {
    const root = join(this.options.deploymentsDir, deploymentId);
    const dirs: DeploymentDirs = { deploymentId, root, data: join(root, "data"), home: join(root, "home"), tmp: join(root, "tmp") };
    if (!isRoot() || this.options.mode === "off") {
      for (const dir of [dirs.data, dirs.home, dirs.tmp]) await mkdir(dir, { recursive: true });
      return dirs;
    }
    const uid = existsSync(root) && statSync(root).uid >= UID_BASE ? statSync(root).uid : this.freeUid(deploymentId);
    await mkdir(root, { recursive: true });
    await chown(root, uid, uid);
    for (const dir of [dirs.data, dirs.home, dirs.tmp]) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chown(dir, uid, uid);
    }
    return { ...dirs, uid, gid: uid };
  }

  /** A uid from the deployment's id; on a collision the next one no other deployment holds. */
  private freeUid(deploymentId: string): number {
    const taken = new Set<number>();
    for (const entry of existsSync(this.options.deploymentsDir) ? readdirSync(this.options.deploymentsDir) : []) {
      if (entry !== deploymentId) taken.add(statSync(join(this.options.deploymentsDir, entry)).uid);
    }
    let uid = UID_BASE + (createHash("sha256").update(deploymentId).digest().readUInt32BE(0) % UID_RANGE);
    while (taken.has(uid)) uid = uid + 1 >= UID_BASE + UID_RANGE ? UID_BASE : uid + 1;
    return uid;
  }
}

const isRoot = () => process.getuid?.() === 0;

/** What every sandbox sees of the host: its system paths, node, Gantry; minus the control plane's own files. */
function hostConfinement(ownFiles: string[]): Omit<Confinement, "readOnly" | "writable" | "cwd"> {
  const systemPaths: Confinement["systemPaths"] = [];
  for (const path of SYSTEM_PATHS) {
    if (!existsSync(path)) continue;
    const link = lstatSync(path).isSymbolicLink();
    systemPaths.push(link ? { path, symlinkTo: readlinkSync(path) } : { path });
  }
  const runtime = new Set<string>([GANTRY_ROOT, nodeModulesOf(fileURLToPath(import.meta.resolve("hono")))]);
  const nodeHome = dirname(dirname(realpathSync(process.execPath)));
  if (!within(nodeHome, "/usr")) runtime.add(nodeHome);
  const hidden: Confinement["hidden"] = [];
  for (const path of ownFiles) {
    if (![...runtime].some((root) => within(path, root))) continue;
    // A file inside a hidden directory is hidden with it.
    if (ownFiles.some((other) => other !== path && within(path, other))) continue;
    if (existsSync(path)) hidden.push({ path, kind: statSync(path).isDirectory() ? "dir" : "file" });
  }
  return { systemPaths, runtime: [...runtime], hidden };
}

/** The node_modules directory a resolved dependency sits in (Gantry's, wherever it is installed). */
function nodeModulesOf(file: string): string {
  const at = file.lastIndexOf(`${sep}node_modules${sep}`);
  return at < 0 ? dirname(file) : file.slice(0, at + `${sep}node_modules`.length);
}

const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** Runs node in a throwaway sandbox as a deployment would; the reason it failed, or undefined. */
function findExecutable(name: string, path: string): string | undefined {
  for (const dir of path.split(":").filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

async function probe(bwrap: string, confinement: Omit<Confinement, "readOnly" | "writable" | "cwd">, deploymentsDir: string): Promise<string | undefined> {
  await mkdir(deploymentsDir, { recursive: true });
  const dir = await mkdtemp(join(deploymentsDir, ".sandbox-probe-"));
  try {
    const uid = isRoot() ? UID_BASE : undefined;
    if (uid !== undefined) await chown(dir, uid, uid);
    const args = bubblewrapArgs({ ...confinement, readOnly: [], writable: [dir], cwd: dir }, process.execPath, ["-e", "process.exit(0)"], { asPid1: true });
    const result = spawnSync(bwrap, args, { env: {}, encoding: "utf8", timeout: 30_000, ...(uid !== undefined ? { uid, gid: uid } : {}) });
    if (result.error) return `bubblewrap could not start: ${result.error.message}; set GANTRY_SANDBOX=off to run deployments unconfined`;
    if (result.status !== 0) {
      return `bubblewrap does not work here (${result.stderr.trim() || `exit code ${result.status}`}): allow user namespaces, or set GANTRY_SANDBOX=off to run deployments unconfined`;
    }
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
