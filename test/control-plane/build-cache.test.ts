// The build cache is bounded per deployment and goes with it: after several rollouts only the
// newest builds stay, the live revision's and the previous one's always among them (a rollback by
// redeploy clones nothing), and DELETE removes the deployment's builds but no other's.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBody, revisionSettles, useControlPlane, waitFor } from "./support.js";

describe("control plane: build cache", { timeout: 180_000 }, () => {
  const suite = useControlPlane({ GANTRY_BUILDS_PER_DEPLOYMENT: "2" });
  const shas: string[] = [];
  const revisions: string[] = [];
  let deploymentId: string;
  let otherId: string;

  const builds = (id: string) => (existsSync(join(suite.cp.dataDir, "builds", id)) ? readdirSync(join(suite.cp.dataDir, "builds", id)).sort() : []);
  const deployed = async (revisionId: string) => expect((await revisionSettles(suite.client, deploymentId, revisionId)).status).toBe("DEPLOYED");
  /** The cache is pruned after the promotion, and again once the replaced server has stopped. */
  const cacheHolds = (id: string, expected: string[]) =>
    waitFor(`the cache of ${id} to hold ${expected.join(", ")}`, async () =>
      JSON.stringify(builds(id)) === JSON.stringify([...expected].sort()) ? true : undefined,
    );

  it("keeps at most GANTRY_BUILDS_PER_DEPLOYMENT builds: the live revision's and the previous one's", async () => {
    shas.push(suite.repo.commit("v1"));
    const created = await suite.client.call("POST", "/v2/deployments", createBody("cache-agent", suite.repo.url));
    deploymentId = created.body.id;
    revisions.push(created.body.latest_revision_id);
    await deployed(revisions[0]!);
    for (const version of ["v2", "v3", "v4"]) {
      shas.push(suite.repo.commit(version));
      const patched = await suite.client.call("PATCH", `/v2/deployments/${deploymentId}`, { source_revision_config: { repo_ref: "main" } });
      revisions.push(patched.body.latest_revision_id);
      await deployed(revisions.at(-1)!);
      await cacheHolds(deploymentId, shas.slice(-2));
    }
  });

  it("rolls back to the previous revision from the cache, without cloning", async () => {
    const redeployed = await suite.client.call("POST", `/v2/deployments/${deploymentId}/revisions/${revisions[2]}/redeploy`);
    const rollback = redeployed.body.latest_revision_id;
    await deployed(rollback);
    const logs = await suite.client.call("GET", `/v2/deployments/${deploymentId}/revisions/${rollback}/logs?type=build&limit=1000`);
    expect(logs.body.logs.map((l: { message: string }) => l.message).join("\n")).not.toContain("Cloning");
    await cacheHolds(deploymentId, [shas[2]!, shas[3]!]);
  });

  it("removes a deleted deployment's builds and leaves another deployment's alone", async () => {
    const other = await suite.client.call("POST", "/v2/deployments", createBody("cache-other", suite.repo.url));
    otherId = other.body.id;
    expect((await revisionSettles(suite.client, otherId, other.body.latest_revision_id)).status).toBe("DEPLOYED");
    expect(builds(otherId)).toEqual([shas[3]]);

    expect((await suite.client.call("DELETE", `/v2/deployments/${deploymentId}`)).status).toBe(204);
    await waitFor("the deployment to be purged", async () =>
      (await suite.client.call("GET", `/v2/deployments/${deploymentId}`)).status === 404 ? true : undefined,
    );
    expect(existsSync(join(suite.cp.dataDir, "builds", deploymentId))).toBe(false);
    expect(builds(otherId)).toEqual([shas[3]]);
  });
});
