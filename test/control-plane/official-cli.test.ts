// The official JS CLI (`langgraphjs deploy --remote`, @langchain/langgraph-cli in node_modules) as a
// child process against a real `gantry control-plane`, from a project directory with its own
// package-lock.json: it uploads the project, the control plane builds and rolls it out, and the
// CLI's own progress, exit code, URL, list, revisions, logs and delete commands work unchanged.
// Hostile archives PUT to a real upload URL are refused with a 4xx and write nothing.
import { Client } from "@langchain/langgraph-sdk";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tarGzOf } from "./tar-fixture.js";
import { API_KEY, BROKEN_GRAPH, REPO_ROOT, graphSource, useControlPlane, waitFor } from "./support.js";

const CLI = join(REPO_ROOT, "node_modules", "@langchain", "langgraph-cli", "dist", "cli", "cli.mjs");
const projects = mkdtempSync(join(tmpdir(), "gantry-official-cli-"));
afterAll(() => rmSync(projects, { recursive: true, force: true }));

/** A JS project as a user has it: package.json and its lock file, langgraph.json, a .env the CLI reads secrets from. */
function project(name: string, graph: string): string {
  const dir = join(projects, name);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write("package.json", JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }, null, 2));
  write(
    "package-lock.json",
    JSON.stringify({ name, version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": { name, version: "1.0.0" } } }, null, 2),
  );
  write("langgraph.json", JSON.stringify({ node_version: "20", graphs: { agent: "./src/agent.ts:graph" } }, null, 2));
  write("src/agent.ts", graph);
  write(".env", "FIXTURE_SECRET=from-dotenv\n");
  write(".dockerignore", ".env\n");
  return dir;
}

interface CliResult {
  code: number | null;
  out: string;
}

/** The official CLI, offline: every call goes to --host-url, analytics are off. */
function langgraph(cwd: string, args: string[]): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANGSMITH_API_KEY: API_KEY, LANGGRAPH_CLI_NO_ANALYTICS: "1", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.once("close", (code) => done({ code, out }));
  });
}

