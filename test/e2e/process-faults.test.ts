// A Gantry process that must exit says why at error level in its structured log first, not only
// on stderr: a start-up that fails, and an exception or rejection that no code handled (here
// from a graph's node, the way a user's code can throw from a timer).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure, startGantry } from "../support/gantry-process.js";
import { eventually, request } from "./http.js";
import { SERVE_CONFIG } from "../scale/serve-cluster.js";

/** The JSON lines on stdout logged at error level. */
function errorLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.level === "error");
}

/** A project whose graph's one node, once run, fails outside any handler in the given way. */
async function projectFailingWith(dir: string, fault: string): Promise<string> {
  await writeFile(
    join(dir, "graph.mts"),
    // The project lives in a temp dir without node_modules: LangGraph is imported by its resolved URL.
    `import { Annotation, StateGraph, START, END } from ${JSON.stringify(import.meta.resolve("@langchain/langgraph"))};
const State = Annotation.Root({ n: Annotation<number> });
const node = () => {
  setTimeout(() => { ${fault} }, 0);
  return { n: 1 };
};
export const graph = new StateGraph(State).addNode("a", node).addEdge(START, "a").addEdge("a", END).compile();
`,
  );
  const config = join(dir, "langgraph.json");
  await writeFile(config, JSON.stringify({ graphs: { g: "./graph.mts:graph" } }));
  return config;
}

describe("a process that must exit", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-faults-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("logs a failed start-up at error level, and keeps the sentence on stderr", async () => {
    const failed = await runGantryExpectingFailure(["serve", "--config", SERVE_CONFIG, "--port", "0"], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
      REDIS_URL: "redis://127.0.0.1:1",
      LOG_JSON: "1",
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("gantry: Cannot connect to Redis at 127.0.0.1:1");
    expect(errorLines(failed.stdout)).toEqual([
      expect.objectContaining({ msg: "process stopped: start-up failed", reason: expect.stringContaining("Cannot connect to Redis") }),
    ]);
  });

  /** Runs the graph on a real `gantry dev`, then waits for the process to log why it stops and exit. */
  async function faultLine(fault: string, msg: string): Promise<Record<string, unknown>> {
    const sub = await mkdtemp(join(dir, "project-"));
    const server = await startGantry({ config: await projectFailingWith(sub, fault), dataDir: join(sub, "data") });
    try {
      await request(server.url, "POST", "/runs/wait", { body: { assistant_id: "g", input: {} } }).catch(() => undefined);
      const line = await eventually(`the line "${msg}"`, async () => errorLines(server.output()).find((entry) => entry.msg === msg));
      await expect(fetch(`${server.url}/ok`)).rejects.toThrow();
      return line;
    } finally {
      await server.stop();
    }
  }

  it("logs an exception no code caught at error level before exiting", async () => {
    const line = await faultLine('throw new Error("thrown from a timer");', "process stopped: an exception escaped every handler");
    expect(line).toMatchObject({ origin: "uncaughtException", err: { message: "thrown from a timer" } });
  });

  it("logs a rejection no code handled at error level before exiting", async () => {
    const line = await faultLine('void Promise.reject(new Error("rejected in a timer"));', "process stopped: a rejected promise had no handler");
    expect(line).toMatchObject({ err: { message: "rejected in a timer" } });
  });
});
