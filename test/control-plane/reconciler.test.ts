// The reconciler against a real control plane: killed mid-build it converges on restart without
// losing or duplicating anything, and build_on_push notices a new commit on the watched ref.
import { Client } from "@langchain/langgraph-sdk";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import {
  API_KEY,
  api,
  controlPlaneDataDir,
  createBody,
  createFixtureRepo,
  deploymentFile,
  revisionSettles,
  startControlPlane,
  waitFor,
  type FixtureRepo,
  type RunningControlPlane,
} from "./support.js";

/** What one test started and made, stopped and removed when it finishes: the two tests run side by side. */
function testScope(onTestFinished: (cleanup: () => Promise<void>) => void) {
  const cleanups: (() => Promise<void> | void)[] = [];
  onTestFinished(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return {
    fixture(): FixtureRepo {
      const repo = createFixtureRepo();
      cleanups.push(() => repo.remove());
      return repo;
    },
    dataDir(): string {
      const dir = controlPlaneDataDir();
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
    async controlPlane(dataDir: string): Promise<RunningControlPlane> {
      const cp = await startControlPlane(dataDir);
      cleanups.push(() => cp.stop());
      return cp;
    },
  };
}

// Concurrent: each test has its own repository, data dir and control planes, and spends much of
// its time waiting on them; two at a time is what two cores allow.
describe.concurrent("reconciler", { timeout: 180_000 }, () => {
  const ask = async (url: string, id: string, input: string) =>
    ((await new Client({ apiUrl: `${url}/deployments/${id}`, apiKey: API_KEY }).runs.wait(null, "agent", { input: { input } })) as { reply: string }).reply;

  it("converges after the control plane is killed mid-build, with one deployment and one revision", async ({ expect, onTestFinished }) => {
    const { fixture, dataDir: newDataDir, controlPlane } = testScope(onTestFinished);
    const repo = fixture();
    repo.commit("v1");
    const dataDir = newDataDir();
    const first = await controlPlane(dataDir);
    // A build step that waits for a file in the deployment's data dir (its HOME's sibling), so the
    // kill lands while the revision is BUILDING however slow the machine; the rebuild finds it.
    const buildCommand = 'until [ -e "$HOME/../data/build-gate" ]; do sleep 0.05; done';
    const body = createBody("restart-agent", repo.url, { source_config: { repo_url: repo.url, build_command: buildCommand } });
    const created = await api(first.url).call("POST", "/v2/deployments", body);
    const revisionPath = `/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id}`;
    await waitFor("the build command to run", async () => {
      const { body } = await api(first.url).call("GET", `${revisionPath}/logs?type=build&limit=100`);
      return body.logs.some((l: { message: string }) => l.message === `$ ${buildCommand}`) ? true : undefined;
    });
    expect((await api(first.url).call("GET", revisionPath)).body.status).toBe("BUILDING");
    await first.kill();
    const halfBuilt = readdirSync(join(dataDir, "builds")).filter((e) => e.startsWith(".tmp-"));
    expect(halfBuilt).toHaveLength(1);
    writeFileSync(deploymentFile(dataDir, created.body.id, "build-gate"), "");

    const second = await controlPlane(dataDir);
    const client = api(second.url);
    // The killed build's temp dir is gone: only finished builds stay in the cache.
    expect(readdirSync(join(dataDir, "builds"))).not.toContain(halfBuilt[0]);
    const revision = await revisionSettles(client, created.body.id, created.body.latest_revision_id);
    expect(revision.status).toBe("DEPLOYED");
    expect((await client.call("GET", "/v2/deployments")).body.resources.map((d: { id: string }) => d.id)).toEqual([created.body.id]);
    expect((await client.call("GET", `/v2/deployments/${created.body.id}/revisions`)).body.resources).toHaveLength(1);
    expect(await ask(second.url, created.body.id, "after")).toBe("v1:after");

    // Killed again while serving: the next start brings the live revision back up.
    await second.kill();
    const third = await controlPlane(dataDir);
    await waitFor("the live revision to serve again", async () => ((await ask(third.url, created.body.id, "again")) === "v1:again" ? true : undefined));
  });

  it("build_on_push creates and rolls out a revision when the watched ref gets a new commit", async ({ expect, onTestFinished }) => {
    const { fixture, dataDir: newDataDir, controlPlane } = testScope(onTestFinished);
    const repo = fixture();
    repo.commit("v1");
    const dataDir = newDataDir();
    const cp = await controlPlane(dataDir);
    const client = api(cp.url);
    const created = await client.call(
      "POST",
      "/v2/deployments",
      createBody("push-agent", repo.url, { source_config: { repo_url: repo.url, build_on_push: true } }),
    );
    expect((await revisionSettles(client, created.body.id, created.body.latest_revision_id)).status).toBe("DEPLOYED");

    const pushed = repo.commit("v2");
    const next = await waitFor("a revision of the pushed commit", async () => {
      const { body } = await client.call("GET", `/v2/deployments/${created.body.id}/revisions?limit=1`);
      return body.resources[0].id !== created.body.latest_revision_id ? body.resources[0] : undefined;
    });
    const revision = await revisionSettles(client, created.body.id, next.id);
    expect(revision).toMatchObject({ status: "DEPLOYED", source_revision_config: { repo_ref: "main", repo_commit_sha: pushed } });
    expect(await ask(cp.url, created.body.id, "pushed")).toBe("v2:pushed");
    // No further revision while the ref stays where it is.
    expect((await client.call("GET", `/v2/deployments/${created.body.id}/revisions`)).body.resources).toHaveLength(2);
  });
});
