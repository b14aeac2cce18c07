// repo_url reaches only what it should (issue 32): local repositories only under
// GANTRY_ALLOWED_REPO_ROOTS (none when unset, with a 422 naming the setting), never /proc, the
// control plane's data dir or Gantry's install; no loopback, link-local or metadata host. The
// builder checks again as git connects: a link swapped after creation is refused then.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Builder } from "../../src/control-plane/builder/builder.js";
import {
  api,
  controlPlaneDataDir,
  createBody,
  createFixtureRepo,
  REPO_ROOT,
  startControlPlane,
  unconfined,
  type Api,
  type FixtureRepo,
  type RunningControlPlane,
} from "./support.js";

describe("repo_url", { timeout: 60_000 }, () => {
  let repo: FixtureRepo;
  const planes: RunningControlPlane[] = [];
  let everywhere: Api;
  let noLocal: Api;
  let everywhereDir: string;

  beforeAll(async () => {
    repo = createFixtureRepo();
    repo.commit("v1");
    // Every local path allowed: what is refused then is refused for what it is, not where.
    const first = await startControlPlane(controlPlaneDataDir(), { GANTRY_ALLOWED_REPO_ROOTS: `${tmpdir()},/`, GANTRY_ALLOWED_REPO_HOSTS: "" });
    const second = await startControlPlane(controlPlaneDataDir(), { GANTRY_ALLOWED_REPO_ROOTS: "", GANTRY_ALLOWED_REPO_HOSTS: "" });
    planes.push(first, second);
    everywhere = api(first.url);
    everywhereDir = first.dataDir;
    noLocal = api(second.url);
  });

  afterAll(async () => {
    for (const cp of planes) {
      await cp.stop();
      rmSync(cp.dataDir, { recursive: true, force: true });
    }
    repo?.remove();
  });

  const create = (client: Api, repoUrl: string) => client.call("POST", "/v2/deployments", createBody(`repo-${Date.now()}`, repoUrl));

  it("refuses every local repository when GANTRY_ALLOWED_REPO_ROOTS is unset, naming the setting", async () => {
    for (const url of [repo.url, repo.url.slice("file://".length)]) {
      const response = await create(noLocal, url);
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["body", "source_config", "repo_url"]);
      expect(response.body.detail[0].msg).toContain("GANTRY_ALLOWED_REPO_ROOTS");
    }
    expect((await noLocal.call("GET", "/v2/deployments")).body.resources).toEqual([]);
  });

  it("accepts a repository under an allowed root", async () => {
    expect((await create(everywhere, repo.url)).status).toBe(201);
  });

  it("refuses /proc, the control plane's data dir and Gantry's install, however they are reached", async () => {
    for (const url of [
      "file:///proc/self/cwd",
      "/proc/self/root/tmp",
      `file://${everywhereDir}`,
      `${everywhereDir}/builds`,
      REPO_ROOT,
      `file://${REPO_ROOT}/.git`,
      "/",
    ]) {
      const response = await create(everywhere, url);
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].msg, url).toMatch(/\/proc|data or install directory/);
    }
    // The likely case, a project with Gantry installed in it: the refusal says what to do instead.
    const own = await create(everywhere, REPO_ROOT);
    expect(own.body.detail[0].msg).toContain("deploy a clone kept elsewhere (git clone --bare), or run a control plane installed outside");
  });

  it("refuses loopback, link-local and metadata hosts", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "https://[fe80::1]/repo.git",
      "http://metadata.google.internal/x.git",
      "http://localhost./x.git",
      "https://127.0.0.1:8124/x.git",
      "git://[::1]/x.git",
      "ssh://git@169.254.169.254/x.git",
      "git@169.254.169.254:team/agent.git",
    ]) {
      const response = await create(everywhere, url);
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].msg, url).toContain("GANTRY_ALLOWED_REPO_HOSTS");
    }
  });

  it("checks again when the build connects: a link re-pointed after creation is refused then", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-repo-link-"));
    try {
      const link = join(dir, "agent.git");
      symlinkSync(REPO_ROOT, link);
      const builder = new Builder({
        buildsDir: join(dir, "builds"),
        stepTimeoutMs: 30_000,
        gitIdleMs: 30_000,
        gitEnv: process.env,
        sandbox: await unconfined(dir),
        repoPolicy: { allowedRoots: [tmpdir()], forbiddenRoots: [REPO_ROOT], allowedHosts: [] },
      });
      const request = {
        deployment_id: "0190a1c1-0000-7000-8000-000000000002",
        repo_url: `file://${link}`,
        repo_ref: "main",
        pinned_commit_sha: null,
        langgraph_config_path: "langgraph.json",
        install_command: null,
        build_command: null,
        env: {},
      };
      const outcome = await builder.build(
        request,
        () => {},
        async () => {},
      );
      expect(outcome).toEqual({ ok: false, reason: expect.stringMatching(/^The repository is refused: .*data or install directory/) });
      const metadata = await builder.build(
        { ...request, repo_url: "http://169.254.169.254/x.git" },
        () => {},
        async () => {},
      );
      expect(metadata).toEqual({ ok: false, reason: expect.stringContaining("link-local") });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
