// Deployments are isolated from each other and from the control plane (issue 32): two deployments
// built from a local git repository, each with a secret; one runs a graph that tries every read a
// hostile tenant tried (other processes' environments, the control plane's keys file and database,
// the other deployment's data and build, a direct connection to the other's server). Each attempt
// fails, while the graph still reads its own build, its own data and its own secret.
import { Client } from "@langchain/langgraph-sdk";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendKeyHash } from "../../src/control-plane/api-keys.js";
import {
  API_KEY,
  api,
  controlPlaneDataDir,
  createBody,
  createFixtureRepo,
  revisionSettles,
  SECRETS_KEY,
  startControlPlane,
  type Api,
  type FixtureRepo,
  type RunningControlPlane,
} from "./support.js";

/** Tries each read and says what came of it: "ok:<what was read>" or "error:<code>". */
const PROBE_GRAPH = `import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ targets: Annotation<Record<string, string>>, results: Annotation<Record<string, string>> });

const attempt = async (read: () => unknown): Promise<string> => {
  try {
    return "ok:" + String(await read());
  } catch (err) {
    return "error:" + ((err as { code?: string }).code ?? (err as Error).message);
  }
};

export const graph = new StateGraph(State)
  .addNode("probe", async (state: typeof State.State) => {
    const t = state.targets;
    const pids = readdirSync("/proc").filter((name) => /^[0-9]+$/.test(name));
    const environments: string[] = [];
    for (const pid of pids) {
      try {
        environments.push(readFileSync("/proc/" + pid + "/environ", "utf8").replaceAll("\\0", "\\n"));
      } catch {}
    }
    const results: Record<string, string> = {
      processes: "ok:" + pids.length,
      environments: "ok:" + environments.join("\\n"),
      controlPlaneEnviron: await attempt(() => readFileSync("/proc/" + t.controlPlanePid + "/environ", "utf8")),
      apiKeysFile: await attempt(() => readFileSync(t.apiKeysFile, "utf8")),
      controlPlaneDatabase: await attempt(() => readFileSync(t.controlPlaneDatabase).length),
      secretsKeyFile: await attempt(() => readdirSync(t.controlPlaneDataDir).join(",")),
      otherData: await attempt(() => readdirSync(t.otherDataDir).join(",")),
      otherDatabase: await attempt(() => readFileSync(t.otherDataDir + "/gantry.sqlite").length),
      otherBuild: await attempt(() => readFileSync(t.otherBuildDir + "/langgraph.json", "utf8")),
      otherServer: await attempt(async () => {
        const response = await fetch(t.otherServer + "/assistants/search", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        return response.status + " " + (await response.text());
      }),
      ownSecret: "ok:" + (process.env.FIXTURE_SECRET ?? "(unset)"),
      ownBuild: await attempt(() => JSON.parse(readFileSync("langgraph.json", "utf8")).graphs.probe),
      ownData: await attempt(() => {
        writeFileSync(t.ownDataDir + "/probe.txt", "mine");
        return readFileSync(t.ownDataDir + "/probe.txt", "utf8");
      }),
    };
    return { results };
  })
  .addEdge(START, "probe")
  .addEdge("probe", END)
  .compile();
`;

const SECRET = (name: string) => `${name}-secret-${Math.random().toString(36).slice(2)}`;

