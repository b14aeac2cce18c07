// The seed flow end to end over HTTP: create a deployment from a local git repository, reach its
// Agent Server through the router with @langchain/langgraph-sdk, roll out a new commit while a
// client keeps calling, survive a broken commit, roll back with redeploy, delete.
import { Client } from "@langchain/langgraph-sdk";
import { writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { API_KEY, BROKEN_GRAPH, createBody, deploymentFile, revisionSettles, useControlPlane, waitFor } from "./support.js";

const SECRET_VALUE = "s3cret-value-" + Math.random().toString(36).slice(2);

describe("control plane: deploy, roll out, roll back, delete", { timeout: 120_000 }, () => {
  const suite = useControlPlane();
  let deploymentId: string;
  let firstRevision: string;
  let firstSha: string;
  /** Every control-plane response body seen, to check that no secret value ever appears. */
  const seen: string[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await suite.client.call(method, path, body);
    seen.push(JSON.stringify(response.body));
    return response;
  };
  const sdk = () => new Client({ apiUrl: `${suite.cp.url}/deployments/${deploymentId}`, apiKey: API_KEY });
  const ask = async (input: string) => (await sdk().runs.wait(null, "agent", { input: { input } })) as { reply: string; secret: string };

  beforeAll(() => {
    firstSha = suite.repo.commit("v1");
  });

  it("creates a deployment whose first revision builds, deploys and answers the SDK through the router", async () => {
    const created = await call(
      "POST",
      "/v2/deployments",
      createBody("flow-agent", suite.repo.url, { secrets: [{ name: "FIXTURE_SECRET", value: SECRET_VALUE }] }),
    );
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body.latest_revision_id).toBeTruthy();
    expect(created.body.secrets).toEqual([{ name: "FIXTURE_SECRET", value: "********" }]);
    deploymentId = created.body.id;
    firstRevision = created.body.latest_revision_id;

    const listed = await call("GET", `/v2/deployments/${deploymentId}/revisions`);
    expect(listed.body.resources[0].id).toBe(firstRevision);

    const revision = await revisionSettles(suite.client, deploymentId, firstRevision);
    expect(revision.status).toBe("DEPLOYED");
    expect(revision.source_revision_config.repo_commit_sha).toBe(firstSha);

    const deployment = await call("GET", `/v2/deployments/${deploymentId}`);
    expect(deployment.body).toMatchObject({ status: "READY", active_revision_id: firstRevision, latest_revision_id: firstRevision });
    expect(deployment.body.source_config.custom_url).toBe(`${suite.cp.url}/deployments/${deploymentId}`);

    const answer = await ask("hello");
    expect(answer.reply).toBe("v1:hello");
    const assistants = await sdk().assistants.search({ graphId: "agent" });
    expect(assistants.map((a) => a.graph_id)).toContain("agent");
  });

  it("injects secrets into the graph's environment and never returns their values", async () => {
    expect((await ask("x")).secret).toBe(SECRET_VALUE);
    await call("GET", "/v2/deployments");
    await call("GET", `/v2/deployments/${deploymentId}/revisions/${firstRevision}`);
    for (const type of ["build", "deploy"]) await call("GET", `/v2/deployments/${deploymentId}/revisions/${firstRevision}/logs?type=${type}&limit=1000`);
    expect(seen.join("\n")).not.toContain(SECRET_VALUE);
    expect(suite.cp.output()).not.toContain(SECRET_VALUE);
  });

  it("streams SSE through the router event by event", async () => {
    const gate = deploymentFile(suite.cp.dataDir, deploymentId, `gate-${Date.now()}`);
    const seenSteps: string[][] = [];
    for await (const chunk of sdk().runs.stream(null, "gated", { input: { gate }, streamMode: "values" })) {
      if (chunk.event !== "values") continue;
      const steps = (chunk.data as { steps: string[] }).steps;
      seenSteps.push(steps);
      // The run waits for this file: had the router buffered the stream, this event would never arrive.
      if (steps.includes("first") && !steps.includes("second")) writeFileSync(gate, "");
    }
    expect(seenSteps.at(-1)).toEqual(["first", "second"]);
  });

  it("pages build logs with a cursor", async () => {
    const first = await call("GET", `/v2/deployments/${deploymentId}/revisions/${firstRevision}/logs?type=build&limit=2`);
    expect(first.body.logs).toHaveLength(2);
    expect(first.body.next_offset).toEqual(expect.any(String));
    const second = await call("GET", `/v2/deployments/${deploymentId}/revisions/${firstRevision}/logs?type=build&limit=2&offset=${first.body.next_offset}`);
    expect(second.body.logs[0].id).not.toBe(first.body.logs[0].id);
    expect(Number(second.body.logs[0].id)).toBeGreaterThan(Number(first.body.logs[1].id));
  });

  it("rolls a PATCH out as a second revision while a client calling throughout sees no failure", async () => {
    suite.repo.commit("v2");
    let calling = true;
    const replies: string[] = [];
    const failures: unknown[] = [];
    const caller = (async () => {
      while (calling) {
        try {
          replies.push((await ask("ping")).reply);
        } catch (err) {
          failures.push(err);
        }
        // Paced, so the caller does not starve the build and start-up it is waiting for on a small machine.
        await new Promise((done) => setTimeout(done, 20));
      }
    })();

    const patched = await call("PATCH", `/v2/deployments/${deploymentId}`, { source_revision_config: { repo_ref: "main" } });
    expect(patched.status).toBe(200);
    const second = patched.body.latest_revision_id;
    expect(second).not.toBe(firstRevision);
    const head = await call("GET", `/v2/deployments/${deploymentId}/revisions?limit=1`);
    expect(head.body.resources[0].id).toBe(second);

    expect((await revisionSettles(suite.client, deploymentId, second)).status).toBe("DEPLOYED");
    await waitFor("a reply from v2", async () => (replies.at(-1) === "v2:ping" ? true : undefined));
    calling = false;
    await caller;
    expect(failures).toEqual([]);
    expect(replies).toContain("v1:ping");
    expect((await call("GET", `/v2/deployments/${deploymentId}`)).body.active_revision_id).toBe(second);
  });

  it("leaves the previous revision serving when a commit fails to build", async () => {
    suite.repo.commit("v3", { "src/agent.ts": BROKEN_GRAPH });
    const patched = await call("PATCH", `/v2/deployments/${deploymentId}`, { source_revision_config: { repo_ref: "main" } });
    const broken = patched.body.latest_revision_id;
    expect((await revisionSettles(suite.client, deploymentId, broken)).status).toBe("BUILD_FAILED");
    const logs = await call("GET", `/v2/deployments/${deploymentId}/revisions/${broken}/logs?type=build&order=desc&limit=5`);
    expect(logs.body.logs.map((l: { message: string }) => l.message).join("\n")).toContain("this graph fails on import");
    expect((await ask("still")).reply).toBe("v2:still");
    const failed = await call("GET", `/v2/deployments/${deploymentId}/revisions?status=BUILD_FAILED`);
    expect(failed.body.resources.map((r: { id: string }) => r.id)).toEqual([broken]);
  });

  it("leaves the previous revision serving when the new server fails to start (DEPLOY_FAILED)", async () => {
    // The graphs import, so the build passes; the server then refuses to start on its missing http.app.
    const config = { graphs: { agent: "./src/agent.ts:graph" }, http: { app: "./src/missing-app.ts:app" } };
    suite.repo.commit("v4", { "langgraph.json": JSON.stringify(config) });
    const patched = await call("PATCH", `/v2/deployments/${deploymentId}`, { source_revision_config: { repo_ref: "main" } });
    const failing = patched.body.latest_revision_id;
    expect((await revisionSettles(suite.client, deploymentId, failing)).status).toBe("DEPLOY_FAILED");
    const logs = await call("GET", `/v2/deployments/${deploymentId}/revisions/${failing}/logs?type=deploy&limit=100`);
    expect(logs.body.logs.map((l: { message: string }) => l.message).join("\n")).toContain("http.app");
    expect((await ask("still")).reply).toBe("v2:still");
  });

  it("rolls back by redeploying the first revision: same commit, same secrets", async () => {
    const redeployed = await call("POST", `/v2/deployments/${deploymentId}/revisions/${firstRevision}/redeploy`);
    expect(redeployed.status).toBe(200);
    const rollback = redeployed.body.latest_revision_id;
    const revision = await revisionSettles(suite.client, deploymentId, rollback);
    expect(revision.status).toBe("DEPLOYED");
    expect(revision.source_revision_config.repo_commit_sha).toBe(firstSha);
    const answer = await ask("back");
    expect(answer).toMatchObject({ reply: "v1:back", secret: SECRET_VALUE });
  });

  it("deletes the deployment: 204, then its server and records are gone", async () => {
    expect((await call("DELETE", `/v2/deployments/${deploymentId}`)).status).toBe(204);
    await waitFor("the deployment to be purged", async () =>
      (await suite.client.call("GET", `/v2/deployments/${deploymentId}`)).status === 404 ? true : undefined,
    );
    const routed = await fetch(`${suite.cp.url}/deployments/${deploymentId}/ok`, { headers: { "X-Api-Key": API_KEY } });
    expect(routed.status).toBe(404);
  });
});
