// Starts the servers a benchmark measures as child processes — `gantry dev` on a fresh data
// directory, the JS reference server in memory, a bare node:http floor — and stops them again,
// also when the benchmark fails or is interrupted (Ctrl-C): no child outlives the script.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BENCH_CONFIG = join(ROOT, "bench/langgraph.json");

export interface BenchServer {
  url: string;
  pid: number;
  /** The server's JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  /** Resident set size of the server process, in MiB (Linux /proc). */
  rssMiB(): number;
  stop(): Promise<void>;
}

const running = new Set<{ child: ChildProcess; dir: string | undefined }>();

function killAllNow(): void {
  for (const { child, dir } of running) {
    child.kill("SIGKILL");
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  running.clear();
}

// Installed once: on exit (normal, failure or a signal) every child still running is killed.
process.once("exit", killAllNow);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => {
    killAllNow();
    process.exit(130);
  });
}

interface SpawnSpec {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Temporary directory removed when the server stops. */
  dir?: string;
  /** Reads the listening URL from one output line, or returns undefined. */
  readyUrl(line: string): string | undefined;
}

async function spawnServer(spec: SpawnSpec): Promise<BenchServer> {
  const child = spawn(process.execPath, spec.args, { env: spec.env as NodeJS.ProcessEnv, cwd: spec.cwd, stdio: ["ignore", "pipe", "pipe"] });
  const entry = { child, dir: spec.dir };
  running.add(entry);
  const jsonLines: string[] = [];
  const recent: string[] = [];
  let partial = "";
  let onLine: (line: string) => void = () => {};
  const onData = (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("{")) jsonLines.push(line);
      if (recent.push(line) > 40) recent.shift();
      onLine(line);
    }
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const deadline = setTimeout(() => reject(new Error(`${spec.name} did not start in 60 s:\n${recent.join("\n")}`)), 60_000);
    onLine = (line) => {
      const found = spec.readyUrl(line);
      if (found === undefined) return;
      clearTimeout(deadline);
      onLine = () => {};
      resolveUrl(found);
    };
    void exited.then(() => reject(new Error(`${spec.name} exited early:\n${recent.join("\n")}`)));
  }).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    url,
    pid: child.pid!,
    logs: () => jsonLines.map((line) => JSON.parse(line) as Record<string, unknown>),
    rssMiB: () => {
      const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
      return Number(kib) / 1024;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      running.delete(entry);
      if (spec.dir) rmSync(spec.dir, { recursive: true, force: true });
    },
  };
}

function jsonField(line: string, msg: RegExp, field: string): string | undefined {
  if (!line.startsWith("{") || !msg.test(line)) return undefined;
  const value = (JSON.parse(line) as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
}

/**
 * BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server under load.
 * `root` starts another source tree's Gantry (a git worktree) on its own bench/langgraph.json.
 */
export async function startGantryForBench(env: Record<string, string> = {}, root = ROOT): Promise<BenchServer> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const dataDir = mkdtempSync(join(tmpdir(), "gantry-bench-"));
  return spawnServer({
    name: `gantry (${root})`,
    args: [...nodeArgs, join(root, "bin/gantry.js"), "dev", "--config", join(root, "bench/langgraph.json"), "--port", "0", "--data-dir", dataDir],
    env: { ...process.env, LOG_JSON: "1", ...env },
    dir: dataDir,
    readyUrl: (line) => jsonField(line, /"listening"/, "url"),
  });
}

/**
 * The JS reference server (`@langchain/langgraph-api`, what `langgraphjs dev` runs), started the
 * way the CLI starts it but without the CLI's wrapper: no file watcher, no browser, no tunnel, no
 * analytics, no `.gitignore` edit. Its in-memory state persists to `<cwd>/.langgraph_api`, so its
 * cwd is a fresh directory inside bench/ (graphs resolve their packages from this repository) with
 * the graph paths of bench/langgraph.json rewritten relative to it. LangSmith variables are dropped
 * so it makes no outside calls. `config` serves another langgraph.json (a test's fixture project);
 * its state directory is then made next to that file.
 */
export async function startReferenceForBench(config = BENCH_CONFIG): Promise<BenchServer> {
  const require = createRequire(import.meta.url);
  const cliPackage = require.resolve("@langchain/langgraph-cli/package.json");
  const apiRequire = createRequire(cliPackage);
  const apiDist = dirname(apiRequire.resolve("@langchain/langgraph-api"));
  const entrypoint = join(apiDist, "entrypoint.mjs");
  const preload = pathToFileURL(join(apiDist, "../preload.mjs")).toString();
  const cwd = mkdtempSync(join(config === BENCH_CONFIG ? join(ROOT, "bench") : dirname(config), ".reference-"));
  const parsed = JSON.parse(readFileSync(config, "utf8")) as { graphs: Record<string, string> };
  const graphs = Object.fromEntries(
    Object.entries(parsed.graphs).map(([id, spec]) => {
      const [file, symbol] = spec.split(":");
      return [id, `${relative(cwd, resolve(dirname(config), file!))}:${symbol}`];
    }),
  );
  const payload = JSON.stringify({ port: 0, nWorkers: 10, host: "127.0.0.1", graphs, cwd });
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(LANGSMITH|LANGCHAIN)_/.test(key)));
  return spawnServer({
    name: "reference server",
    // The ppid argument names the CLI's IPC pipe (used to open a browser); none listens on 0.
    args: ["--import", "tsx", "--import", preload, entrypoint, "0", payload],
    env: { ...env, NODE_ENV: "development", LOG_JSON: "true" },
    cwd: ROOT,
    dir: cwd,
    readyUrl: (line) => {
      const address = /Server running at (\S+)/.exec(jsonField(line, /Server running at/, "event") ?? "")?.[1];
      return address ? `http://${address}` : undefined;
    },
  });
}

/** A bare node:http server answering every request with the same JSON: the HTTP floor. */
export const startHttpFloorForBench = () => startScript("http floor", "bench/http-floor-server.ts");

/** node:http plus graph.invoke and nothing else (bare-graph-server.ts): the least runs.wait can cost. */
export const startBareGraphServerForBench = () => startScript("bare graph server", "bench/bare-graph-server.ts");

/** A server script of bench/ that prints `{"msg":"listening","url":…}` once it listens. */
function startScript(name: string, file: string): Promise<BenchServer> {
  return spawnServer({
    name,
    args: ["--import", "tsx", join(ROOT, file)],
    env: process.env,
    readyUrl: (line) => jsonField(line, /"listening"/, "url"),
  });
}

/**
 * `gantry serve`, one replica, on the given database URL (a schema of its own in the search_path)
 * and Redis key prefix; several started on the same two share their queue.
 */
export async function startServeForBench(
  databaseUrl: string,
  redisUrl: string,
  prefix: string,
  root = ROOT,
  env: Record<string, string> = {},
): Promise<BenchServer> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  return spawnServer({
    name: `gantry serve (${root})`,
    args: [...nodeArgs, join(root, "bin/gantry.js"), "serve", "--config", join(root, "bench/langgraph.json"), "--port", "0", "--host", "127.0.0.1"],
    env: { ...process.env, LOG_JSON: "1", DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, ...env },
    readyUrl: (line) => jsonField(line, /"listening"/, "url"),
  });
}
