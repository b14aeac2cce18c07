// A langgraph.json written for `langgraph build` (node_version, dependencies, dockerfile_lines, ...)
// starts Gantry as it is: those keys, and one no CLI knows, are ignored with a warning each kind,
// as the official CLIs drop them too.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { request } from "./http.js";

let server: RunningGantry;

beforeAll(async () => {
  server = await startGantry({ config: fixture("image-build", "langgraph.json") });
});

afterAll(async () => {
  await server?.stop();
});

const warnings = () =>
  server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; msg: string; keys?: string[] })
    .filter((entry) => entry.level === "warn" && entry.msg.startsWith("langgraph.json keys"));

it("starts and serves the project's graphs", async () => {
  const response = await request(server.url, "POST", "/runs/wait", { body: { assistant_id: "echo", input: { messages: ["hi"] } } });
  expect(response.status, response.text).toBe(200);
  expect(response.json).toMatchObject({ reply: "hi" });
});

it("names the image-build keys in one warning and the unknown key in another", () => {
  expect(warnings().map((w) => w.keys)).toEqual([["_INTERNAL_docker_tag", "dependencies", "dockerfile_lines", "node_version"], ["graph_timeout"]]);
});
