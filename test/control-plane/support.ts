// Shared by the control-plane tests: a local bare git repository holding a small TypeScript graph
// project, `gantry control-plane` as a real child process, and both together for a suite.
//
// The fixture's package.json has no dependencies and no lock file, so builds install nothing. Its
// graph imports @langchain/langgraph by ordinary Node resolution: the control plane's data dir (and
// so every clone) lives under this repository's .gantry/ folder, and the search for node_modules
// walks up from the clone to Gantry's own. No NODE_PATH and no symlink: a user's project resolves
// its own node_modules, installed by `npm ci`, the same way.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import type { RepoPolicy } from "../../src/control-plane/repo-policy.js";
import { Sandbox } from "../../src/control-plane/sandbox/sandbox.js";
import { createLogger } from "../../src/logging.js";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const BIN = join(REPO_ROOT, "bin", "gantry.js");

export const API_KEY = "gantry_test_" + randomBytes(16).toString("hex");
export const SECRETS_KEY = randomBytes(32).toString("base64");

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" },
  }).trim();

export function graphSource(version: string): string {
  return `import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  input: Annotation<string>,
  reply: Annotation<string>,
  secret: Annotation<string>,
});

export const graph = new StateGraph(State)
  .addNode("respond", (state: typeof State.State) => ({
    reply: "${version}:" + state.input,
    secret: process.env.FIXTURE_SECRET ?? "(unset)",
  }))
  .addEdge(START, "respond")
  .addEdge("respond", END)
  .compile();
`;
}

/**
 * A graph whose second step waits until the file named in its input exists: a test that sees the
 * first step's event before creating the file proves the stream was not buffered on the way.
 */
const GATED_GRAPH = `import { existsSync } from "node:fs";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ gate: Annotation<string>, steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });

export const graph = new StateGraph(State)
  .addNode("first", () => ({ steps: ["first"] }))
  .addNode("second", async (state: typeof State.State) => {
    while (!existsSync(state.gate)) await new Promise((done) => setTimeout(done, 20));
    return { steps: ["second"] };
  })
  .addEdge(START, "first")
  .addEdge("first", "second")
  .addEdge("second", END)
  .compile();
`;

export const BROKEN_GRAPH = `throw new Error("this graph fails on import");\nexport const graph = undefined;\n`;

export interface FixtureRepo {
  /** file:// URL of the bare repository. */
  url: string;
  /** Commits the project with its graph answering "<version>:<input>"; returns the commit sha. */
  commit(version: string, files?: Record<string, string>): string;
  remove(): void;
}

