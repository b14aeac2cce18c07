// A `ui` entry of langgraph.json that does not build stops `gantry dev` before it listens, with one
// line on stderr naming the graph, the file and esbuild's cause (config-errors.test.ts has the rest).
// Each start imports the bundler in a child process: seconds, more on a loaded machine.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runGantryExpectingFailure } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "gantry-ui-errors-"));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const CASES = [
  {
    what: "a syntax error",
    dir: "ui-syntax-error",
    mentions: (file: string) => ["Generative UI for graph 'agent'", `${file}:5:`, "does not build"],
    cause: /closing "div" tag/,
  },
  {
    what: "an import that resolves nowhere",
    dir: "ui-missing-import",
    mentions: (file: string) => ["Generative UI for graph 'agent'", `${file}:2:`, 'Could not resolve "chart-kit-nobody-installed"'],
    cause: /Could not resolve/,
  },
];

describe.concurrent("a ui entry that does not build", { timeout: 120_000 }, () => {
  it.for(CASES)("stops start-up with one message for $what", async ({ dir, mentions, cause }, { expect }) => {
    const file = fixture("broken", dir, "ui.jsx");
    const args = ["dev", "--config", fixture("broken", dir, "langgraph.json"), "--port", "0", "--data-dir", join(dataDir, dir)];
    const run = await runGantryExpectingFailure(args, undefined, 100_000);
    expect(run.code, run.stderr).not.toBe(0);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^gantry: /);
    expect(lines[0]).toMatch(cause);
    for (const text of mentions(file)) expect(lines[0]).toContain(text);
    expect(run.stdout).not.toContain('"listening"');
  });
});
