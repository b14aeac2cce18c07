// Runs `gantry dev` (or `gantry serve`) as a real child process, the way a user does, for the
// end-to-end tests: port 0, JSON logs, a temp data dir unless one is given (dev). Readiness is the
// "listening" log line, not a sleep.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEMA_CACHE_VARIABLE } from "./schema-cache-setup.js";

const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const BIN = join(REPO_ROOT, "bin", "gantry.js");

// How long before a process that has not logged (or exited) is taken for hung. Generous: on a
// machine loaded many times over (1-minute load 20-30 on 2 cores) a start took over 45 s.
const START_DEADLINE_MS = 120_000;
const STOP_DEADLINE_MS = 10_000;
const FAILURE_DEADLINE_MS = 120_000;

// Variables Gantry reads. A developer's shell may set them (DATABASE_URL above all), which would
// silently move a "SQLite" test onto PostgreSQL; each test states the ones it wants in `env`.
const GANTRY_ENV = [
  "DATABASE_URL",
  "DATABASE_URI",
  "POSTGRES_URI",
  "POSTGRES_URI_CUSTOM",
  "LANGGRAPH_POSTGRES_POOL_MAX_SIZE",
  "LOG_LEVEL",
  "LOG_JSON",
  "HTTP_MAX_REQUEST_BODY_BYTES",
  "CORS_ALLOW_ORIGINS",
  "MOUNT_PREFIX",
  "PORT",
  "GANTRY_CRON_CLOCK_FILE",
  "REDIS_URL",
  "REDIS_URI",
  "REDIS_URI_CUSTOM",
  "REDIS_CLUSTER",
  "REDIS_KEY_PREFIX",
  "GANTRY_RUN_LEASE_MS",
  "GANTRY_RUN_HEARTBEAT_MS",
  "GANTRY_RUN_SWEEP_MS",
  "GANTRY_QUEUE_POLL_MS",
  "GANTRY_WS_PING_MS",
  "GANTRY_UNRESUMABLE_RETAIN_MS",
  "GANTRY_SCHEMA_CACHE_DIR",
  "LANGGRAPH_CONFIG",
  "LANGSMITH_TRACING",
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_API_KEY",
  "LANGCHAIN_API_KEY",
  "LANGSMITH_ENDPOINT",
  "LANGSMITH_PROJECT",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
];

export interface GantryOptions {
  /** Path of the langgraph.json to serve. */
  config: string;
  /** Reuse a data dir (e.g. to restart on the same SQLite file); a fresh temp dir otherwise. */
  dataDir?: string;
  env?: Record<string, string>;
  /** Extra CLI arguments after the ones the helper passes. */
  args?: string[];
  /** `dev` (default) or `serve`, which gets --host 127.0.0.1 and no data dir. */
  command?: "dev" | "serve";
  /** Open an IPC channel, as the control plane does, for send(). */
  ipc?: boolean;
  /** How long to wait for "listening"; longer for a project that bundles generative UI at start. */
  startDeadlineMs?: number;
}

export interface RunningGantry {
  /** Base URL including any mount prefix, as the server logs it. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Sends a signal (SIGKILL for a crash, SIGTERM for a graceful stop) and resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** A message over the IPC channel (started with `ipc`). */
  send(message: string): void;
}

export interface FailedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The suite's shared schema cache (schema-cache-setup.ts), unless a test names its own. */
const sharedSchemaCache = (): Record<string, string> => {
  const dir = process.env[SCHEMA_CACHE_VARIABLE];
  return dir ? { GANTRY_SCHEMA_CACHE_DIR: dir } : {};
};

function childEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of GANTRY_ENV) delete env[key];
  return { ...env, LOG_JSON: "1", ...sharedSchemaCache(), ...extra };
}

function spawnGantry(args: string[], env: Record<string, string> | undefined, ipc = false): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe", ...(ipc ? (["ipc"] as const) : [])] });
}

function listeningUrl(line: string): string | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return entry.msg === "listening" && typeof entry.url === "string" ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once("exit", () => done()));
}

export async function startGantry(options: GantryOptions): Promise<RunningGantry> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "gantry-e2e-")));
  const place = options.command === "serve" ? ["--host", "127.0.0.1"] : ["--data-dir", dataDir];
  const child = spawnGantry(
    [options.command ?? "dev", "--config", resolve(options.config), "--port", "0", ...place, ...(options.args ?? [])],
    options.env,
    options.ipc,
  );
  let output = "";
  const cleanUp = async () => {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
  };

  let url: string;
  try {
    url = await new Promise<string>((resolveUrl, rejectStart) => {
      let pending = "";
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited (code ${code}, signal ${signal}) before listening`);
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        rejectStart(new Error(`gantry dev ${why}. Its output:\n${output}`));
      };
      const deadline = options.startDeadlineMs ?? START_DEADLINE_MS;
      const timer = setTimeout(() => fail(`did not log "listening" within ${deadline / 1000} s`), deadline);
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          const found = listeningUrl(line);
          if (found) {
            clearTimeout(timer);
            child.off("exit", onExit);
            resolveUrl(found);
          }
        }
      });
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
      });
      child.once("exit", onExit);
    });
  } catch (err) {
    await exited(child);
    await cleanUp();
    throw err;
  }

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    output: () => output,
    send(message) {
      child.send(message);
    },
    async kill(signal) {
      const done = exited(child);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await done;
    },
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const done = exited(child);
          child.kill("SIGINT");
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_DEADLINE_MS);
          await done;
          clearTimeout(timer);
        }
        await cleanUp();
      })();
      return stopping;
    },
  };
}

/**
 * Runs `gantry <args>` expecting it to exit on its own with an error. Starting up instead is a
 * failure reported at once (the "listening" line), not after the deadline.
 */
export async function runGantryExpectingFailure(args: string[], env?: Record<string, string>, deadlineMs = FAILURE_DEADLINE_MS): Promise<FailedRun> {
  const child = spawnGantry(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise<FailedRun>((resolveRun, rejectRun) => {
    const give = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      rejectRun(new Error(`gantry ${args.join(" ")} ${why}.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(() => give(`did not exit within ${deadlineMs / 1000} s`), deadlineMs);
    child.stdout!.on("data", () => {
      if (stdout.split("\n").some((line) => listeningUrl(line))) give("started listening instead of failing");
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === null) {
        rejectRun(new Error(`gantry ${args.join(" ")} was killed by ${signal}.\nstderr:\n${stderr}`));
        return;
      }
      resolveRun({ code, stdout, stderr });
    });
  });
}
