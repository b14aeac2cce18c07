// API keys from the CLI against a running control plane: `keys create` works at once, `keys list`
// shows it, `keys revoke` refuses it from the next request; a key made with --tenant acts only in
// that tenant, with or without X-Tenant-Id, through the API and the router alike.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, controlPlaneDataDir, REPO_ROOT, startControlPlane, type Api, type RunningControlPlane } from "./support.js";

const TENANT = "0190a1c1-0000-7000-8000-00000000000a";
const OTHER_TENANT = "0190a1c1-0000-7000-8000-00000000000b";

/** An internal_source deployment: made at once, with nothing to build. */
const uploadOnly = (name: string) => ({
  name,
  source: "internal_source",
  source_config: { deployment_type: "dev" },
  source_revision_config: {},
  secrets: [],
});

describe("control-plane API keys", { timeout: 60_000 }, () => {
  let cp: RunningControlPlane;
  let admin: Api;
  const keys = (...args: string[]) => {
    const out = execFileSync(process.execPath, [join(REPO_ROOT, "bin", "gantry.js"), "control-plane", "keys", ...args, "--data-dir", cp.dataDir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return out.trim();
  };

  beforeAll(async () => {
    cp = await startControlPlane(controlPlaneDataDir());
    admin = api(cp.url);
  });

  afterAll(async () => {
    await cp?.stop();
    if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
  });

  it("accepts a key made while it runs, lists it, and refuses it from the request after its revocation", async () => {
    const key = keys("create", "--name", "ci runner");
    const client = api(cp.url, { "X-Api-Key": key });
    expect((await client.call("GET", "/v2/deployments")).status).toBe(200);

    const list = keys("list");
    expect(list).not.toContain(key);
    const listed = list.split("\n").map((line) => line.split("\t"));
    const row = listed.find((columns) => columns[1] === "ci runner");
    expect(row).toBeDefined();
    expect(row![2]).toBe("all tenants");

    keys("revoke", row![0]!);
    const refused = await client.call("GET", "/v2/deployments");
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("Invalid API key.");
    // The other keys are untouched.
    expect((await admin.call("GET", "/v2/deployments")).status).toBe(200);
  });

  it("refuses to revoke an id that names no key", () => {
    expect(() => keys("revoke", "0123456789ab")).toThrow(/No single key/);
  });

  it("binds a key to its tenant, with or without X-Tenant-Id", async () => {
    const theirs = await admin.call("POST", "/v2/deployments", uploadOnly("other-tenant"), { "X-Tenant-Id": OTHER_TENANT });
    expect(theirs.status).toBe(201);
    const untenanted = await admin.call("POST", "/v2/deployments", uploadOnly("default-tenant"));
    expect(untenanted.status).toBe(201);

    const bound = api(cp.url, { "X-Api-Key": keys("create", "--name", "tenant key", "--tenant", TENANT) });
    const created = await bound.call("POST", "/v2/deployments", uploadOnly("bound-tenant"));
    expect(created.status).toBe(201);
    // Made in the key's tenant although no header said so.
    expect((await admin.call("GET", `/v2/deployments/${created.body.id}`, undefined, { "X-Tenant-Id": TENANT })).status).toBe(200);
    expect((await admin.call("GET", `/v2/deployments/${created.body.id}`, undefined, { "X-Tenant-Id": OTHER_TENANT })).status).toBe(404);

    const listed = await bound.call("GET", "/v2/deployments");
    expect(listed.body.resources.map((d: { name: string }) => d.name)).toEqual(["bound-tenant"]);
    for (const id of [theirs.body.id, untenanted.body.id]) {
      expect((await bound.call("GET", `/v2/deployments/${id}`)).status).toBe(404);
      expect((await bound.call("DELETE", `/v2/deployments/${id}`)).status).toBe(404);
      expect((await bound.call("GET", `/deployments/${id}/ok`)).status).toBe(404);
    }
    const otherHeader = await bound.call("GET", "/v2/deployments", undefined, { "X-Tenant-Id": OTHER_TENANT });
    expect(otherHeader.status).toBe(403);
    expect(otherHeader.body.detail).toContain(TENANT);
    expect((await bound.call("GET", "/v2/deployments", undefined, { "X-Tenant-Id": TENANT })).status).toBe(200);
    const list = keys("list");
    expect(list).toContain(`tenant key\t${TENANT}`);
    // The key revoked above is gone from the file.
    expect(list).not.toContain("ci runner");
  });
});
