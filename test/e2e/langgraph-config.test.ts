// LANGGRAPH_CONFIG as a project meets it (test/fixtures/graph-config: two graphs, defaults in the
// project's .env): the config and context of each graph's system assistant, and of assistants
// created without their own; the process environment over the project's; a system assistant that
// exists keeping its config across a restart, with a warning; and bad JSON stopping start-up.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure, startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { sdkClient } from "./http.js";

const CONFIG = fixture("graph-config", "langgraph.json");

const settingsOf = (values: unknown) => (values as { settings: Record<string, unknown> }).settings;

describe("LANGGRAPH_CONFIG", () => {
  let dataDir: string;
  let server: RunningGantry;
  let client: Client;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gantry-graph-config-"));
    server = await startGantry({ config: CONFIG, dataDir });
    client = sdkClient(server.url);
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  describe("from the project's env", () => {
    it("gives each graph's system assistant its entry: `context` as the context, the rest as the config", async () => {
      expect(await client.assistants.get("support")).toMatchObject({
        config: { configurable: { model: "small", tone: "calm" } },
        context: { team: "support" },
        metadata: { created_by: "system" },
      });
      const sales = await client.assistants.get("sales");
      expect(sales.config).toEqual({ recursion_limit: 5, configurable: { model: "large" } });
      expect(sales.context).toEqual({});
    });

    it("reaches the graph in runs of the system assistant, under what the run itself sets", async () => {
      expect(settingsOf(await client.runs.wait(null, "support", { input: {} }))).toEqual({
        model: "small",
        tone: "calm",
        team: "support",
        recursion_limit: 25,
      });
      expect(settingsOf(await client.runs.wait(null, "sales", { input: {} }))).toEqual({ model: "large", tone: null, team: null, recursion_limit: 5 });
      const overridden = await client.runs.wait(null, "support", { input: {}, config: { configurable: { tone: "brisk" } }, context: { team: "tier 2" } });
      expect(settingsOf(overridden)).toEqual({ model: "small", tone: "brisk", team: "tier 2", recursion_limit: 25 });
    });

    it("is the config and context of an assistant created without them, and only of what it leaves out", async () => {
      const plain = await client.assistants.create({ graphId: "support" });
      expect(plain.config).toEqual({ configurable: { model: "small", tone: "calm" } });
      expect(plain.context).toEqual({ team: "support" });
      expect(settingsOf(await client.runs.wait(null, plain.assistant_id, { input: {} }))).toMatchObject({ model: "small", team: "support" });

      const own = await client.assistants.create({ graphId: "support", config: { configurable: { model: "tiny" } } });
      expect(own.config).toEqual({ configurable: { model: "tiny" } });
      expect(own.context).toEqual({ team: "support" });
      const ownContext = await client.assistants.create({ graphId: "sales", context: { team: "emea" } });
      expect(ownContext.config).toEqual({ recursion_limit: 5, configurable: { model: "large" } });
      expect(ownContext.context).toEqual({ team: "emea" });
    });
  });

  it("reads the process environment over the project's, as for every variable of langgraph.json's env", async () => {
    const other = await startGantry({ config: CONFIG, env: { LANGGRAPH_CONFIG: JSON.stringify({ support: { configurable: { model: "medium" } } }) } });
    try {
      const otherClient = sdkClient(other.url);
      expect((await otherClient.assistants.get("support")).config).toEqual({ configurable: { model: "medium" } });
      expect((await otherClient.assistants.get("sales")).config).toEqual({});
    } finally {
      await other.stop();
    }
  });

  it("leaves a system assistant that exists as it is on a restart with other defaults, and says so", async () => {
    await server.stop();
    const changed = JSON.stringify({
      support: { configurable: { model: "xl" } },
      sales: { recursion_limit: 5, configurable: { model: "large" } },
      retired: {},
    });
    server = await startGantry({ config: CONFIG, dataDir, env: { LANGGRAPH_CONFIG: changed } });
    client = sdkClient(server.url);
    expect((await client.assistants.get("support")).config).toEqual({ configurable: { model: "small", tone: "calm" } });
    const warnings = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"level":"warn"'))
      .map((line) => JSON.parse(line) as { msg: string; graphs?: string[] });
    expect(warnings).toContainEqual(expect.objectContaining({ msg: expect.stringMatching(/^system assistants keep the config/), graphs: ["support"] }));
    expect(warnings).toContainEqual(expect.objectContaining({ msg: expect.stringMatching(/^LANGGRAPH_CONFIG names graphs/), graphs: ["retired"] }));
  });

  it("stops start-up on a value that is not JSON, naming the variable", async () => {
    const failed = await runGantryExpectingFailure(["dev", "--config", CONFIG, "--port", "0", "--data-dir", dataDir], { LANGGRAPH_CONFIG: "{support: {}}" });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/^gantry: Environment variable LANGGRAPH_CONFIG is not valid JSON/);
    expect(failed.stderr).not.toMatch(/^\s+at /m);
  });
});
