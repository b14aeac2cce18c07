// The default driver: each revision is a `gantry dev` (or `gantry serve`) child process on a port
// of its own (port 0, read back from its "listening" log line) on its deployment's data, which all
// its revisions share (deployment-data.ts); its logs are kept as the revision's deploy log. GET /ok
// within the health timeout makes it healthy. A pid file per child lets the next control-plane
// process stop children a crashed one left behind.
//
// Each child runs in its deployment's sandbox (sandbox/sandbox.ts) and requires a token of its own
// on every request (config/revision-token.ts), which only the router and the health check send.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdir, rm, unlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../../logging.js";
import { REVISION_TOKEN_HEADER } from "../../config/revision-token.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { DeploymentData } from "./deployment-data.js";
import type { Launch } from "../sandbox/sandbox.js";
import type { DeployLog, Driver, InstanceSpec, InstanceState, InstanceView, Lease } from "./driver.js";

const GANTRY_BIN = resolve(fileURLToPath(new URL("../../../bin/gantry.js", import.meta.url)));
const HEALTH_POLL_MS = 100;
/** Past the child's own shutdown grace (the drain time), how long before it is killed. */
const KILL_MARGIN_MS = 15_000;
/** Set in every child's environment; names the revision a leftover process belongs to. */
const REVISION_VARIABLE = "LANGSMITH_HOST_REVISION_ID";

export interface ProcessDriverOptions {
  /** Each deployment's directory: its revisions' pid files, and its embedded data when there is one. */
  deploymentsDir: string;
  data: DeploymentData;
  sandbox: Sandbox;
  healthTimeoutMs: number;
  drainMs: number;
  log: Logger;
}

interface Instance {
  deployment_id: string;
  revision_id: string;
  state: InstanceState;
  child: ChildProcess;
  /** Where SIGTERM goes: the server itself, which inside a sandbox is not the spawned bwrap. */
  serverPid: Promise<number | undefined>;
  url?: string;
  /** Sent with every request (REVISION_TOKEN_HEADER). */
  token: string;
  inFlight: number;
  exited: Promise<void>;
}

