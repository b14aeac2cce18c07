// The control-plane API's answers to bad input, keys and tenants, against a real control plane.
// Deployments here point at a repository that does not exist: their builds fail, which these tests
// do not care about.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure } from "../support/gantry-process.js";
import {
  API_KEY,
  REPO_ROOT,
  api,
  controlPlaneDataDir,
  createBody,
  createFixtureRepo,
  startControlPlane,
  waitFor,
  type Api,
  type RunningControlPlane,
} from "./support.js";

const NO_REPO = `file://${tmpdir()}/nonexistent/gantry-test-repo.git`;
const UNKNOWN = "0190a1c1-0000-7000-8000-000000000000";
const TENANT_A = "11111111-1111-4111-8111-111111111111";
const TENANT_B = "22222222-2222-4222-8222-222222222222";

describe("control plane API", () => {
  let cp: RunningControlPlane;
  let client: Api;
  let fromKeysFile: string;

  beforeAll(async () => {
    const dataDir = controlPlaneDataDir();
    fromKeysFile = execFileSync(process.execPath, [join(REPO_ROOT, "bin", "gantry.js"), "control-plane", "keys", "create", "--data-dir", dataDir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    // Pushes are noticed only through the webhook here, never by the poll.
    cp = await startControlPlane(dataDir, { GANTRY_BUILD_ON_PUSH_INTERVAL_MS: "3600000" });
    client = api(cp.url);
  });

  afterAll(async () => {
    await cp?.stop();
    if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
  });

  it("answers 401 without a key and 403 with a wrong one, with a detail", async () => {
    const anonymous = await api(cp.url, {}).call("GET", "/v2/deployments");
    expect(anonymous).toEqual({ status: 401, body: { detail: expect.stringContaining("X-Api-Key") } });
    const wrong = await api(cp.url, { "X-Api-Key": "nope" }).call("GET", "/v2/deployments");
    expect(wrong).toEqual({ status: 403, body: { detail: "Invalid API key." } });
    const routed = await api(cp.url, {}).call("GET", `/deployments/${UNKNOWN}/ok`);
    expect(routed.status).toBe(401);
  });

  it("accepts a key minted by 'keys create', which stores only its hash", async () => {
    expect(fromKeysFile).toMatch(/^gantry_/);
    expect((await api(cp.url, { "X-Api-Key": fromKeysFile }).call("GET", "/v2/deployments")).status).toBe(200);
  });

  it("answers 422 in the spec's list form for invalid bodies, naming the field", async () => {
    const missing = await client.call("POST", "/v2/deployments", { name: "x", source: "github", source_config: {}, source_revision_config: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContainEqual({ loc: ["body", "secrets"], msg: "Field required", type: "missing" });
    const badName = await client.call("POST", "/v2/deployments", createBody("under_score", NO_REPO));
    expect(badName.status).toBe(422);
    expect(badName.body.detail[0].loc).toEqual(["body", "name"]);
    const notJson = await client.call("POST", "/v2/deployments", "{not json");
    expect(notJson.status).toBe(400);
  });

  it("answers 413 with a detail for a body over 1 MiB, declared or chunked, before reading it", async () => {
    const big = JSON.stringify(createBody("big", NO_REPO, { secrets: [{ name: "PADDING", value: "x".repeat(1024 * 1024) }] }));
    const declared = await fetch(`${cp.url}/v2/deployments`, {
      method: "POST",
      headers: { "X-Api-Key": API_KEY, "Content-Type": "application/json" },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { detail: string }).detail).toContain("1048576 bytes");
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += 65_536) controller.enqueue(new TextEncoder().encode(big.slice(i, i + 65_536)));
        controller.close();
      },
    });
    const chunked = await fetch(`${cp.url}/v2/deployments`, {
      method: "POST",
      headers: { "X-Api-Key": API_KEY, "Content-Type": "application/json" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await client.call("GET", "/v2/deployments?name_contains=big")).body.resources).toEqual([]);
  });

  it("answers 400 for source configuration errors and reserved secret names", async () => {
    const noRef = await client.call(
      "POST",
      "/v2/deployments",
      createBody("no-ref", NO_REPO, { source_revision_config: { langgraph_config_path: "langgraph.json" } }),
    );
    expect(noRef).toEqual({ status: 400, body: { detail: "Source configuration error: 'source_revision_config.repo_ref' is required for 'github' source" } });
    const docker = await client.call("POST", "/v2/deployments", createBody("docker", NO_REPO, { source: "external_docker" }));
    expect(docker.status).toBe(400);
    const reserved = await client.call("POST", "/v2/deployments", createBody("reserved", NO_REPO, { secrets: [{ name: "POSTGRES_URI", value: "x" }] }));
    expect(reserved).toEqual({ status: 400, body: { detail: "Secret name 'POSTGRES_URI' is reserved and cannot be set on a deployment." } });
    const masterKey = await client.call("POST", "/v2/deployments", createBody("reserved2", NO_REPO, { secrets: [{ name: "GANTRY_SECRETS_KEY", value: "x" }] }));
    expect(masterKey.status).toBe(400);
  });

  it("answers 404 for unknown deployments and revisions, and 422 for ids that are not UUIDs", async () => {
    expect(await client.call("GET", `/v2/deployments/${UNKNOWN}`)).toEqual({ status: 404, body: { detail: `Deployment ID ${UNKNOWN} not found.` } });
    expect((await client.call("PATCH", `/v2/deployments/${UNKNOWN}`, {})).status).toBe(404);
    expect((await client.call("DELETE", `/v2/deployments/${UNKNOWN}`)).status).toBe(404);
    expect((await client.call("GET", `/v2/deployments/${UNKNOWN}/revisions`)).status).toBe(404);
    const notUuid = await client.call("GET", "/v2/deployments/abc");
    expect(notUuid.status).toBe(422);
    expect(notUuid.body.detail[0].loc).toEqual(["path", "deployment_id"]);
    const created = await client.call("POST", "/v2/deployments", createBody("for-404", NO_REPO));
    expect((await client.call("GET", `/v2/deployments/${created.body.id}/revisions/${UNKNOWN}`)).status).toBe(404);
    expect((await client.call("POST", `/v2/deployments/${created.body.id}/revisions/${UNKNOWN}/redeploy`)).status).toBe(404);
    expect((await client.call("GET", `/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id}/logs`)).status).toBe(422);
  });

  it("refuses to change immutable fields, and accepts the same value", async () => {
    const created = await client.call("POST", "/v2/deployments", createBody("immutable", NO_REPO));
    const id = created.body.id;
    const rename = await client.call("PATCH", `/v2/deployments/${id}`, { name: "other" });
    expect(rename.status).toBe(400);
    expect(rename.body.detail).toContain("'name' cannot be changed");
    const repo = await client.call("PATCH", `/v2/deployments/${id}`, { source_config: { repo_url: "file:///elsewhere.git" } });
    expect(repo.status).toBe(400);
    expect(repo.body.detail).toContain("repo_url");
    const same = await client.call("PATCH", `/v2/deployments/${id}`, { name: "immutable", source_config: { build_on_push: true } });
    expect(same.status).toBe(200);
    expect(same.body.source_config.build_on_push).toBe(true);
    // build_on_push alone makes no revision (spec §6.3).
    expect(same.body.latest_revision_id).toBe(created.body.latest_revision_id);
  });

  it("creates a revision explicitly with POST .../revisions, newest first", async () => {
    const created = await client.call("POST", "/v2/deployments", createBody("explicit-revision", NO_REPO));
    const made = await client.call("POST", `/v2/deployments/${created.body.id}/revisions`, { source_revision_config: { repo_ref: "v2" } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ source: "github", source_revision_config: { repo_ref: "v2", langgraph_config_path: "langgraph.json" } });
    const empty = await client.call("POST", `/v2/deployments/${created.body.id}/revisions`);
    expect(empty.status).toBe(201);
    const list = await client.call("GET", `/v2/deployments/${created.body.id}/revisions`);
    expect(list.body.resources.map((r: { id: string }) => r.id)).toEqual([empty.body.id, made.body.id, created.body.latest_revision_id]);
  });

  it("refuses a second deployment with a taken name with 409", async () => {
    await client.call("POST", "/v2/deployments", createBody("taken", NO_REPO));
    expect((await client.call("POST", "/v2/deployments", createBody("taken", NO_REPO))).status).toBe(409);
  });

  it("lists with filters, limit and offset, and the next offset", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) await client.call("POST", "/v2/deployments", createBody(name, NO_REPO));
    const first = await client.call("GET", "/v2/deployments?name_contains=page-&limit=2");
    expect(first.body.resources.map((d: { name: string }) => d.name)).toEqual(["page-c", "page-b"]);
    expect(first.body.offset).toBe(2);
    const second = await client.call("GET", `/v2/deployments?name_contains=page-&limit=2&offset=${first.body.offset}`);
    expect(second.body).toMatchObject({ resources: [{ name: "page-a" }], offset: 3 });
    const byId = await client.call("GET", `/v2/deployments?deployment_ids=${first.body.resources[0].id}`);
    expect(byId.body.resources).toHaveLength(1);
    expect((await client.call("GET", "/v2/deployments?limit=0")).status).toBe(422);
    expect((await client.call("GET", "/v2/deployments?status=NOPE")).status).toBe(422);
  });

  it("scopes deployments to the X-Tenant-Id they were created in", async () => {
    const created = await client.call("POST", "/v2/deployments", createBody("tenant-owned", NO_REPO), { "X-Tenant-Id": TENANT_A });
    expect(created.body.tenant_id).toBe(TENANT_A);
    expect((await client.call("GET", `/v2/deployments/${created.body.id}`, undefined, { "X-Tenant-Id": TENANT_A })).status).toBe(200);
    expect((await client.call("GET", `/v2/deployments/${created.body.id}`, undefined, { "X-Tenant-Id": TENANT_B })).status).toBe(404);
    const listB = await client.call("GET", "/v2/deployments?name_contains=tenant-owned", undefined, { "X-Tenant-Id": TENANT_B });
    expect(listB.body.resources).toEqual([]);
    expect((await client.call("GET", "/v2/deployments", undefined, { "X-Tenant-Id": "not-a-uuid" })).status).toBe(422);
  });

  it("ends a revision whose repository cannot be read in BUILD_FAILED with the reason in its log", async () => {
    const created = await client.call("POST", "/v2/deployments", createBody("no-such-repo", NO_REPO));
    const path = `/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id}`;
    const deadline = Date.now() + 30_000;
    let status = "";
    while (Date.now() < deadline && status !== "BUILD_FAILED") {
      status = (await client.call("GET", path)).body.status;
      if (status !== "BUILD_FAILED") await new Promise((done) => setTimeout(done, 100));
    }
    expect(status).toBe("BUILD_FAILED");
    const logs = await client.call("GET", `${path}/logs?type=build&level=ERROR`);
    expect(logs.body.logs.at(-1).message).toContain("cannot be reached");
  });

  it("makes a revision of a pushed commit when the push webhook is called", async () => {
    const repo = createFixtureRepo();
    try {
      repo.commit("v1");
      const created = await client.call(
        "POST",
        "/v2/deployments",
        createBody("webhook-agent", repo.url, { source_config: { repo_url: repo.url, build_on_push: true } }),
      );
      const id = created.body.id;
      await waitFor(
        "the first commit to be resolved",
        async () =>
          (await client.call("GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}`)).body.source_revision_config.repo_commit_sha ??
          undefined,
      );
      expect((await client.call("POST", `/v2/deployments/${id}/push-webhook`)).body.latest_revision_id).toBe(created.body.latest_revision_id);
      repo.commit("v2");
      const after = await client.call("POST", `/v2/deployments/${id}/push-webhook`);
      expect(after.status).toBe(200);
      expect(after.body.latest_revision_id).not.toBe(created.body.latest_revision_id);
      expect((await client.call("GET", `/v2/deployments/${id}/revisions`)).body.resources).toHaveLength(2);
      await client.call("DELETE", `/v2/deployments/${id}`);
      const off = await client.call("POST", "/v2/deployments", createBody("no-push", NO_REPO));
      expect((await client.call("POST", `/v2/deployments/${off.body.id}/push-webhook`)).status).toBe(400);
    } finally {
      repo.remove();
    }
  });

  it("documents its routes in /openapi.json", async () => {
    const doc = (await (await fetch(`${cp.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain("/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy");
  });

  it("refuses to start without a secrets key or an API key outside --dev", async () => {
    const dataDir = controlPlaneDataDir();
    try {
      // Side by side: both stop on their configuration, before anything reads or writes the data dir.
      const [noKey, noApiKey] = await Promise.all([
        runGantryExpectingFailure(["control-plane", "--port", "0", "--data-dir", dataDir], { GANTRY_API_KEYS: API_KEY }),
        runGantryExpectingFailure(["control-plane", "--port", "0", "--data-dir", dataDir], { GANTRY_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") }),
      ]);
      expect(noKey.code).toBe(1);
      expect(noKey.stderr).toContain("GANTRY_SECRETS_KEY is not set");
      expect(noApiKey.stderr).toContain("No API key is configured");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
