// Control-plane figures: how long a deployment of the test fixture takes from POST to DEPLOYED
// (cold: clone, graph import check, server start), how long a second revision of the same commit
// takes (the build cache skips clone and check), and the rollout of a new commit. Each phase is
// split by the revision's own status timestamps as the API reports them (polled every 50 ms).
import { rmSync } from "node:fs";
import { api, controlPlaneDataDir, createBody, createFixtureRepo, startControlPlane, type Api } from "../test/control-plane/support.js";

async function follow(client: Api, deploymentId: string, revisionId: string): Promise<Record<string, number>> {
  const started = Date.now();
  const firstSeen: Record<string, number> = {};
  for (;;) {
    const { body } = await client.call("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
    firstSeen[body.status] ??= Date.now() - started;
    if (body.status === "DEPLOYED") return firstSeen;
    if (String(body.status).endsWith("FAILED")) throw new Error(`revision ${revisionId} ended ${body.status}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

const repo = createFixtureRepo();
repo.commit("v1");
const cp = await startControlPlane(controlPlaneDataDir());
try {
  const client = api(cp.url);
  const created = await client.call("POST", "/v2/deployments", createBody("bench-agent", repo.url));
  const cold = await follow(client, created.body.id, created.body.latest_revision_id);
  const cached = await follow(client, created.body.id, (await client.call("POST", `/v2/deployments/${created.body.id}/revisions`)).body.id);
  repo.commit("v2");
  const rollout = await follow(client, created.body.id, (await client.call("POST", `/v2/deployments/${created.body.id}/revisions`)).body.id);
  const row = (name: string, t: Record<string, number>) => `| ${name} | ${t.DEPLOYING !== undefined ? t.DEPLOYING : "-"} | ${t.DEPLOYED} |`;
  console.log("| revision | POST -> DEPLOYING (build) ms | POST -> DEPLOYED ms |\n|---|---|---|");
  console.log([row("first, cold build", cold), row("same commit, cached build", cached), row("new commit, rollout", rollout)].join("\n"));
  console.log(JSON.stringify({ cold, cached, rollout }));
} finally {
  await cp.stop();
  repo.remove();
  rmSync(cp.dataDir, { recursive: true, force: true });
}
