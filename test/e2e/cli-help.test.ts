// The CLI as a user meets it, through the real bin: every command prints its own help with `--help`
// and with `gantry help <command>`, a mistyped command is answered with the command it likely
// meant, and `REDIS_CLUSTER=true gantry serve` is refused before anything is loaded or connected.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runGantryExpectingFailure } from "../support/gantry-process.js";

/** Resolves with the exit code and output, whatever the code; fails if the process starts listening. */
const gantry = runGantryExpectingFailure;

const GENERAL = "Usage: gantry <command> [options]";

/** Each command (as typed after `gantry`) and a line only its own help has. */
const COMMANDS: Array<[string[], string]> = [
  [["dev"], "Serves the graphs of a langgraph.json on one process"],
  [["serve"], "Runs one production replica"],
  [["control-plane"], "Serves the /v2/deployments API"],
  [["control-plane", "keys"], "create mints an API key for the control plane"],
  [["control-plane", "keys", "create"], "create mints an API key for the control plane"],
  [["control-plane", "keys", "list"], "create mints an API key for the control plane"],
  [["control-plane", "keys", "revoke"], "create mints an API key for the control plane"],
  [["deploy"], "Creates the deployment <name>"],
];

/** Lines of the other commands' help that a command's own help must not print. */
const othersOf = (own: string) => [GENERAL, ...COMMANDS.map(([, line]) => line)].filter((line) => line !== own);

describe.concurrent("gantry help", () => {
  for (const [command, own] of COMMANDS) {
    for (const args of [
      [...command, "--help"],
      ["help", ...command],
    ]) {
      it(`gantry ${args.join(" ")} prints that command's help and exits 0`, async ({ expect }) => {
        const run = await gantry(args);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toContain(own);
        for (const other of othersOf(own)) expect(run.stdout).not.toContain(other);
      });
    }
  }

  for (const args of [["help"], ["--help"]]) {
    it(`gantry ${args.join(" ")} prints the general help, naming every command, and exits 0`, async ({ expect }) => {
      const run = await gantry(args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(GENERAL);
      for (const command of ["dev", "serve", "control-plane", "deploy"]) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    });
  }

  it("answers a mistyped command with the nearest one and exits 2", async ({ expect }) => {
    const run = await gantry(["sevre"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown command 'sevre': did you mean 'gantry serve'?");
  });

  it("answers `gantry help` of a mistyped command with the nearest one and exits 2", async ({ expect }) => {
    const run = await gantry(["help", "deplyo"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("did you mean 'gantry deploy'?");
  });

  it("answers a mistyped control-plane subcommand with the nearest one and exits 2", async ({ expect }) => {
    const run = await gantry(["control-plane", "kyes"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("did you mean 'gantry control-plane keys'?");
  });

  it("lists the commands for a word near none of them, and exits 2", async ({ expect }) => {
    const run = await gantry(["frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown command 'frobnicate'; the commands are dev, serve, control-plane, deploy, help.");
  });
});

describe("REDIS_CLUSTER=true gantry serve", () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), "gantry-redis-cluster-"));
    // Importing the graph leaves a file behind: its absence shows the refusal came before graphs load.
    await writeFile(
      join(project, "graph.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(project, "imported"))}, "");\nexport const graph = {};\n`,
    );
    await writeFile(join(project, "langgraph.json"), JSON.stringify({ graphs: { agent: "./graph.mjs:graph" } }));
  });

  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it("exits 1 with the refusal before it connects to anything or loads a graph", async ({ expect }) => {
    // Nothing listens on port 1: a connection attempt would fail with another message.
    const run = await gantry(["serve", "--config", join(project, "langgraph.json"), "--port", "0"], {
      REDIS_CLUSTER: "true",
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/test",
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "gantry: REDIS_CLUSTER is set, but Gantry does not support Redis Cluster: point REDIS_URL (or REDIS_URI) at a standalone Redis",
    );
    expect(existsSync(join(project, "imported"))).toBe(false);
  });
});