export class ProcessDriver implements Driver {
  private readonly running = new Map<string, Instance>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly options: ProcessDriverOptions) {}

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  instances(): InstanceView[] {
    return [...this.running.values()].map(({ deployment_id, revision_id, state }) => ({ deployment_id, revision_id, state }));
  }

  acquire(revisionId: string): Lease | undefined {
    const instance = this.running.get(revisionId);
    if (instance?.state !== "healthy" || !instance.url) return undefined;
    instance.inFlight++;
    let released = false;
    return {
      url: instance.url,
      headers: { [REVISION_TOKEN_HEADER]: instance.token },
      release: () => {
        if (released) return;
        released = true;
        instance.inFlight--;
      },
    };
  }

  start(spec: InstanceSpec, log: DeployLog): Promise<void> {
    const existing = this.running.get(spec.revision_id);
    if (existing && existing.state !== "failed" && existing.state !== "stopping") return this.starting.get(spec.revision_id) ?? Promise.resolve();
    const started = this.launch(spec, log).finally(() => this.starting.delete(spec.revision_id));
    this.starting.set(spec.revision_id, started);
    return started;
  }

  private async launch(spec: InstanceSpec, log: DeployLog): Promise<void> {
    const revisionDir = this.revisionDir(spec.deployment_id, spec.revision_id);
    await mkdir(revisionDir, { recursive: true });
    const server = await this.options.data.prepare(spec.deployment_id).catch((err: unknown) => {
      log("ERROR", `The deployment's database is not available: ${(err as Error).message}`);
      throw err;
    });
    const dirs = await this.options.sandbox.prepare(spec.deployment_id);
    const token = randomBytes(32).toString("base64url");
    const args = [
      GANTRY_BIN,
      server.command,
      ...["--config", spec.configPath, "--port", "0", "--host", "127.0.0.1", ...server.args],
      ...(server.command === "dev" ? ["--data-dir", dirs.data] : []),
      // `gantry serve` shares run events through Redis: either revision may execute any run.
      ...(spec.waitForPromotion && server.command === "dev" ? ["--start-drained"] : []),
    ];
    const env = {
      // The drain already waited for requests; background runs get the same bound to finish.
      BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: String(Math.ceil(this.options.drainMs / 1000)),
      ...spec.env,
      ...server.env,
      [REVISION_VARIABLE]: spec.revision_id,
      GANTRY_REVISION_TOKEN: token,
      LOG_JSON: "1",
    };
    let launch: Launch;
    try {
      launch = this.options.sandbox.wrap(dirs, process.execPath, args, env, { readOnly: [spec.buildDir], cwd: dirname(spec.configPath), server: true });
    } catch (err) {
      log("ERROR", `Not started: ${(err as Error).message}`);
      throw err;
    }
    const child = spawn(launch.command, launch.args, {
      // bwrap's --chdir sets the directory inside the sandbox.
      cwd: launch.command === process.execPath ? dirname(spec.configPath) : "/",
      env: launch.env,
      ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid! } : {}),
      // The IPC channel carries "drain" and "resume" (promote, stop); fd 4, bwrap's info.
      stdio: ["ignore", "pipe", "pipe", "ipc", ...(launch.infoFd !== undefined ? (["pipe"] as const) : [])],
    });
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    const instance: Instance = {
      deployment_id: spec.deployment_id,
      revision_id: spec.revision_id,
      state: "starting",
      child,
      serverPid: launch.infoFd !== undefined ? sandboxedPid(child, launch.infoFd) : Promise.resolve(child.pid),
      token,
      inFlight: 0,
      exited,
    };
    this.running.set(spec.revision_id, instance);
    if (child.pid !== undefined) await writeFile(join(revisionDir, "server.pid"), String(child.pid));
    log(
      "INFO",
      `Started the Agent Server: gantry ${server.command} (pid ${child.pid}${this.options.sandbox.mode === "off" ? ", no sandbox: GANTRY_SANDBOX=off" : ", in its sandbox"})`,
    );

    let listening: (url: string) => void = () => {};
    const urlKnown = new Promise<string>((resolveUrl) => (listening = resolveUrl));
    pipeLines(child, (stream, line) => {
      const entry = parseLogLine(line);
      if (entry?.msg === "listening" && typeof entry.url === "string") listening(entry.url);
      log(entry ? levelOf(entry.level) : stream === "stderr" ? "WARNING" : "INFO", line);
    });
    child.once("exit", (code, signal) => {
      void unlink(join(revisionDir, "server.pid")).catch(() => {});
      if (instance.state === "stopping") {
        if (this.running.get(spec.revision_id) === instance) this.running.delete(spec.revision_id);
        log("INFO", "The Agent Server stopped");
      } else {
        instance.state = "failed";
        log("ERROR", `The Agent Server exited (code ${code}, signal ${signal})`);
      }
      this.changed();
    });

    const deadline = Date.now() + this.options.healthTimeoutMs;
    const url = await Promise.race([urlKnown, exited.then(() => undefined), delay(this.options.healthTimeoutMs).then(() => undefined)]);
    if (url && (await waitHealthy(url, token, deadline, () => instance.state === "starting"))) {
      instance.url = url;
      instance.state = "healthy";
      log("INFO", `Healthy: GET ${url}/ok answered 200`);
    } else if (instance.state === "starting") {
      instance.state = "failed";
      log("ERROR", `The Agent Server did not answer GET /ok with 200 within ${Math.round(this.options.healthTimeoutMs / 1000)} s`);
      child.kill("SIGKILL");
    }
    this.changed();
  }

  promote(revisionId: string): void {
    const promoted = this.running.get(revisionId);
    if (!promoted) return;
    for (const instance of this.running.values()) {
      if (instance.deployment_id === promoted.deployment_id && instance !== promoted && instance.state === "healthy") tell(instance.child, "drain");
    }
    tell(promoted.child, "resume");
  }

  stop(revisionId: string): void {
    const instance = this.running.get(revisionId);
    if (!instance || instance.state === "stopping") return;
    const wasHealthy = instance.state === "healthy";
    instance.state = "stopping";
    this.changed();
    // Before the requests drain: the revision that replaces it, on the same database, takes every
    // new run, so no run created there is executed here (docs/decisions.md).
    if (wasHealthy) tell(instance.child, "drain");
    void (async () => {
      const drainUntil = Date.now() + (wasHealthy ? this.options.drainMs : 0);
      while (instance.inFlight > 0 && Date.now() < drainUntil) await delay(50);
      await this.terminate(instance);
    })();
  }

  private async terminate(instance: Instance): Promise<void> {
    const { child } = instance;
    if (child.exitCode === null && child.signalCode === null) {
      const pid = await instance.serverPid;
      try {
        if (pid !== undefined) process.kill(pid, "SIGTERM");
      } catch {
        // Already gone.
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), this.options.drainMs + KILL_MARGIN_MS);
      await instance.exited;
      clearTimeout(timer);
    }
    if (this.running.get(instance.revision_id) === instance) this.running.delete(instance.revision_id);
    this.changed();
  }

  async removeData(deploymentId: string): Promise<void> {
    await this.options.data.remove(deploymentId);
    await rm(join(this.options.deploymentsDir, deploymentId), { recursive: true, force: true });
  }

  async recover(): Promise<void> {
    if (!existsSync(this.options.deploymentsDir)) return;
    for (const deployment of readdirSync(this.options.deploymentsDir)) {
      const revisions = join(this.options.deploymentsDir, deployment, "revisions");
      if (!existsSync(revisions)) continue;
      for (const revision of readdirSync(revisions)) {
        const pidFile = join(revisions, revision, "server.pid");
        if (!existsSync(pidFile)) continue;
        const pid = Number(readFileSync(pidFile, "utf8"));
        // Only a process whose environment names this revision is ours (pids get reused).
        if (Number.isInteger(pid) && environmentOf(pid).includes(`${REVISION_VARIABLE}=${revision}`)) {
          this.options.log.warn("stopping a server left by a previous control plane", { deployment_id: deployment, revision_id: revision, pid });
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
        await unlink(pidFile).catch(() => {});
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.running.values()].map((instance) => ((instance.state = "stopping"), this.terminate(instance))));
    await this.options.data.close();
  }

  private revisionDir(deploymentId: string, revisionId: string): string {
    return join(this.options.deploymentsDir, deploymentId, "revisions", revisionId);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The server's host PID, which bwrap writes to its info descriptor once the sandbox is up. */
function sandboxedPid(child: ChildProcess, fd: number): Promise<number | undefined> {
  return new Promise((done) => {
    let text = "";
    const stream = child.stdio[fd] as NodeJS.ReadableStream | null;
    if (!stream) return done(undefined);
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => (text += chunk));
    stream.on("end", () => {
      try {
        const pid = (JSON.parse(text) as { "child-pid"?: unknown })["child-pid"];
        done(typeof pid === "number" ? pid : undefined);
      } catch {
        done(undefined);
      }
    });
    stream.on("error", () => done(undefined));
  });
}

async function waitHealthy(url: string, token: string, deadline: number, stillWanted: () => boolean): Promise<boolean> {
  while (Date.now() < deadline && stillWanted()) {
    try {
      const response = await fetch(`${url}/ok`, { headers: { [REVISION_TOKEN_HEADER]: token }, signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.status === 200) return true;
    } catch {
      // Not answering yet.
    }
    await delay(HEALTH_POLL_MS);
  }
  return false;
}

function pipeLines(child: ChildProcess, onLine: (stream: "stdout" | "stderr", line: string) => void): void {
  for (const stream of ["stdout", "stderr"] as const) {
    let pending = "";
    child[stream]!.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) if (line.trim()) onLine(stream, line);
    });
  }
}

function parseLogLine(line: string): { msg?: unknown; url?: unknown; level?: unknown } | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as { msg?: unknown; url?: unknown; level?: unknown };
  } catch {
    return undefined;
  }
}

function levelOf(level: unknown): "DEBUG" | "INFO" | "WARNING" | "ERROR" {
  return level === "debug" ? "DEBUG" : level === "warn" ? "WARNING" : level === "error" ? "ERROR" : "INFO";
}

/** A message over the child's IPC channel; one that has exited is past telling. */
function tell(child: ChildProcess, message: "drain" | "resume"): void {
  if (child.connected) child.send(message, () => {});
}

/** NUL-separated NAME=value entries; readable for our own children. */
function environmentOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** Unreferenced: a pending wait never keeps the control plane alive on its own. */
const delay = (ms: number) => new Promise((done) => setTimeout(done, ms).unref());
