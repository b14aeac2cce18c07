// A deployment's data belongs to the deployment: threads, runs and store items made on one
// revision are there on the next, a run under way during a rollout finishes, and DELETE removes
// the data. Run on the embedded SQLite data (data-sqlite.test.ts) and on a PostgreSQL database per
// deployment with Redis (data-postgres.test.ts); `storage` says where to look for the data.
import { Client } from "@langchain/langgraph-sdk";
import { rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
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
  type Api,
  type FixtureRepo,
  type RunningControlPlane,
} from "./support.js";

export interface DataStorage {
  /** Environment of the control plane (DATABASE_URL, REDIS_URL, schema). */
  env: Record<string, string>;
  /** The command revisions run as. */
  command: "dev" | "serve";
  /** Whether the deployment's data exists right now. */
  exists(cp: RunningControlPlane, deploymentId: string): Promise<boolean>;
  cleanup?(): Promise<void>;
}

type Reply = { input: string; reply: string };

/**
 * The replaced revision gives its gated run this long before it stops and the run goes back to the
 * queue: the run waits for a file the test writes only after that, so one second proves as much as
 * the suite's ten and the case does not sit through them.
 */
const SHORT_DRAIN = { GANTRY_DRAIN_TIMEOUT_MS: "1000" };

export function deploymentDataCases(name: string, storage: () => DataStorage): void {
  let repo: FixtureRepo;
  let cp: RunningControlPlane;
  let client: Api;
  let data: DataStorage;
  let deploymentId: string;
  let threadId: string;
  let gatedThread: string;
  let gatedRun: string;
  let gate: string;
  let firstRevision: string;

  const sdk = () => new Client({ apiUrl: `${cp.url}/deployments/${deploymentId}`, apiKey: API_KEY });

  beforeAll(async () => {
    data = storage();
    repo = createFixtureRepo();
    repo.commit("v1");
    cp = await startControlPlane(controlPlaneDataDir(), { ...data.env, ...SHORT_DRAIN });
    client = api(cp.url);
  });

  afterAll(async () => {
    await cp?.stop();
    repo?.remove();
    await data?.cleanup?.();
    if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
  });

  it(`${name}: a thread, a run and a store item made on the first revision`, async () => {
    const created = await client.call("POST", "/v2/deployments", createBody(`data-${Date.now()}`, repo.url));
    expect(created.status).toBe(201);
    deploymentId = created.body.id;
    firstRevision = created.body.latest_revision_id;
    expect((await revisionSettles(client, deploymentId, firstRevision)).status).toBe("DEPLOYED");
    expect(await data.exists(cp, deploymentId)).toBe(true);
    const deployLog = await client.call("GET", `/v2/deployments/${deploymentId}/revisions/${firstRevision}/logs?type=deploy&limit=5`);
    expect(deployLog.body.logs.map((l: { message: string }) => l.message).join("\n")).toContain(`Started the Agent Server: gantry ${data.command} `);

    threadId = (await sdk().threads.create()).thread_id;
    expect(((await sdk().runs.wait(threadId, "agent", { input: { input: "one" } })) as Reply).reply).toBe("v1:one");
    await sdk().store.putItem(["prefs", "user-1"], "color", { value: "blue" });

    // A run still under way when the rollout starts: it waits for a file the test creates later.
    gate = deploymentFile(cp.dataDir, deploymentId, `gate-${Date.now()}`);
    gatedThread = (await sdk().threads.create()).thread_id;
    gatedRun = (await sdk().runs.create(gatedThread, "gated", { input: { gate } })).run_id;
    await waitFor("the gated run to be running", async () => ((await sdk().runs.get(gatedThread, gatedRun)).status === "running" ? true : undefined));
  });

  it(`${name}: the next revision serves the same thread, state, history and store item`, async () => {
    repo.commit("v2");
    const patched = await client.call("PATCH", `/v2/deployments/${deploymentId}`, { source_revision_config: { repo_ref: "main" } });
    const second = patched.body.latest_revision_id;
    expect(second).not.toBe(firstRevision);
    expect((await revisionSettles(client, deploymentId, second)).status).toBe("DEPLOYED");
    await waitFor("the router to reach the second revision", async () =>
      ((await sdk().runs.wait(null, "agent", { input: { input: "probe" } })) as Reply).reply === "v2:probe" ? true : undefined,
    );

    const state = await sdk().threads.getState<Reply>(threadId);
    expect(state.values).toMatchObject({ input: "one", reply: "v1:one" });
    const before = await sdk().threads.getHistory(threadId, { limit: 100 });
    expect(before.length).toBeGreaterThan(0);
    const item = await sdk().store.getItem(["prefs", "user-1"], "color");
    expect(item?.value).toEqual({ value: "blue" });
    const runs = await sdk().runs.list(threadId);
    expect(runs.map((r) => r.status)).toEqual(["success"]);

    // The thread goes on where it was: its history grows instead of starting again.
    expect(((await sdk().runs.wait(threadId, "agent", { input: { input: "two" } })) as Reply).reply).toBe("v2:two");
    const after = await sdk().threads.getHistory(threadId, { limit: 100 });
    expect(after.length).toBeGreaterThan(before.length);
    expect((await sdk().runs.list(threadId)).map((r) => r.status)).toEqual(["success", "success"]);
  });

  it(`${name}: a run under way during the rollout is neither lost nor run twice`, async () => {
    // The first revision stops after its grace period: the run went back to the queue for the second.
    await waitFor("the first revision to stop", async () => {
      const logs = await client.call("GET", `/v2/deployments/${deploymentId}/revisions/${firstRevision}/logs?type=deploy&order=desc&limit=20`);
      return logs.body.logs.some((l: { message: string }) => l.message === "The Agent Server stopped") ? true : undefined;
    });
    writeFileSync(gate, "");
    const run = await waitFor("the gated run to finish", async () => {
      const current = await sdk().runs.get(gatedThread, gatedRun);
      return ["success", "error", "interrupted"].includes(current.status) ? current : undefined;
    });
    expect(run.status).toBe("success");
    const state = await sdk().threads.getState<{ steps: string[] }>(gatedThread);
    expect(state.values.steps).toEqual(["first", "second"]);
  });

  it(`${name}: DELETE removes the deployment's data`, async () => {
    expect((await client.call("DELETE", `/v2/deployments/${deploymentId}`)).status).toBe(204);
    await waitFor("the deployment to be purged", async () => ((await client.call("GET", `/v2/deployments/${deploymentId}`)).status === 404 ? true : undefined));
    expect(await data.exists(cp, deploymentId)).toBe(false);
  });
}
