// source_config.custom_url: requests whose Host is a deployment's custom host reach its live
// revision at the root path, through the SDK as through any HTTP client.
import { Client } from "@langchain/langgraph-sdk";
import { request } from "node:http";
import { hostname } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { API_KEY, createBody, fetchVia, revisionSettles, useControlPlane } from "./support.js";

/** fetch() always sends the URL's own Host; node:http sends the one given. */
function withHost(
  baseUrl: string,
  host: string,
  path: string,
  headers: Record<string, string> = { "X-Api-Key": API_KEY },
): Promise<{ status: number; body: string }> {
  return new Promise((resolveResponse, reject) => {
    const req = request(new URL(path, baseUrl), { headers: { ...headers, Host: host } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolveResponse({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("control plane: custom_url host routing", { timeout: 120_000 }, () => {
  const suite = useControlPlane();
  let port: string;
  let deploymentId: string;
  const name = `custom-${Date.now()}`;
  const customHost = `agent-${Date.now()}.example.test`;

  /** Every spelling of the control plane's own origin, and of this machine on other ports. */
  const ownAddresses = () => [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://localhost.:${port}`,
    `http://[::1]:${port}`,
    `http://[::ffff:127.0.0.1]:${port}`,
    `http://127.0.0.2:${port}`,
    "http://0.0.0.0",
    "http://localhost",
    `http://${hostname()}:${port}`,
    `http://agent.localhost:${port}`,
  ];

  beforeAll(() => {
    suite.repo.commit("v1");
    port = new URL(suite.cp.url).port;
  });

  it("refuses a custom_url that is not an http(s) origin, or is the control plane's own address, with 422", async () => {
    for (const bad of [
      "not a url",
      "ftp://agent.example.test",
      "https://agent.example.test/some/path",
      "https://user:pw@agent.example.test",
      ...ownAddresses(),
    ]) {
      const response = await suite.client.call(
        "POST",
        "/v2/deployments",
        createBody(name, suite.repo.url, { source_config: { repo_url: suite.repo.url, custom_url: bad } }),
      );
      expect(response.status, bad).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["body", "source_config", "custom_url"]);
    }
  });

  it("serves the deployment to the SDK at its custom_url, streams included", async () => {
    // A name pointed at the control plane (fetchVia connects to it and sends the name as Host).
    const customUrl = `http://sdk-${Date.now()}.example.test`;
    const created = await suite.client.call(
      "POST",
      "/v2/deployments",
      createBody(name, suite.repo.url, { source_config: { repo_url: suite.repo.url, custom_url: customUrl } }),
    );
    expect(created.status).toBe(201);
    deploymentId = created.body.id;
    expect(created.body.source_config.custom_url).toBe(customUrl);
    expect((await revisionSettles(suite.client, deploymentId, created.body.latest_revision_id)).status).toBe("DEPLOYED");

    const sdk = new Client({ apiUrl: customUrl, apiKey: API_KEY, callerOptions: { fetch: fetchVia(suite.cp.url) } });
    expect(((await sdk.runs.wait(null, "agent", { input: { input: "hi" } })) as { reply: string }).reply).toBe("v1:hi");
    const thread = await sdk.threads.create();
    const events: string[] = [];
    for await (const chunk of sdk.runs.stream(thread.thread_id, "agent", { input: { input: "streamed" }, streamMode: "values" })) events.push(chunk.event);
    expect(events).toContain("values");
    expect((await sdk.threads.getState<{ reply: string }>(thread.thread_id)).values.reply).toBe("v1:streamed");
  });

  it("routes by Host alone: every path of the custom host is the deployment's, with the control plane's key", async () => {
    const patched = await suite.client.call("PATCH", `/v2/deployments/${deploymentId}`, { source_config: { custom_url: `https://${customHost}` } });
    expect(patched.status).toBe(200);
    expect(patched.body.source_config.custom_url).toBe(`https://${customHost}`);
    // Only the address changed: no new revision.
    expect(patched.body.latest_revision_id).toBe(patched.body.active_revision_id);

    const info = await withHost(suite.cp.url, customHost, "/info");
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toHaveProperty("version");
    expect((await withHost(suite.cp.url, `${customHost}:443`, "/info")).status).toBe(200);
    // The control plane's own host has no /info, and the old custom host is no longer routed.
    expect((await withHost(suite.cp.url, `127.0.0.1:${port}`, "/info")).status).toBe(404);
    expect((await withHost(suite.cp.url, `localhost:${port}`, "/info")).status).toBe(404);
    expect((await withHost(suite.cp.url, customHost, "/info", {})).status).toBe(401);
  });

  it("refuses a PATCH to any address of the control plane or this machine, and leaves the deployment's address as it was", async () => {
    for (const bad of ownAddresses()) {
      const response = await suite.client.call("PATCH", `/v2/deployments/${deploymentId}`, { source_config: { custom_url: bad } });
      expect(response.status, bad).toBe(422);
      expect(response.body.detail[0].msg, bad).toContain("control plane itself");
    }
    expect((await suite.client.call("GET", `/v2/deployments/${deploymentId}`)).body.source_config.custom_url).toBe(`https://${customHost}`);
    // The dashboard and /v2 stay the control plane's.
    expect((await withHost(suite.cp.url, `localhost:${port}`, "/v2/deployments")).status).toBe(200);
  });

  it("keeps one deployment per host, and clears the address with an empty string", async () => {
    const taken = await suite.client.call(
      "POST",
      "/v2/deployments",
      createBody(`${name}-2`, suite.repo.url, { source_config: { repo_url: suite.repo.url, custom_url: `http://${customHost}` } }),
    );
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain(customHost);

    const cleared = await suite.client.call("PATCH", `/v2/deployments/${deploymentId}`, { source_config: { custom_url: "" } });
    expect(cleared.body.source_config.custom_url).toBe(`${suite.cp.url}/deployments/${deploymentId}`);
    expect((await withHost(suite.cp.url, customHost, "/info")).status).toBe(404);
  });
});
