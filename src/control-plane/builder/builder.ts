// Turns a revision into a directory an Agent Server can run: resolve the ref, check the commit out
// (or unpack the uploaded archive), install dependencies, run the build command, import every graph
// once. Builds are cached per deployment by commit, or by the archive's sha256 (and install/build
// commands): a second revision of the same source reuses the directory. A deployment's cache is
// bounded (prune) and goes with the deployment.
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isUuid } from "../../ids.js";
import { checkRemote, type RepoPolicy } from "../repo-policy.js";
import type { DeploymentDirs, Sandbox } from "../sandbox/sandbox.js";
import { ArchiveError, unpackArchive } from "../uploads/unpack.js";
import { checkout, redactUrl, resolveRef, type GitOptions } from "./git.js";
import { runStep, type LineSink, type StepOptions } from "./run-command.js";

const CHECK_SCRIPT = fileURLToPath(new URL("./check-graphs.ts", import.meta.url));
// Both of tsx's loaders, as bin/gantry.js registers them: in a project that is not "type": "module"
// a graph written with `import` is loaded through require(), which only the CommonJS one handles.
const TSX_LOADER = import.meta.resolve("tsx");
/** check-graphs.ts starts its warnings so. */
const WARNING_PREFIX = "Warning: ";
const BUILT_MARKER = ".gantry-built";

export interface BuildRequest {
  deployment_id: string;
  repo_url: string;
  repo_ref: string;
  /** Build this commit instead of resolving the ref (redeploys, build_on_push); for an archive, its known digest. */
  pinned_commit_sha: string | null;
  /** internal_source: the uploaded archive to unpack instead of cloning; `file` is undefined once it is no longer kept. */
  archive?: { objectPath: string; file: string | undefined };
  langgraph_config_path: string;
  install_command: string | null;
  build_command: string | null;
  /** The environment install, build and graph import run under: the variables Gantry passes on plus the secrets. */
  env: NodeJS.ProcessEnv;
}

export type BuildLog = (level: "INFO" | "WARNING" | "ERROR", message: string) => void;

export type BuildOutcome = { ok: true; sha: string; dir: string; configPath: string } | { ok: false; reason: string };

/** What names a build in the cache. */
export type BuildKey = Pick<BuildRequest, "deployment_id" | "install_command" | "build_command">;

export interface BuilderOptions {
  /** <buildsDir>/<deployment_id>/<commit>[-<commands hash>], and .tmp-* work dirs beside them. */
  buildsDir: string;
  /** Deadline of each step (clone, install, build, graph import). */
  stepTimeoutMs: number;
  /** A git command silent this long (a remote that accepts and never answers) is given up on. */
  gitIdleMs: number;
  /** What git commands start from (the control plane's child env); never a deployment's secrets. */
  gitEnv: NodeJS.ProcessEnv;
  /** Where install, build and graph import run: the deployment's sandbox (git runs outside it, with no secret). */
  sandbox: Sandbox;
  /** Which remotes git may reach, checked again as it connects. */
  repoPolicy: RepoPolicy;
}

export class Builder {
  constructor(private readonly options: BuilderOptions) {}

  /**
   * Removes half-built directories a killed control plane left, and builds cached before the cache
   * was per deployment (named by commit, not by deployment id); called at start-up, before any build.
   */
  async removeUnfinished(): Promise<void> {
    if (!existsSync(this.options.buildsDir)) return;
    for (const entry of await readdir(this.options.buildsDir)) {
      if (entry.startsWith(".tmp-") || !isUuid(entry)) await rm(join(this.options.buildsDir, entry), { recursive: true, force: true });
    }
  }

  /** The build directory of a commit, if a finished build of it is cached. */
  cached(sha: string, request: BuildKey & Pick<BuildRequest, "langgraph_config_path">): string | undefined {
    const dir = this.dirFor(sha, request);
    return existsSync(join(dir, BUILT_MARKER)) && existsSync(join(dir, checkedMarker(request.langgraph_config_path))) ? dir : undefined;
  }

  /** Where the build of a commit is (or would be) cached. */
  dirFor(sha: string, request: BuildKey): string {
    const commands =
      request.install_command || request.build_command ? "-" + shortHash(`${request.install_command ?? ""}\n${request.build_command ?? ""}`) : "";
    return join(this.deploymentDir(request.deployment_id), sha + commands);
  }

