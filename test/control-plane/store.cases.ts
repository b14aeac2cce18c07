// One set of cases for the control plane's store, run against SQLite and PostgreSQL.
import { randomUUID } from "node:crypto";
import { newId } from "../../src/ids.js";
import { expect, it } from "vitest";
import type { ControlPlaneStore, NewRevision } from "../../src/control-plane/storage/ports.js";

const TENANT = "00000000-0000-0000-0000-000000000000";

function deployment(name: string, tenant = TENANT) {
  // uuid7, as the service makes them: deployments created in the same millisecond still sort by id.
  return {
    id: newId(),
    tenant_id: tenant,
    name,
    source: "github" as const,
    deployment_type: "dev" as const,
    repo_url: "file:///repo.git",
    integration_id: null,
    build_on_push: false,
    install_command: null,
    build_command: null,
    resource_spec: { min_scale: 1 },
    custom_url: null as string | null,
    custom_host: null as string | null,
    status: "AWAITING_DATABASE" as const,
  };
}

function revision(deploymentId: string, ref = "main"): NewRevision {
  return {
    id: randomUUID(),
    deployment_id: deploymentId,
    source: "github",
    repo_ref: ref,
    langgraph_config_path: "langgraph.json",
    pinned_commit_sha: null,
    source_tarball_path: null,
    secrets_sealed: "v1:sealed",
    secret_names: ["A"],
  };
}

