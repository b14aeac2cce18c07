// Git remotes that never answer: a local TCP server that accepts connections and stays silent.
// The builder gives up on one after its idle limit and leaves no git process behind; a control
// plane cancels such a build when a newer revision or a DELETE overtakes it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Builder } from "../../src/control-plane/builder/builder.js";
import {
  api,
  controlPlaneDataDir,
  createBody,
  startControlPlane,
  TEST_REPO_POLICY,
  unconfined,
  waitFor,
  type Api,
  type RunningControlPlane,
} from "./support.js";

interface SilentRemote {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function silentRemote(): Promise<SilentRemote> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    socket.on("error", () => {});
    sockets.push(socket);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/team/agent.git`,
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** Processes (git and its remote-http helper) whose command line names the remote's port. */
function processesFor(port: number): string[] {
  const listing = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return listing.split("\n").filter((line) => line.includes(`127.0.0.1:${port}/`) && !line.includes("ps -eo"));
}

describe("a git remote that never answers", { timeout: 60_000 }, () => {
  let remote: SilentRemote;

  beforeAll(async () => {
    remote = await silentRemote();
  });

  afterAll(async () => {
    await remote?.close();
  });

  it("fails the build after the git idle limit and leaves no git process running", async () => {
    const buildsDir = mkdtempSync(join(tmpdir(), "gantry-builds-"));
    try {
      const builder = new Builder({
        buildsDir,
        stepTimeoutMs: 60_000,
        gitIdleMs: 1_500,
        gitEnv: process.env,
        sandbox: await unconfined(buildsDir),
        repoPolicy: TEST_REPO_POLICY,
      });
      const lines: string[] = [];
      const outcome = await builder.build(
        {
          deployment_id: "0190a1c1-0000-7000-8000-000000000001",
          repo_url: remote.url,
          repo_ref: "main",
          pinned_commit_sha: null,
          langgraph_config_path: "langgraph.json",
          install_command: null,
          build_command: null,
          env: process.env,
        },
        (_level, message) => lines.push(message),
        async () => {},
      );
      expect(outcome).toEqual({ ok: false, reason: expect.stringContaining("no output for 2 s") });
      await waitFor("git to be gone", async () => (processesFor(remote.port).length === 0 ? true : undefined), 5_000);
    } finally {
      rmSync(buildsDir, { recursive: true, force: true });
    }
  });

  describe("in a control plane", () => {
    let cp: RunningControlPlane;
    let client: Api;

    beforeAll(async () => {
      // An idle limit far past the test: what ends these builds is the cancel, not the limit.
      cp = await startControlPlane(controlPlaneDataDir(), { GANTRY_GIT_IDLE_TIMEOUT_MS: "600000", GANTRY_ALLOWED_REPO_HOSTS: "127.0.0.1" });
      client = api(cp.url);
    });

    afterAll(async () => {
      await cp?.stop();
      if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
    });

    const statusOf = async (id: string, revision: string) => (await client.call("GET", `/v2/deployments/${id}/revisions/${revision}`)).body.status as string;

    it("cancels a build stuck on the remote when a newer revision comes (INTERRUPTED), and builds the newer one", async () => {
      const created = await client.call("POST", "/v2/deployments", createBody("stuck-then-patched", remote.url));
      const { id, latest_revision_id: first } = created.body;
      await waitFor("the first build to reach git", async () =>
        (await statusOf(id, first)) === "BUILDING" && processesFor(remote.port).length > 0 ? true : undefined,
      );
      const patched = await client.call("PATCH", `/v2/deployments/${id}`, { source_revision_config: { repo_ref: "release" } });
      const second = patched.body.latest_revision_id;
      await waitFor("the first build to be interrupted", async () => ((await statusOf(id, first)) === "INTERRUPTED" ? true : undefined), 15_000);
      const logs = await client.call("GET", `/v2/deployments/${id}/revisions/${first}/logs?type=build&level=WARNING&order=desc&limit=1`);
      expect(logs.body.logs[0].message).toBe(`Build cancelled: revision ${second} replaced it`);
      await waitFor("the second build to start", async () => ((await statusOf(id, second)) === "BUILDING" ? true : undefined), 15_000);
      expect((await client.call("DELETE", `/v2/deployments/${id}`)).status).toBe(204);
      await waitFor("the deployment to be purged", async () => ((await client.call("GET", `/v2/deployments/${id}`)).status === 404 ? true : undefined), 15_000);
      await waitFor("no git process for the remote", async () => (processesFor(remote.port).length === 0 ? true : undefined), 5_000);
    });

    it("purges a deployment deleted while its build waits on the remote, git and its helpers with it", async () => {
      const created = await client.call("POST", "/v2/deployments", createBody("stuck-then-deleted", remote.url));
      const { id, latest_revision_id: revision } = created.body;
      await waitFor("the build to reach git", async () =>
        (await statusOf(id, revision)) === "BUILDING" && processesFor(remote.port).length > 0 ? true : undefined,
      );
      expect((await client.call("DELETE", `/v2/deployments/${id}`)).status).toBe(204);
      await waitFor("the deployment to be purged", async () => ((await client.call("GET", `/v2/deployments/${id}`)).status === 404 ? true : undefined), 15_000);
      await waitFor("no git process for the remote", async () => (processesFor(remote.port).length === 0 ? true : undefined), 5_000);
    });
  });
});