export function createFixtureRepo(): FixtureRepo {
  const root = mkdtempSync(join(tmpdir(), "gantry-cp-repo-"));
  const bare = join(root, "project.git");
  const work = join(root, "work");
  mkdirSync(work);
  git(root, "init", "--quiet", "--bare", "--initial-branch=main", bare);
  git(work, "init", "--quiet", "--initial-branch=main");
  git(work, "remote", "add", "origin", bare);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), text);
  };
  return {
    url: "file://" + bare,
    commit(version, files = {}) {
      write("package.json", JSON.stringify({ name: "fixture-agent", private: true, type: "module" }, null, 2));
      write("langgraph.json", JSON.stringify({ graphs: { agent: "./src/agent.ts:graph", gated: "./src/gated.ts:graph" } }, null, 2));
      write("src/agent.ts", graphSource(version));
      write("src/gated.ts", GATED_GRAPH);
      for (const [path, text] of Object.entries(files)) write(path, text);
      git(work, "add", "-A");
      git(work, "commit", "--quiet", "--allow-empty", "-m", version);
      git(work, "push", "--quiet", "origin", "HEAD:main");
      return git(work, "rev-parse", "HEAD");
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A data dir under the repository's .gantry/, so clones resolve @langchain/langgraph from it. */
export function controlPlaneDataDir(): string {
  const dir = join(REPO_ROOT, ".gantry", "control-plane-tests", randomBytes(6).toString("hex"));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface RunningControlPlane {
  url: string;
  pid: number;
  dataDir: string;
  output(): string;
  /** SIGTERM and wait: the control plane stops its deployments' servers. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash: deployed servers are left for the next start to clean up. */
  kill(): Promise<void>;
}

/**
 * The fixture repositories live in the system's temp dir; /nonexistent holds the repositories
 * tests name to see a build fail; git servers of tests listen on 127.0.0.1. Anything else is refused.
 */
export const REPO_ENV = { GANTRY_ALLOWED_REPO_ROOTS: `${tmpdir()},/nonexistent`, GANTRY_ALLOWED_REPO_HOSTS: "127.0.0.1" };

export const FAST_ENV = {
  GANTRY_RECONCILE_INTERVAL_MS: "500",
  GANTRY_BUILD_ON_PUSH_INTERVAL_MS: "500",
  GANTRY_HEALTH_TIMEOUT_MS: "120000",
  GANTRY_DRAIN_TIMEOUT_MS: "10000",
};

export async function startControlPlane(dataDir: string, env: Record<string, string> = {}): Promise<RunningControlPlane> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv)) if (key.startsWith("GANTRY_") || key === "DATABASE_URL") delete childEnv[key];
  const child: ChildProcess = spawn(process.execPath, [BIN, "control-plane", "--port", "0", "--data-dir", dataDir], {
    cwd: REPO_ROOT,
    env: { ...childEnv, LOG_JSON: "1", GANTRY_SECRETS_KEY: SECRETS_KEY, GANTRY_API_KEYS: API_KEY, ...REPO_ENV, ...FAST_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const url = await new Promise<string>((resolveUrl, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      rejectStart(new Error(`control plane did not start:\n${output}`));
    }, 30_000);
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /"msg":"listening","url":"([^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      rejectStart(new Error(`control plane exited (${code}) before listening:\n${output}`));
    });
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { url, pid: child.pid!, dataDir, output: () => output, stop: () => signal("SIGTERM"), kill: () => signal("SIGKILL") };
}

export interface ControlPlaneSuite {
  /** The fixture project, with nothing committed yet: each suite commits what it deploys. */
  readonly repo: FixtureRepo;
  readonly cp: RunningControlPlane;
  /** The /v2 API with the suite's API key. */
  readonly client: Api;
}

/**
 * A fixture repository and a control plane on a data dir of its own, for the describe block this
 * is called in: started before its tests, stopped and removed after them.
 */
export function useControlPlane(env: Record<string, string> = {}): ControlPlaneSuite {
  let repo: FixtureRepo | undefined;
  let cp: RunningControlPlane | undefined;
  let client: Api | undefined;

  beforeAll(async () => {
    repo = createFixtureRepo();
    cp = await startControlPlane(controlPlaneDataDir(), env);
    client = api(cp.url);
  });

  afterAll(async () => {
    await cp?.stop();
    repo?.remove();
    if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("The suite's control plane was read before its beforeAll hook started it");
    return value;
  };
  return {
    get repo() {
      return started(repo);
    },
    get cp() {
      return started(cp);
    },
    get client() {
      return started(client);
    },
  };
}

export interface Api {
  // biome-ignore lint/suspicious/noExplicitAny: the control plane's JSON answers, read loosely by the tests
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

export function api(baseUrl: string, defaults: Record<string, string> = { "X-Api-Key": API_KEY }): Api {
  return {
    async call(method, path, body, headers = {}) {
      const response = await fetch(baseUrl + path, {
        method,
        headers: { ...defaults, ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

/** Polls until `check` returns a value, or fails with the last thing seen. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/** Waits for a revision to reach a terminal status and returns it. */
// biome-ignore lint/suspicious/noExplicitAny: the revision as the control plane answers it, read loosely by the tests
export async function revisionSettles(client: Api, deploymentId: string, revisionId: string, timeoutMs = 60_000): Promise<any> {
  return waitFor(
    `revision ${revisionId} to settle`,
    async () => {
      const { body } = await client.call("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      return ["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "SKIPPED"].includes(body.status) ? body : undefined;
    },
    timeoutMs,
  );
}

export function createBody(name: string, repoUrl: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    source: "github",
    source_config: { repo_url: repoUrl, deployment_type: "dev", build_on_push: false },
    source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
    secrets: [],
    ...extra,
  };
}

/** For tests of the builder alone: local repositories in the temp dir, and git servers on 127.0.0.1. */
export const TEST_REPO_POLICY: RepoPolicy = { allowedRoots: [tmpdir()], forbiddenRoots: [], allowedHosts: ["127.0.0.1"] };

/** For tests of the builder alone: deployment steps run unconfined, under `dir`. */
export function unconfined(dir: string): Promise<Sandbox> {
  return Sandbox.open({ mode: "off", path: "", deploymentsDir: join(dir, "deployments"), ownFiles: [], log: createLogger({ level: "error", json: true }) });
}

/** A file the deployment's own code can see: its data dir (the rest of the control plane's is hidden from it). */
export function deploymentFile(dataDir: string, deploymentId: string, name: string): string {
  return join(dataDir, "deployments", deploymentId, "data", name);
}

/**
 * A fetch that connects to `origin` (the control plane) whatever the URL's host, and sends that
 * host as Host: what a DNS name pointed at the control plane does, for a deployment's custom_url.
 */
export function fetchVia(origin: string): typeof fetch {
  const target = new URL(origin);
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    headers.host = url.host;
    return new Promise<Response>((resolveResponse, reject) => {
      const req = httpRequest({ host: target.hostname, port: target.port, method: init.method ?? "GET", path: url.pathname + url.search, headers }, (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") responseHeaders.set(name, value);
        const empty = res.statusCode === 204 || res.statusCode === 304;
        resolveResponse(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream), { status: res.statusCode ?? 502, headers: responseHeaders }));
      });
      req.on("error", reject);
      init.signal?.addEventListener("abort", () => req.destroy(new Error("aborted")));
      if (typeof init.body === "string") req.write(init.body);
      req.end();
    });
  }) as typeof fetch;
}
