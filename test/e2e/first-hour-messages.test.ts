// The messages a new user meets in the first hour (issue 34), over real HTTP and real start-ups:
// each says what is wrong and what to do: the valid values, the likely typo, the thread a resume
// needs, the file and line of a syntax error.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure, startGantry, type RunningGantry } from "../support/gantry-process.js";
import { describeWithRedis, TEST_REDIS_URL } from "../support/redis.js";
import { fixture, GRAPHS_CONFIG } from "./fixture-paths.js";
import { detailOf, request } from "./http.js";

let server: RunningGantry;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gantry-first-hour-"));
  server = await startGantry({ config: GRAPHS_CONFIG });
});

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("a run request", () => {
  it("with an unknown stream mode names the valid modes and the likely one", async () => {
    const response = await request(server.url, "POST", "/runs/wait", { body: { assistant_id: "echo", input: {}, stream_mode: "valuez" } });
    expect(response.status).toBe(422);
    expect(detailOf(response)).toMatch(/^Field 'stream_mode' must be one of 'values', .*'updates'.*, got "valuez" \(did you mean 'values'\?\)$/);
  });

  it("without assistant_id says the field is required", async () => {
    const response = await request(server.url, "POST", "/runs/wait", { body: { input: {} } });
    expect(response.status).toBe(422);
    expect(detailOf(response)).toBe("Field 'assistant_id' is required (expected string)");
  });

  it("resuming without a thread is a 422 saying a thread is needed", async () => {
    for (const path of ["/runs/wait", "/runs", "/runs/stream"]) {
      const response = await request(server.url, "POST", path, { body: { assistant_id: "echo", command: { resume: "yes" } } });
      expect(response.status, path).toBe(422);
      expect(detailOf(response)).toMatch(/^command\.resume needs a thread: .*POST \/threads\/\{thread_id\}\/runs/);
    }
  });
});

describe("a project that does not start", () => {
  const dev = (config: string) => ["dev", "--config", config, "--port", "0", "--data-dir", join(dir, "data")];

  it("with 'graph' for 'graphs' names the typo and the form", async () => {
    const config = join(dir, "typo.json");
    await writeFile(config, JSON.stringify({ graph: { agent: "./agent.ts:graph" } }));
    const run = await runGantryExpectingFailure(dev(config));
    expect(run.stderr.trim()).toBe(
      `gantry: Config file ${config} has no 'graphs', but has 'graph': did you mean 'graphs'? It takes a map of graph ids to modules, e.g. "graphs": {"agent": "./src/agent.ts:graph"}`,
    );
  });

  it("with a syntax error names the file and the line", async () => {
    const run = await runGantryExpectingFailure(dev(fixture("broken", "syntax-error", "langgraph.json")));
    expect(run.stderr).toContain(`SyntaxError at ${fixture("broken", "syntax-error", "agent.js")}:2:`);
  });

  it("with a malformed DATABASE_URL names the variable, the likely typo and the form", async () => {
    const run = await runGantryExpectingFailure(dev(GRAPHS_CONFIG), { DATABASE_URL: "postgress:/oops" });
    expect(run.stderr).toContain("DATABASE_URL 'postgress:/oops' starts with 'postgress:'");
    expect(run.stderr).toContain("(a typo for 'postgres:'?); write it as postgres://user:password@host:5432/database");
  });
});

// serve reaches Redis before PostgreSQL: a working Redis lets the database's message through.
await describeWithRedis("serve, when its database does not answer", () => {
  it("gives advice serve can follow (not the embedded file, which serve cannot use)", async () => {
    // Nothing listens on port 1.
    const run = await runGantryExpectingFailure(["serve", "--config", GRAPHS_CONFIG, "--port", "0"], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/test",
      REDIS_URL: TEST_REDIS_URL,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("gantry: Cannot connect to PostgreSQL at 127.0.0.1:1/test");
    expect(run.stderr).toContain("Check that it is running and that the database URL is right");
    expect(run.stderr).not.toContain("embedded SQLite");
  });
});

describe("the example project", () => {
  it("starts without a warning", async () => {
    const example = await startGantry({ config: fixture("..", "..", "examples", "langgraph.json") });
    try {
      const levels = example
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => (JSON.parse(line) as { level: string }).level);
      expect(levels).not.toContain("warn");
    } finally {
      await example.stop();
    }
  });
});