describe("the official langgraph CLI deploys to the control plane", { timeout: 240_000 }, () => {
  // A generous health timeout: the machine running the suite may be busy, and a slow start is not what this tests.
  const suite = useControlPlane();
  const deploy = (cwd: string) => langgraph(cwd, ["deploy", "--host-url", suite.cp.url, "--remote", "--no-input"]);
  let deploymentId: string;
  let url: string;

  it("creates the deployment from the project directory, follows it to DEPLOYED and prints its URL", async () => {
    const dir = project("cli-agent", graphSource("v1"));
    const result = await deploy(dir);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain("Creating deployment 'cli-agent'");
    expect(result.out).toContain("Uploading source");
    expect(result.out).toContain("Deployment successful!");
    deploymentId = /Deployment ID: ([0-9a-f-]{36})/.exec(result.out)![1]!;
    url = /URL: (\S+)/.exec(result.out)![1]!;
    expect(url).toBe(`${suite.cp.url}/deployments/${deploymentId}`);
    // Its "View status" link opens the dashboard's page of the deployment.
    const status = await fetch(/View status: (\S+)/.exec(result.out)![1]!, { redirect: "manual" });
    expect(status.headers.get("location")).toBe(`/view/${deploymentId}`);
    const answer = (await new Client({ apiUrl: url, apiKey: API_KEY }).runs.wait(null, "agent", { input: { input: "hi" } })) as Record<string, string>;
    expect(answer).toMatchObject({ reply: "v1:hi", secret: "from-dotenv" });
  });

  it("updates the same deployment with a second revision, with no failed request during the rollout", async () => {
    const dir = project("cli-agent", graphSource("v2"));
    const client = new Client({ apiUrl: url, apiKey: API_KEY });
    let rolling = true;
    const failures: string[] = [];
    const replies = new Set<string>();
    const probe = (async () => {
      while (rolling) {
        try {
          const answer = (await client.runs.wait(null, "agent", { input: { input: "p" } })) as { reply: string };
          replies.add(answer.reply);
        } catch (err) {
          failures.push(String(err));
        }
        await new Promise((done) => setTimeout(done, 100));
      }
    })();
    const result = await deploy(dir);
    rolling = false;
    await probe;
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain(`Found existing deployment (ID: ${deploymentId})`);
    expect(failures).toEqual([]);
    expect(replies).toContain("v1:p");
    const answer = (await client.runs.wait(null, "agent", { input: { input: "hi" } })) as { reply: string };
    expect(answer.reply).toBe("v2:hi");
    const revisions = await suite.client.call("GET", `/v2/deployments/${deploymentId}/revisions`);
    expect(revisions.body.resources.map((r: { status: string; source: string }) => [r.source, r.status])).toEqual([
      ["internal_source", "DEPLOYED"],
      ["internal_source", "DEPLOYED"],
    ]);
    expect(revisions.body.resources[0].source_revision_config.source_tarball_path).toMatch(new RegExp(`^uploads/${deploymentId}/[0-9a-f-]{36}\\.tar\\.gz$`));
  });

  // This test and the next run side by side: the next deploys a project of its own, and the CLI
  // spends most of a deploy waiting between its polls (3 s apart).
  it.concurrent("lists deployments and revisions, and shows build and deploy logs", async ({ expect }) => {
    const dir = join(projects, "cli-agent");
    const list = await langgraph(dir, ["deploy", "list", "--host-url", suite.cp.url]);
    expect(list.code, list.out).toBe(0);
    expect(list.out).toMatch(new RegExp(`${deploymentId}\\s+cli-agent\\s+${url}`));
    const revisions = await langgraph(dir, ["deploy", "revisions", "list", deploymentId, "--host-url", suite.cp.url]);
    expect(revisions.code, revisions.out).toBe(0);
    expect(revisions.out).toMatch(/DEPLOYED[\s\S]*REPLACED/);
    const build = await langgraph(dir, ["deploy", "logs", "--deployment-id", deploymentId, "--type", "build", "--host-url", suite.cp.url]);
    expect(build.code, build.out).toBe(0);
    expect(build.out).toMatch(/\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] \[INFO\] Unpacked \d+ files/);
    expect(build.out).toContain("Imported graph: agent");
    const runtime = await langgraph(dir, ["deploy", "logs", "--name", "cli-agent", "--host-url", suite.cp.url, "--limit", "500"]);
    expect(runtime.code, runtime.out).toBe(0);
    expect(runtime.out).toContain("Healthy: GET");
    const errors = await langgraph(dir, ["deploy", "logs", "--name", "cli-agent", "--host-url", suite.cp.url, "--level", "error"]);
    expect(errors.out).not.toContain("Healthy: GET");
  });

  it.concurrent("exits 1 on a project whose graph fails, with the last build log lines", async ({ expect }) => {
    const dir = project("cli-broken", BROKEN_GRAPH);
    const result = await deploy(dir);
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain("Last build log lines:");
    expect(result.out).toContain("this graph fails on import");
    expect(result.out).toContain("Deployment failed");
  });

  it("refuses archives with a path escape or a link, and upload URLs that are forged or used", async () => {
    const escaped = `escaped-${randomBytes(4).toString("hex")}.txt`;
    const put = async (entries: Parameters<typeof tarGzOf>[0], uploadUrl?: string) => {
      const target = uploadUrl ?? (await suite.client.call("POST", `/v2/deployments/${deploymentId}/upload-url`)).body.upload_url;
      const response = await fetch(target, { method: "PUT", headers: { "Content-Type": "application/gzip" }, body: tarGzOf(entries) });
      return { status: response.status, body: await response.json(), target };
    };
    const traversal = await put([
      { path: "langgraph.json", content: "{}" },
      { path: `../../${escaped}`, content: "x" },
    ]);
    expect(traversal.status).toBe(400);
    expect(traversal.body.detail).toContain("escapes the project directory");
    const link = await put([
      { path: "out", type: "2", linkpath: "/tmp" },
      { path: `out/${escaped}`, content: "x" },
    ]);
    expect(link.status).toBe(400);
    expect(link.body.detail).toContain("symbolic link");
    for (const dir of [suite.cp.dataDir, join(suite.cp.dataDir, ".."), join(suite.cp.dataDir, "uploads"), tmpdir()])
      expect(existsSync(join(dir, escaped))).toBe(false);
    expect(readdirSync(join(suite.cp.dataDir, "uploads", deploymentId)).filter((f) => !f.endsWith(".tar.gz"))).toEqual([]);

    const good = await put([{ path: "langgraph.json", content: "{}" }]);
    expect(good.status).toBe(200);
    expect((await put([{ path: "langgraph.json", content: "{}" }], good.target)).status).toBe(409);
    expect((await put([{ path: "a", content: "b" }], good.target.replace(/signature=[^&]+/, "signature=forged"))).status).toBe(403);
    // Another deployment's object path is not this one's source.
    const foreign = await suite.client.call("PATCH", `/v2/deployments/${deploymentId}`, {
      revision_source: "internal_source",
      source_revision_config: { source_tarball_path: `uploads/${randomUUID()}/${randomUUID()}.tar.gz`, langgraph_config_path: "langgraph.json" },
    });
    expect(foreign.status).toBe(400);
  });

  it("answers internal_docker (a local image build) with the error naming --remote", async () => {
    const created = await suite.client.call("POST", "/v2/deployments", {
      name: "docker-agent",
      source: "internal_docker",
      source_config: { deployment_type: "dev" },
      source_revision_config: {},
      secrets: [],
    });
    expect(created.status).toBe(400);
    expect(created.body.detail).toContain("--remote");
    const token = await suite.client.call("POST", `/v2/deployments/${deploymentId}/push-token`);
    expect(token.status).toBe(400);
    expect(token.body.detail).toContain("no image registry");
  });

  it("deletes the deployment, its builds and its uploaded archives", async () => {
    const result = await langgraph(join(projects, "cli-agent"), ["deploy", "delete", deploymentId, "--force", "--host-url", suite.cp.url]);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain(`Deleted deployment ${deploymentId}`);
    await waitFor("the deployment to be purged", async () =>
      (await suite.client.call("GET", `/v2/deployments/${deploymentId}`)).status === 404 ? true : undefined,
    );
    expect(existsSync(join(suite.cp.dataDir, "uploads", deploymentId))).toBe(false);
    expect(existsSync(join(suite.cp.dataDir, "builds", deploymentId))).toBe(false);
  });
});

const randomUUID = () => globalThis.crypto.randomUUID();