  /**
   * Bounds a deployment's cache to `max` builds: every build in `keep` (the live revision's, the one
   * a rollback goes to, those still rolling out) stays, the builds used last fill the room left,
   * and the others are removed. Returns the removed directories.
   */
  async prune(deploymentId: string, keep: ReadonlySet<string>, max: number): Promise<string[]> {
    const root = this.deploymentDir(deploymentId);
    if (!existsSync(root)) return [];
    const builds = await Promise.all(
      (await readdir(root)).map(async (entry) => {
        const dir = join(root, entry);
        const used = await stat(join(dir, BUILT_MARKER)).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        return { dir, used };
      }),
    );
    builds.sort((a, b) => b.used - a.used);
    let room = max - builds.filter((b) => keep.has(b.dir)).length;
    const removed: string[] = [];
    for (const build of builds) {
      if (keep.has(build.dir)) continue;
      if (room > 0) room--;
      else removed.push(build.dir);
    }
    for (const dir of removed) await rm(dir, { recursive: true, force: true });
    return removed;
  }

  /** Removes every cached build of a deployment (it was deleted). */
  async removeDeployment(deploymentId: string): Promise<void> {
    await rm(this.deploymentDir(deploymentId), { recursive: true, force: true });
  }

  /** git's settings for one build (or one ref check). */
  gitOptions(onLine: LineSink, signal?: AbortSignal): GitOptions {
    return {
      baseEnv: this.options.gitEnv,
      timeoutMs: this.options.stepTimeoutMs,
      idleMs: this.options.gitIdleMs,
      ...(signal ? { signal } : {}),
      onLine,
      checkRemote: (repoUrl) => checkRemote(repoUrl, this.options.repoPolicy),
    };
  }

  /**
   * Resolves the commit first and reports it, so the revision records repo_commit_sha even if a
   * later step fails. `signal` cancels it: the running step's whole process group is killed.
   */
  async build(request: BuildRequest, log: BuildLog, resolved: (sha: string) => Promise<void>, signal?: AbortSignal): Promise<BuildOutcome> {
    if (this.options.sandbox.refusal) return { ok: false, reason: `Not built: ${this.options.sandbox.refusal}` };
    const onLine: LineSink = (stream, line) => log(stream === "stderr" ? "WARNING" : "INFO", line);
    // git's progress goes to stderr: it is not a warning.
    const gitOptions = this.gitOptions((_stream, line) => log("INFO", line), signal);
    let sha = request.pinned_commit_sha;
    if (!sha && request.archive) {
      if (!request.archive.file) return { ok: false, reason: `The uploaded archive ${request.archive.objectPath} is no longer kept: deploy again` };
      sha = await fileDigest(request.archive.file);
    } else if (!sha) {
      log("INFO", `Resolving ${request.repo_ref} in ${redactUrl(request.repo_url)}`);
      const ref = await resolveRef(request.repo_url, request.repo_ref, gitOptions);
      if ("error" in ref) return { ok: false, reason: ref.error };
      sha = ref.sha;
    }
    await resolved(sha);
    log("INFO", request.archive ? `Building the uploaded archive ${request.archive.objectPath} (sha256 ${sha})` : `Building commit ${sha}`);

    const dir = this.dirFor(sha, request);
    const dirs = await this.options.sandbox.prepare(request.deployment_id);
    if (existsSync(join(dir, BUILT_MARKER))) {
      log("INFO", "Using the cached build of this commit");
      // Its marker's time is when the build was last used: prune() keeps the builds used last.
      const now = new Date();
      await utimes(join(dir, BUILT_MARKER), now, now);
    } else {
      const failure = await this.fetchAndInstall(request, sha, dir, dirs, log, onLine, gitOptions, signal);
      if (failure) return { ok: false, reason: failure };
    }

    const configPath = join(dir, request.langgraph_config_path);
    if (!existsSync(configPath))
      return { ok: false, reason: `${request.langgraph_config_path} does not exist in ${request.archive ? "the uploaded archive" : `commit ${sha}`}` };
    if (existsSync(join(dir, checkedMarker(request.langgraph_config_path)))) return { ok: true, sha, dir, configPath };
    log("INFO", `Importing the graphs of ${request.langgraph_config_path}`);
    const check = await this.sandboxed(dirs, request, process.execPath, ["--import", TSX_LOADER, CHECK_SCRIPT, configPath], dirname(configPath), {
      readOnly: [dir],
      signal,
      onLine: (stream, line) => {
        if (stream === "stdout" && line.startsWith(WARNING_PREFIX)) log("WARNING", line.slice(WARNING_PREFIX.length));
        else log(stream === "stderr" ? "ERROR" : "INFO", line);
      },
    });
    if (check.code !== 0) return { ok: false, reason: check.error ?? `A graph of ${request.langgraph_config_path} failed to import (see the lines above)` };
    await writeFile(join(dir, checkedMarker(request.langgraph_config_path)), new Date().toISOString());
    return { ok: true, sha, dir, configPath };
  }

