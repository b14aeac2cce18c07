// Gantry as a user gets it: `npm pack` of this repository, installed with `npm install <tarball>` into
// a new project made by `npm init -y` (so "type": "commonjs"), whose TypeScript graph uses `import`.
// `npx gantry dev` must serve it, the web view included, the SDK must run it, and a SIGTERM to npx
// (how a process manager stops `npx gantry …`) must stop the server too.
//
// Everything lives in one temp dir, removed at the end. The install fetches from the npm registry
// (npm's own cache makes repeats faster); better-sqlite3's native module is handed to its installer
// as a local prebuild made from this checkout's build, in the temp dir, so the test does not spend
// minutes compiling SQLite: what it proves is that Gantry's package installs and runs.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const INSTALL_MS = 15 * 60_000;
const START_MS = 120_000;

let dir: string;
let project: string;
let tarball: string;

/** `npm` with the output kept for the failure message. */
async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const failure = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm ${args.join(" ")} failed in ${cwd}: ${failure.message}\n${failure.stdout ?? ""}\n${failure.stderr ?? ""}`);
  }
}

/** better-sqlite3's prebuilt archive, as prebuild-install names it, made from this checkout's build. */
async function localSqlitePrebuild(into: string): Promise<{ version: string; dir: string }> {
  const pkg = join(REPO_ROOT, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string };
  const stage = join(into, "stage");
  mkdirSync(join(stage, "build", "Release"), { recursive: true });
  cpSync(join(pkg, "build", "Release", "better_sqlite3.node"), join(stage, "build", "Release", "better_sqlite3.node"));
  const prebuilds = join(into, "prebuilds");
  mkdirSync(prebuilds);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run("tar", ["-czf", join(prebuilds, name), "-C", stage, "build"]);
  return { version, dir: prebuilds };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gantry-package-"));
  // The checkout packed as it is, its web view built by the `npm install` that set it up (the
  // prepare script): building it again here would empty ui/dist under the test files serving it
  // meanwhile, and cost tens of seconds. The first test checks that the view is in the tarball.
  const packed = await npm(["pack", "--ignore-scripts", "--pack-destination", dir], REPO_ROOT);
  tarball = join(dir, packed.trim().split("\n").at(-1)!);

  project = join(dir, "my-agent");
  mkdirSync(join(project, "src"), { recursive: true });
  await npm(["init", "-y"], project);
  writeFileSync(
    join(project, "src", "agent.ts"),
    [
      'import { Annotation, StateGraph } from "@langchain/langgraph";',
      "",
      "const State = Annotation.Root({ name: Annotation<string>, greeting: Annotation<string> });",
      "export const graph = new StateGraph(State)",
      '  .addNode("greet", (state: typeof State.State) => ({ greeting: `Hello, ${state.name}` }))',
      '  .addEdge("__start__", "greet")',
      "  .compile();",
      "",
    ].join("\n"),
  );
  writeFileSync(join(project, "langgraph.json"), JSON.stringify({ graphs: { agent: "./src/agent.ts:graph" } }, null, 2));

  const sqlite = await localSqlitePrebuild(dir);
  // The same better-sqlite3 as this checkout's, so that its prebuild is the one that fits.
  const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(project, "package.json"), JSON.stringify({ ...manifest, overrides: { "better-sqlite3": sqlite.version } }, null, 2));
  await npm(["install", "--prefer-offline", tarball], project, { ...process.env, npm_config_better_sqlite3_local_prebuilds: sqlite.dir });
}, INSTALL_MS);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  listening: Record<string, unknown>;
  output: () => string;
}

/** `npx gantry <args>` in the project, up to its "listening" line. */
function startNpx(args: string[]): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_JSON: "1" };
  for (const key of ["DATABASE_URL", "DATABASE_URI", "POSTGRES_URI", "POSTGRES_URI_CUSTOM", "REDIS_URL", "REDIS_URI", "REDIS_URI_CUSTOM", "PORT"])
    delete env[key];
  const child = spawn("npx", ["gantry", ...args], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => rejectStart(new Error(`npx gantry did not log "listening" within ${START_MS} ms:\n${output}`)), START_MS);
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      for (const line of output.split("\n")) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg !== "listening") continue;
        clearTimeout(timer);
        resolveStart({ child, url: String(entry.url), listening: entry, output: () => output });
        return;
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      rejectStart(new Error(`npx gantry exited (${code}) before listening:\n${output}`));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

describe("the npm package", () => {
  it("ships the built web view and no tests", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball], { maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.split("\n");
    expect(files).toContain("package/ui/dist/index.html");
    expect(files).toContain("package/bin/gantry.js");
    expect(files.filter((f) => f.endsWith(".test.ts"))).toEqual([]);
    expect(readdirSync(join(project, "node_modules", "gantry", "ui", "dist"))).toContain("index.html");
  });

  it(
    "serves a CommonJS project's TypeScript graph with `npx gantry dev`, and stops when npx gets SIGTERM",
    async () => {
      const dataDir = join(dir, "data");
      const server = await startNpx(["dev", "--port", "0", "--data-dir", dataDir]);
      try {
        expect(server.listening.view).toBe(`${server.url}/gantry`);
        const client = new Client({ apiUrl: server.url });
        const thread = await client.threads.create();
        const values = await client.runs.wait(thread.thread_id, "agent", { input: { name: "Ada" } });
        expect(values).toMatchObject({ greeting: "Hello, Ada" });
        const view = await fetch(`${server.url}/gantry`);
        expect(view.status).toBe(200);
        expect(await view.text()).toMatch(/<html/i);
      } finally {
        // npx passes no signal on; the server notices its npm parent is gone and stops itself.
        server.child.kill("SIGTERM");
      }
      const deadline = Date.now() + 60_000;
      while ((await answers(`${server.url}/ok`)) && Date.now() < deadline) await new Promise((tick) => setTimeout(tick, 100));
      expect(await answers(`${server.url}/ok`), server.output()).toBe(false);
    },
    3 * START_MS,
  );
});
