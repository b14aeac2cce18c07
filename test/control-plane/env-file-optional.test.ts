// A project as a user makes it: `npm init -y`'s "type": "commonjs" with a graph written with
// `import`, and a langgraph.json naming a `.env` that the repository git-ignores. On the platform the
// deployment's secrets take that file's place, so a deployment with secrets builds and serves (with a
// warning in its build and deploy logs), and one without them fails its build naming the file.
import { Client } from "@langchain/langgraph-sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { API_KEY, createBody, revisionSettles, useControlPlane } from "./support.js";

const SECRET_VALUE = "from-the-secrets-" + Math.random().toString(36).slice(2);

describe("control plane: the env file of langgraph.json, git-ignored", { timeout: 180_000 }, () => {
  const suite = useControlPlane();
  let withSecrets: { id: string; revision: string };
  let withoutSecrets: { id: string; revision: string };

  const logText = async (deployment: { id: string; revision: string }, type: "build" | "deploy", level?: string) => {
    const { body } = await suite.client.call("GET", `/v2/deployments/${deployment.id}/revisions/${deployment.revision}/logs?type=${type}&limit=1000`);
    return (body.logs as { level: string; message: string }[])
      .filter((log) => level === undefined || log.level === level)
      .map((log) => log.message)
      .join("\n");
  };

  beforeAll(async () => {
    suite.repo.commit("v1", {
      "package.json": JSON.stringify({ name: "fixture-agent", version: "1.0.0", main: "index.js", type: "commonjs" }),
      "langgraph.json": JSON.stringify({ graphs: { agent: "./src/agent.ts:graph" }, env: ".env" }),
      ".gitignore": ".env\n",
      // Written beside the commit, as on the developer's machine; git leaves it out.
      ".env": "FIXTURE_SECRET=only-on-my-machine\n",
    });
    // Both at once: builds of different deployments run side by side.
    const [a, b] = await Promise.all([
      suite.client.call(
        "POST",
        "/v2/deployments",
        createBody("env-with-secrets", suite.repo.url, { secrets: [{ name: "FIXTURE_SECRET", value: SECRET_VALUE }] }),
      ),
      suite.client.call("POST", "/v2/deployments", createBody("env-without-secrets", suite.repo.url)),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    withSecrets = { id: a.body.id, revision: a.body.latest_revision_id };
    withoutSecrets = { id: b.body.id, revision: b.body.latest_revision_id };
  });

  it("deploys a deployment with secrets, warns in its build and deploy logs, and its graph sees the secrets", async () => {
    const revision = await revisionSettles(suite.client, withSecrets.id, withSecrets.revision, 150_000);
    expect(revision.status, await logText(withSecrets, "build")).toBe("DEPLOYED");
    expect(await logText(withSecrets, "build", "WARNING")).toMatch(
      /env file \S*\.env, named in langgraph\.json, does not exist: the deployment's secrets take its place/,
    );
    expect(await logText(withSecrets, "deploy", "WARNING")).toContain("named in langgraph.json, does not exist: the deployment's secrets take its place");

    const sdk = new Client({ apiUrl: `${suite.cp.url}/deployments/${withSecrets.id}`, apiKey: API_KEY });
    const answer = (await sdk.runs.wait(null, "agent", { input: { input: "hi" } })) as { reply: string; secret: string };
    expect(answer).toMatchObject({ reply: "v1:hi", secret: SECRET_VALUE });
  });

  it("fails the build of a deployment without secrets, naming the missing file and what to do", async () => {
    const revision = await revisionSettles(suite.client, withoutSecrets.id, withoutSecrets.revision, 150_000);
    expect(revision.status).toBe("BUILD_FAILED");
    const errors = await logText(withoutSecrets, "build", "ERROR");
    expect(errors).toMatch(
      /names env file \S*\.env, which cannot be read \(ENOENT\)\. Create it, or remove "env" from the config; on a Gantry control plane, a deployment's secrets take its place/,
    );
  });
});
