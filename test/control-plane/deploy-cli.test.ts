// `gantry deploy` as CI runs it: a real child process against a real control plane, judged by its
// exit code, the URL on stdout and the progress and log tail on stderr.
import { Client } from "@langchain/langgraph-sdk";
import { spawn } from "node:child_process";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { API_KEY, BROKEN_GRAPH, fetchVia, REPO_ROOT, useControlPlane } from "./support.js";

function gantryDeploy(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "bin", "gantry.js"), "deploy", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("gantry deploy", { timeout: 90_000 }, () => {
  const suite = useControlPlane();
  const common = () => ["--url", suite.cp.url, "--name", "cli-agent", "--poll-interval", "0.2", "--timeout", "80"];

  beforeAll(() => {
    suite.repo.commit("v1");
  });

  it("creates the deployment from a local checkout named relative to here, shows each status, prints the URL and exits 0", async () => {
    // The checkout lies under GANTRY_ALLOWED_REPO_ROOTS (support.ts); gantry deploy sends its absolute path.
    const checkout = relative(REPO_ROOT, fileURLToPath(suite.repo.url));
    const result = await gantryDeploy([...common(), "--repo-url", checkout, "--secret", "FIXTURE_SECRET"], {
      GANTRY_API_KEY: API_KEY,
      FIXTURE_SECRET: "from-env",
    });
    expect(result.code, result.stderr).toBe(0);
    for (const status of ["BUILDING", "DEPLOYING", "DEPLOYED"]) expect(result.stderr).toContain(status);
    const url = result.stdout.trim();
    expect(url).toMatch(new RegExp(`^${suite.cp.url}/deployments/[0-9a-f-]{36}$`));
    const answer = (await new Client({ apiUrl: url, apiKey: API_KEY }).runs.wait(null, "agent", { input: { input: "ci" } })) as {
      reply: string;
      secret: string;
    };
    expect(answer).toMatchObject({ reply: "v1:ci", secret: "from-env" });
  });

  it("exits 1 with the tail of the build log when the new commit fails to build", async () => {
    suite.repo.commit("broken", { "src/agent.ts": BROKEN_GRAPH });
    const result = await gantryDeploy(common(), { GANTRY_API_KEY: API_KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("BUILD_FAILED");
    expect(result.stderr).toContain("this graph fails on import");
    expect(result.stdout).toBe("");
  });

  // The last three run side by side: the next but one has a deployment of its own, and the last is
  // refused before it reaches any deployment.
  it.concurrent("sets the deployment's custom URL with --custom-url and prints it, and the SDK reaches the new revision there", async ({ expect }) => {
    suite.repo.commit("v2");
    // A name pointed at the control plane: it routes the name by Host, apart from its own addresses.
    const customUrl = `http://cli-agent-${Date.now()}.example.test`;
    const result = await gantryDeploy([...common(), "--custom-url", customUrl], { GANTRY_API_KEY: API_KEY });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(customUrl);
    const answer = (await new Client({ apiUrl: customUrl, apiKey: API_KEY, callerOptions: { fetch: fetchVia(suite.cp.url) } }).runs.wait(null, "agent", {
      input: { input: "ci" },
    })) as { reply: string };
    expect(answer.reply).toBe("v2:ci");
  });

  it.concurrent("sets the build's commands with --install-command and --build-command, and runs them", async ({ expect }) => {
    const checkout = relative(REPO_ROOT, fileURLToPath(suite.repo.url));
    const commands = ["--install-command", "echo installed-by-the-cli", "--build-command", "echo built-by-the-cli"];
    const args = ["--url", suite.cp.url, "--name", "cli-commands", "--repo-url", checkout, ...commands, "--poll-interval", "0.2", "--timeout", "80"];
    const result = await gantryDeploy(args, { GANTRY_API_KEY: API_KEY });
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim().split("/").at(-1)!;
    const deployment = (await suite.client.call("GET", `/v2/deployments/${id}`)).body;
    expect(deployment.source_config).toMatchObject({ install_command: "echo installed-by-the-cli", build_command: "echo built-by-the-cli" });
    const logs = await suite.client.call("GET", `/v2/deployments/${id}/revisions/${deployment.latest_revision_id}/logs?type=build&limit=1000`);
    const messages = logs.body.logs.map((l: { message: string }) => l.message);
    expect(messages).toEqual(expect.arrayContaining(["$ echo installed-by-the-cli", "installed-by-the-cli", "$ echo built-by-the-cli", "built-by-the-cli"]));
  });

  it.concurrent("exits 2 when a new deployment has no --repo-url, and 1 when the key is refused", async ({ expect }) => {
    expect((await gantryDeploy(["--url", suite.cp.url, "--name", "never-created"], { GANTRY_API_KEY: API_KEY })).code).toBe(2);
    const refused = await gantryDeploy(common(), { GANTRY_API_KEY: "wrong" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("403");
  });
});