export function storeCases(open: () => ControlPlaneStore) {
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

  it("creates a deployment with its first revision, QUEUED and latest", async () => {
    const store = open();
    const d = deployment(unique("create"));
    const r = revision(d.id);
    const created = await store.createDeployment(d, r);
    expect(created).toMatchObject({
      id: d.id,
      name: d.name,
      latest_revision_id: r.id,
      active_revision_id: null,
      resource_spec: { min_scale: 1 },
      build_on_push: false,
    });
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(await store.getRevision(d.id, r.id)).toMatchObject({ seq: 1, status: "QUEUED", secret_names: ["A"], repo_commit_sha: null });
  });

  it("creates an internal_source deployment without a revision; its revisions keep the archive they build", async () => {
    const store = open();
    const d = { ...deployment(unique("upload")), source: "internal_source" as const, repo_url: "" };
    expect(await store.createDeployment(d, undefined)).toMatchObject({ latest_revision_id: null, source: "internal_source" });
    expect(await store.listRevisions(d.id, undefined, 10, 0)).toEqual([]);
    const tarball = `uploads/${d.id}/${randomUUID()}.tar.gz`;
    const r = { ...revision(d.id, ""), source: "internal_source" as const, source_tarball_path: tarball };
    expect(await store.updateDeployment(d.id, {}, r)).toMatchObject({ latest_revision_id: r.id });
    expect(await store.getRevision(d.id, r.id)).toMatchObject({ source: "internal_source", repo_ref: "", source_tarball_path: tarball, seq: 1 });
  });

  it("reads the deploy logs of all a deployment's revisions as one stream", async () => {
    const store = open();
    const d = deployment(unique("logs"));
    const r1 = revision(d.id);
    await store.createDeployment(d, r1);
    const r2 = revision(d.id, "v2");
    await store.updateDeployment(d.id, {}, r2);
    await store.appendLog(r1.id, "deploy", "INFO", "first server");
    await store.appendLog(r2.id, "build", "INFO", "a build line");
    await store.appendLog(r2.id, "deploy", "ERROR", "second server");
    const all = await store.readDeploymentLogs(d.id, { type: "deploy", order: "asc", limit: 10 });
    expect(all.map((l) => [l.revision_id, l.message])).toEqual([
      [r1.id, "first server"],
      [r2.id, "second server"],
    ]);
    expect((await store.readDeploymentLogs(d.id, { type: "deploy", order: "desc", limit: 1, level: "ERROR" })).map((l) => l.message)).toEqual([
      "second server",
    ]);
  });

  it("refuses a second live deployment with the same name in a tenant, with a conflict", async () => {
    const store = open();
    const name = unique("dup");
    const first = deployment(name);
    await store.createDeployment(first, revision(first.id));
    const second = deployment(name);
    await expect(store.createDeployment(second, revision(second.id))).rejects.toMatchObject({ kind: "conflict" });
    await store.markDeleting(first.id);
    await store.createDeployment(second, revision(second.id));
  });

  it("finds a deployment by its custom host, one live deployment per host", async () => {
    const store = open();
    const host = `${unique("agent")}.example.test`;
    const first = { ...deployment(unique("host")), custom_url: `https://${host}`, custom_host: host };
    await store.createDeployment(first, revision(first.id));
    expect((await store.findByCustomHost(["other.example.test", host]))?.id).toBe(first.id);
    const second = { ...deployment(unique("host")), custom_url: `http://${host}`, custom_host: host };
    await expect(store.createDeployment(second, revision(second.id))).rejects.toMatchObject({ kind: "conflict", message: expect.stringContaining(host) });
    const third = deployment(unique("host"));
    await store.createDeployment(third, revision(third.id));
    await expect(store.updateDeployment(third.id, { custom_url: `https://${host}`, custom_host: host })).rejects.toMatchObject({ kind: "conflict" });
    await store.markDeleting(first.id);
    expect(await store.findByCustomHost([host])).toBeUndefined();
    expect(await store.updateDeployment(third.id, { custom_url: `https://${host}`, custom_host: host })).toMatchObject({ custom_url: `https://${host}` });
    expect((await store.findByCustomHost([host]))?.id).toBe(third.id);
  });

  it("adds revisions newest first and filters them by status", async () => {
    const store = open();
    const d = deployment(unique("revs"));
    const r1 = revision(d.id);
    await store.createDeployment(d, r1);
    const r2 = revision(d.id, "v2");
    const updated = await store.updateDeployment(d.id, { build_on_push: true }, r2);
    expect(updated).toMatchObject({ latest_revision_id: r2.id, build_on_push: true });
    expect((await store.listRevisions(d.id, undefined, 10, 0)).map((r) => [r.id, r.seq])).toEqual([
      [r2.id, 2],
      [r1.id, 1],
    ]);
    expect(await store.setRevisionStatus(r1.id, "SKIPPED", ["QUEUED"])).toBe(true);
    expect(await store.setRevisionStatus(r1.id, "AWAITING_BUILD", ["QUEUED"])).toBe(false);
    expect((await store.listRevisions(d.id, ["SKIPPED"], 10, 0)).map((r) => r.id)).toEqual([r1.id]);
    expect((await store.listRevisions(d.id, undefined, 1, 1)).map((r) => r.id)).toEqual([r1.id]);
  });

  it("promotes a revision to DEPLOYED and active, and the deployment to READY", async () => {
    const store = open();
    const d = deployment(unique("promote"));
    const r = revision(d.id);
    await store.createDeployment(d, r);
    await store.setRevisionCommit(r.id, "a".repeat(40));
    await store.promote(d.id, r.id);
    expect(await store.getDeployment(d.id)).toMatchObject({ status: "READY", active_revision_id: r.id });
    expect(await store.getRevision(d.id, r.id)).toMatchObject({ status: "DEPLOYED", repo_commit_sha: "a".repeat(40) });
  });

  it("lists deployments newest first with filters, limit and offset", async () => {
    const store = open();
    const tag = unique("list");
    const tenant = randomUUID();
    const made = [];
    for (const n of [1, 2, 3]) {
      const d = deployment(`${tag}-${n}`, tenant);
      await store.createDeployment(d, revision(d.id));
      made.push(d.id);
    }
    expect((await store.listDeployments({ name_contains: tag }, 2, 0)).map((d) => d.name)).toEqual([`${tag}-3`, `${tag}-2`]);
    expect((await store.listDeployments({ name_contains: tag }, 2, 2)).map((d) => d.name)).toEqual([`${tag}-1`]);
    expect((await store.listDeployments({ tenant_id: tenant, ids: [made[0]!] }, 10, 0)).map((d) => d.id)).toEqual([made[0]]);
    expect(await store.listDeployments({ tenant_id: randomUUID() }, 10, 0)).toEqual([]);
  });

  it("pages logs by id in either order, filtered by level and text", async () => {
    const store = open();
    const d = deployment(unique("logs"));
    const r = revision(d.id);
    await store.createDeployment(d, r);
    for (const n of [1, 2, 3, 4]) await store.appendLog(r.id, "build", n === 4 ? "ERROR" : "INFO", `line ${n}`);
    await store.appendLog(r.id, "deploy", "INFO", "started");
    const first = await store.readLogs(r.id, { type: "build", order: "asc", limit: 2 });
    expect(first.map((l) => l.message)).toEqual(["line 1", "line 2"]);
    const next = await store.readLogs(r.id, { type: "build", order: "asc", limit: 2, after: first[1]!.id });
    expect(next.map((l) => l.message)).toEqual(["line 3", "line 4"]);
    expect((await store.readLogs(r.id, { type: "build", order: "desc", limit: 1 })).map((l) => l.message)).toEqual(["line 4"]);
    expect((await store.readLogs(r.id, { type: "build", order: "asc", limit: 10, level: "ERROR" })).map((l) => l.message)).toEqual(["line 4"]);
    expect((await store.readLogs(r.id, { type: "build", order: "asc", limit: 10, query: "LINE 2" })).map((l) => l.message)).toEqual(["line 2"]);
    expect(typeof first[0]!.timestamp).toBe("number");
  });

  it("purges a deployment with its revisions and logs", async () => {
    const store = open();
    const d = deployment(unique("purge"));
    const r = revision(d.id);
    await store.createDeployment(d, r);
    await store.appendLog(r.id, "build", "INFO", "x");
    await store.purgeDeployment(d.id);
    expect(await store.getDeployment(d.id)).toBeUndefined();
    expect(await store.getRevision(d.id, r.id)).toBeUndefined();
    expect(await store.readLogs(r.id, { type: "build", order: "asc", limit: 10 })).toEqual([]);
  });
}