describe("deployments are isolated from each other and from the control plane", { timeout: 180_000 }, () => {
  let repo: FixtureRepo;
  let cp: RunningControlPlane;
  let client: Api;
  const secrets = { prober: SECRET("prober"), target: SECRET("target") };
  const deployments: Record<"prober" | "target", { id: string; revision: string }> = {} as never;
  let targetServer: string;
  let results: Record<string, string>;

  beforeAll(async () => {
    repo = createFixtureRepo();
    repo.commit("v1", {
      "src/probe.ts": PROBE_GRAPH,
      "langgraph.json": JSON.stringify({ graphs: { agent: "./src/agent.ts:graph", probe: "./src/probe.ts:graph" } }),
    });
    const dataDir = controlPlaneDataDir();
    // A keys file as `keys create` leaves it, besides the key the tests use.
    appendKeyHash(join(dataDir, "api-keys"), "gantry_another_key_" + Math.random().toString(36).slice(2), "second");
    cp = await startControlPlane(dataDir);
    client = api(cp.url);
    for (const name of ["target", "prober"] as const) {
      const created = await client.call(
        "POST",
        "/v2/deployments",
        createBody(`isolation-${name}`, repo.url, { secrets: [{ name: "FIXTURE_SECRET", value: secrets[name] }] }),
      );
      expect(created.status).toBe(201);
      deployments[name] = { id: created.body.id, revision: created.body.latest_revision_id };
    }
    for (const { id, revision } of Object.values(deployments)) expect((await revisionSettles(client, id, revision, 120_000)).status).toBe("DEPLOYED");
    const { target } = deployments;
    const logs = await client.call("GET", `/v2/deployments/${target.id}/revisions/${target.revision}/logs?type=deploy&limit=1000`);
    const listening = logs.body.logs.map((l: { message: string }) => /"msg":"listening","url":"([^"]+)"/.exec(l.message)?.[1]).find(Boolean);
    expect(listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    targetServer = listening;
    const sha = (await client.call("GET", `/v2/deployments/${target.id}/revisions/${target.revision}`)).body.source_revision_config.repo_commit_sha;

    const prober = new Client({ apiUrl: `${cp.url}/deployments/${deployments.prober.id}`, apiKey: API_KEY });
    const state = (await prober.runs.wait(null, "probe", {
      input: {
        targets: {
          controlPlanePid: String(cp.pid),
          controlPlaneDataDir: cp.dataDir,
          apiKeysFile: join(cp.dataDir, "api-keys"),
          controlPlaneDatabase: join(cp.dataDir, "control-plane.sqlite"),
          otherDataDir: join(cp.dataDir, "deployments", target.id, "data"),
          otherBuildDir: join(cp.dataDir, "builds", target.id, sha),
          otherServer: targetServer,
          ownDataDir: join(cp.dataDir, "deployments", deployments.prober.id, "data"),
        },
      },
    })) as { results: Record<string, string> };
    results = state.results;
  });

  afterAll(async () => {
    await cp?.stop();
    repo?.remove();
    if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
  });

  it("runs each deployment in its sandbox", async () => {
    for (const { id, revision } of Object.values(deployments)) {
      const logs = await client.call("GET", `/v2/deployments/${id}/revisions/${revision}/logs?type=deploy&limit=1000`);
      expect(logs.body.logs.map((l: { message: string }) => l.message).join("\n")).toContain("in its sandbox");
    }
  });

  it("sees only its own processes, and no environment but its own", () => {
    // The server (PID 1 of its namespace) and whatever it started: never the host's processes.
    expect(Number(results.processes!.slice(3))).toBeLessThan(5);
    const environments = results.environments!;
    expect(environments).toContain(`FIXTURE_SECRET=${secrets.prober}`);
    expect(environments).not.toContain(secrets.target);
    expect(environments).not.toContain(SECRETS_KEY);
    expect(environments).not.toContain(API_KEY);
    expect(environments).not.toMatch(/GANTRY_SECRETS_KEY|GANTRY_API_KEYS/);
    expect(results.controlPlaneEnviron).toMatch(/^error:|^ok:(?![\s\S]*GANTRY_SECRETS_KEY)/);
    expect(results.controlPlaneEnviron).not.toContain(SECRETS_KEY);
  });

  it("cannot read the control plane's keys file, database or data dir", () => {
    expect(results.apiKeysFile).toMatch(/^error:/);
    expect(results.controlPlaneDatabase).toMatch(/^error:/);
    // The data dir is an empty directory inside the sandbox, save the deployment's own dirs mounted into it.
    expect(results.secretsKeyFile).not.toMatch(/api-keys|control-plane\.sqlite|uploads/);
  });

  it("cannot read the other deployment's data or build", () => {
    expect(results.otherData).toMatch(/^error:ENOENT/);
    expect(results.otherDatabase).toMatch(/^error:ENOENT/);
    expect(results.otherBuild).toMatch(/^error:ENOENT/);
  });

  it("cannot call the other deployment's server directly, nor can any local process", async () => {
    expect(results.otherServer).toMatch(/^ok:403 /);
    expect(results.otherServer).not.toContain("graph_id");
    const direct = await fetch(`${targetServer}/assistants/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(direct.status).toBe(403);
    expect((await direct.json()).detail).toMatch(/only its control plane/);
    const health = await fetch(`${targetServer}/ok`);
    expect(health.status).toBe(403);
    const forged = await fetch(`${targetServer}/ok`, { headers: { "x-gantry-revision-token": "x".repeat(43) } });
    expect(forged.status).toBe(403);
  });

  it("still reads its own build, its own data and its own secret", async () => {
    expect(results.ownSecret).toBe(`ok:${secrets.prober}`);
    expect(results.ownBuild).toBe("ok:./src/probe.ts:graph");
    expect(results.ownData).toBe("ok:mine");
    // And the router still reaches the other deployment, with its own secret.
    const target = new Client({ apiUrl: `${cp.url}/deployments/${deployments.target.id}`, apiKey: API_KEY });
    const answer = (await target.runs.wait(null, "agent", { input: { input: "hi" } })) as { reply: string; secret: string };
    expect(answer).toMatchObject({ reply: "v1:hi", secret: secrets.target });
  });
});

describe("without a working sandbox", { timeout: 60_000 }, () => {
  let repo: FixtureRepo;
  let cp: RunningControlPlane;

  beforeAll(async () => {
    repo = createFixtureRepo();
    repo.commit("v1");
    // No bwrap on this PATH: as on a machine without bubblewrap.
    cp = await startControlPlane(controlPlaneDataDir(), { PATH: "/nonexistent-bin" });
  });

  afterAll(async () => {
    await cp?.stop();
    repo?.remove();
    if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
  });

  it("builds and starts nothing, and says why in its log and in the revision's build log", async () => {
    expect(cp.output()).toContain("no deployment will be built or started");
    const client = api(cp.url);
    const created = await client.call("POST", "/v2/deployments", createBody("unconfined", repo.url));
    expect(created.status).toBe(201);
    expect((await revisionSettles(client, created.body.id, created.body.latest_revision_id)).status).toBe("BUILD_FAILED");
    const logs = await client.call("GET", `/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id}/logs?type=build&limit=100`);
    const text = logs.body.logs.map((l: { message: string }) => l.message).join("\n");
    expect(text).toContain("bubblewrap (bwrap) is not installed");
    expect(text).toContain("GANTRY_SANDBOX=off");
    expect(text).not.toContain("Cloning");
  });
});