  private async fetchAndInstall(
    request: BuildRequest,
    sha: string,
    dir: string,
    dirs: DeploymentDirs,
    log: BuildLog,
    onLine: LineSink,
    gitOptions: GitOptions,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    // Built beside the cache and renamed into it when complete: a crash leaves only a temp dir.
    const work = join(this.options.buildsDir, `.tmp-${sha}-${randomBytes(4).toString("hex")}`);
    await mkdir(this.options.buildsDir, { recursive: true });
    try {
      const fetchFailure = request.archive ? await unpackInto(request.archive, work, log) : await cloneInto(request, sha, work, log, gitOptions);
      if (fetchFailure) return fetchFailure;
      // The deployment's own commands run as its user, on files that are its own.
      await this.options.sandbox.handOver(dirs, work);
      const step = async (what: string, command: string, args: string[], cwd: string) => {
        log("INFO", `$ ${what}`);
        const result = await this.sandboxed(dirs, request, command, args, cwd, { readOnly: [], writable: [work], signal, onLine });
        return result.code === 0 ? undefined : (result.error ?? `'${what}' failed with exit code ${result.code}`);
      };
      let failure: string | undefined;
      if (request.install_command) failure = await step(request.install_command, "sh", ["-c", request.install_command], work);
      else if (existsSync(join(work, "package-lock.json"))) failure = await step("npm ci", "npm", ["ci", "--no-audit", "--no-fund"], work);
      else log("INFO", "No package-lock.json and no install_command: nothing to install");
      if (failure) return failure;
      if (request.build_command) {
        const configDir = dirname(join(work, request.langgraph_config_path));
        failure = await step(request.build_command, "sh", ["-c", request.build_command], existsSync(configDir) ? configDir : work);
        if (failure) return failure;
      }
      await writeFile(join(work, BUILT_MARKER), new Date().toISOString());
      if (existsSync(dir)) {
        log("INFO", "Another build of this commit finished first; using it");
      } else {
        await mkdir(dirname(dir), { recursive: true });
        await rename(work, dir);
      }
      return undefined;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Runs one of the deployment's own steps in its sandbox. */
  private sandboxed(
    dirs: DeploymentDirs,
    request: BuildRequest,
    command: string,
    args: string[],
    cwd: string,
    step: { readOnly: string[]; writable?: string[]; signal: AbortSignal | undefined; onLine: LineSink },
  ) {
    const launch = this.options.sandbox.wrap(dirs, command, args, request.env, {
      readOnly: step.readOnly,
      ...(step.writable ? { writable: step.writable } : {}),
      cwd,
    });
    const options: StepOptions = {
      cwd: launch.command === command ? cwd : "/",
      env: launch.env,
      ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid! } : {}),
      name: command === process.execPath ? "node" : command,
      timeoutMs: this.options.stepTimeoutMs,
      ...(step.signal ? { signal: step.signal } : {}),
      onLine: step.onLine,
    };
    return runStep(launch.command, launch.args, options);
  }

  private deploymentDir(deploymentId: string): string {
    return join(this.options.buildsDir, deploymentId);
  }
}

async function cloneInto(request: BuildRequest, sha: string, work: string, log: BuildLog, gitOptions: GitOptions): Promise<string | undefined> {
  log("INFO", `Cloning ${redactUrl(request.repo_url)}`);
  return checkout(request.repo_url, sha, work, gitOptions);
}

async function unpackInto(archive: NonNullable<BuildRequest["archive"]>, work: string, log: BuildLog): Promise<string | undefined> {
  if (!archive.file) return `The uploaded archive ${archive.objectPath} is no longer kept: deploy again`;
  log("INFO", `Unpacking ${archive.objectPath}`);
  await mkdir(work);
  try {
    const { files, bytes } = await unpackArchive(archive.file, work);
    log("INFO", `Unpacked ${files} files (${bytes} bytes)`);
    return undefined;
  } catch (err) {
    if (err instanceof ArchiveError) return `The source archive is refused: ${err.message}`;
    throw err;
  }
}

async function fileDigest(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 10);
const checkedMarker = (configPath: string) => `.gantry-checked-${shortHash(configPath)}`;
