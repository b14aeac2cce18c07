// Start-up failures as a user meets them: `gantry dev` on a broken project exits non-zero with one
// line on stderr that names the file (and the graph and the cause where there is one), with no
// stack trace, and never starts listening.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it, type ExpectStatic } from "vitest";
import { runGantryExpectingFailure, type FailedRun } from "../support/gantry-process.js";
import { fixture, GRAPHS_CONFIG } from "./fixture-paths.js";

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "gantry-config-errors-"));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const brokenConfig = (name: string) => fixture("broken", name, "langgraph.json");

/**
 * `gantry dev` with a throwaway data dir, so a config that wrongly starts writes nothing beside the
 * fixtures; one per run, since each run locks its directory before it loads the project.
 */
const dev = (config: string, ...extra: string[]) => ["dev", "--config", config, "--port", "0", "--data-dir", join(dataDir, randomUUID()), ...extra];

function expectOneMessage(expect: ExpectStatic, run: FailedRun, mentions: string[]): void {
  expect(run.code, run.stderr).not.toBe(0);
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gantry: /);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  for (const text of mentions) expect(lines[0]).toContain(text);
}

interface BrokenProject {
  what: string;
  dir: string;
  mentions: (config: string) => string[];
}

const BROKEN_PROJECTS: BrokenProject[] = [
  { what: "a langgraph.json that is not valid JSON", dir: "invalid-json", mentions: (c) => [c, "not valid JSON"] },
  { what: "a langgraph.json without graphs", dir: "no-graphs", mentions: (c) => [c, "'graphs'"] },
  { what: "a key of the wrong type", dir: "wrong-type", mentions: (c) => [c, "http.disable_threads", "boolean"] },
  {
    what: "a graph path to a file that does not exist",
    dir: "missing-module",
    mentions: () => ["Graph 'agent'", fixture("broken", "missing-module", "src", "agent.ts"), "does not exist"],
  },
  {
    what: "a graph module that throws on import",
    dir: "throws-on-import",
    mentions: () => ["Graph 'agent'", fixture("broken", "throws-on-import", "agent.ts"), "OPENAI_API_KEY is not set"],
  },
  {
    what: "a graph module with a syntax error",
    dir: "syntax-error",
    mentions: () => ["Graph 'agent'", fixture("broken", "syntax-error", "agent.js"), "SyntaxError"],
  },
  {
    what: "an export name the module does not have",
    dir: "missing-export",
    mentions: () => ["Graph 'agent'", fixture("graphs", "src", "echo.ts"), "'agent'"],
  },
  {
    what: "an export that is not a graph",
    dir: "not-a-graph",
    mentions: () => ["Graph 'agent'", fixture("broken", "not-a-graph", "agent.ts"), "not a graph"],
  },
  {
    what: "an env file that does not exist",
    dir: "missing-env-file",
    mentions: (c) => [c, fixture("broken", "missing-env-file", ".env.production")],
  },
  {
    what: "an http.app that is not a Hono app",
    dir: "bad-http-app",
    mentions: () => ["http.app", fixture("broken", "bad-http-app", "app.ts"), "not a Hono app"],
  },
];

describe.concurrent("a broken project", () => {
  it.for(BROKEN_PROJECTS)("stops start-up with one message for $what", async ({ dir, mentions }, { expect }) => {
    const config = brokenConfig(dir);
    expectOneMessage(expect, await runGantryExpectingFailure(dev(config)), mentions(config));
  });

  it("names a config file that does not exist and how to point at another", async ({ expect }) => {
    const config = join(dataDir, "nowhere", "langgraph.json");
    expectOneMessage(expect, await runGantryExpectingFailure(dev(config)), [config, "--config"]);
  });
});

describe.concurrent("a broken environment", () => {
  it("names an environment variable that is not valid", async ({ expect }) => {
    const run = await runGantryExpectingFailure(dev(GRAPHS_CONFIG), { HTTP_MAX_REQUEST_BODY_BYTES: "lots" });
    expectOneMessage(expect, run, ["HTTP_MAX_REQUEST_BODY_BYTES"]);
  });

  it("names DATABASE_URL when the database cannot be reached", async ({ expect }) => {
    const run = await runGantryExpectingFailure(dev(GRAPHS_CONFIG), { DATABASE_URL: "postgres://postgres@127.0.0.1:1/test" });
    expectOneMessage(expect, run, ["127.0.0.1:1", "DATABASE_URL"]);
  });

  it("says where the database is when it cannot be reached", async ({ expect }) => {
    const run = await runGantryExpectingFailure(dev(GRAPHS_CONFIG), { DATABASE_URL: "postgres://postgres@127.0.0.1:1/test" });
    expectOneMessage(expect, run, ["PostgreSQL", "127.0.0.1:1"]);
  });

  it("names --data-dir when the data dir cannot hold the SQLite file", async ({ expect }) => {
    const notADirectory = join(dataDir, "a-file");
    await writeFile(notADirectory, "");
    const run = await runGantryExpectingFailure(["dev", "--config", GRAPHS_CONFIG, "--port", "0", "--data-dir", notADirectory]);
    expectOneMessage(expect, run, [notADirectory, "--data-dir"]);
  });

  it("names --port when the port is taken", async ({ expect }) => {
    const taken: Server = createServer();
    await new Promise<void>((listening) => taken.listen(0, "127.0.0.1", listening));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const run = await runGantryExpectingFailure(["dev", "--config", GRAPHS_CONFIG, "--port", port, "--data-dir", dataDir]);
      expectOneMessage(expect, run, [port, "--port"]);
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
  });
});

describe.concurrent("a broken command line", () => {
  it("names a port that is not a number", async ({ expect }) => {
    const run = await runGantryExpectingFailure(["dev", "--config", GRAPHS_CONFIG, "--port", "abc", "--data-dir", dataDir]);
    expectOneMessage(expect, run, ["--port", "'abc'"]);
  });

  it("exits 2 and shows the usage for an unknown option", async ({ expect }) => {
    const run = await runGantryExpectingFailure(["dev", "--colour"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^gantry: Unknown option '--colour'/);
    expect(run.stderr).toContain("Usage: gantry");
  });

  it("exits 2 and shows the usage for an unknown command", async ({ expect }) => {
    const run = await runGantryExpectingFailure(["launch"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown command 'launch'");
    expect(run.stderr).toContain("Usage: gantry");
  });

  it("refuses to start `serve` without PostgreSQL and Redis, naming what is missing", async ({ expect }) => {
    const run = await runGantryExpectingFailure(["serve", "--config", GRAPHS_CONFIG]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "gantry serve needs DATABASE_URL (PostgreSQL; or DATABASE_URI, POSTGRES_URI_CUSTOM) and REDIS_URL (Redis; or REDIS_URI, REDIS_URI_CUSTOM)",
    );
  });
});
