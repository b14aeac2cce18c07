// The control plane with its state in PostgreSQL: deployments and revisions survive a restart.
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { TEST_DATABASE_URL, describeWithPostgres, freshSchemaName } from "../support/postgres.js";
import { api, controlPlaneDataDir, createBody, startControlPlane, waitFor } from "./support.js";

await describeWithPostgres("control plane on PostgreSQL", () => {
  const schema = freshSchemaName();
  const dataDir = controlPlaneDataDir();
  const env = { DATABASE_URL: TEST_DATABASE_URL, GANTRY_CONTROL_PLANE_SCHEMA: schema };

  afterAll(async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps deployments, revisions and build logs across a restart", { timeout: 60_000 }, async () => {
    const first = await startControlPlane(dataDir, env);
    let id: string;
    let revision: string;
    try {
      const created = await api(first.url).call("POST", "/v2/deployments", createBody("pg-agent", "file:///nonexistent/repo.git"));
      expect(created.status).toBe(201);
      id = created.body.id;
      revision = created.body.latest_revision_id;
      await waitFor("the build to fail", async () =>
        (await api(first.url).call("GET", `/v2/deployments/${id}/revisions/${revision}`)).body.status === "BUILD_FAILED" ? true : undefined,
      );
    } finally {
      await first.stop();
    }
    const second = await startControlPlane(dataDir, env);
    try {
      const client = api(second.url);
      expect((await client.call("GET", `/v2/deployments/${id}`)).body).toMatchObject({ name: "pg-agent", latest_revision_id: revision });
      const logs = await client.call("GET", `/v2/deployments/${id}/revisions/${revision}/logs?type=build`);
      expect(logs.body.logs.length).toBeGreaterThan(0);
      expect((await client.call("POST", "/v2/deployments", createBody("pg-agent", "file:///nonexistent/x.git"))).status).toBe(409);
    } finally {
      await second.stop();
    }
  });
});
