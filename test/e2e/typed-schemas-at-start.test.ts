// `gantry dev` reads the types of a TypeScript-typed project as it starts, before anyone asks: the
// reference's "assistants › schemas" gives the first /schemas request 30 s, which the reading alone
// took longer than on a loaded two-core machine when it began with that request.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningGantry, startGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { eventually, sdkClient } from "./http.js";

const CONFIG = fixture("typed-schemas", "langgraph.json");
// Reading the types of a project takes a few seconds on an idle machine, far more on a busy one.
const TYPES_READ_MS = 240_000;
const READ_LOG = "graph schemas read from TypeScript types";

const readLogLines = (server: RunningGantry) =>
  server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg?: string })
    .filter((line) => line.msg === READ_LOG);

describe("typed schemas read as gantry dev starts", () => {
  let server: RunningGantry;
  let client: Client;
  let cacheDir: string | undefined;

  beforeAll(async () => {
    // A cache of its own: the suite's shared one may already hold this project's types.
    cacheDir = await mkdtemp(join(tmpdir(), "gantry-schema-cache-"));
    server = await startGantry({ config: CONFIG, env: { GANTRY_SCHEMA_CACHE_DIR: cacheDir } });
    client = sdkClient(server.url);
  });

  afterAll(async () => {
    await server?.stop();
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });

  it(
    "schemas: the types are read with no request, and the first answer is typed from that reading",
    async () => {
      await eventually("the types read at start", async () => (readLogLines(server).length > 0 ? true : undefined), TYPES_READ_MS);
      const schemas = await client.assistants.getSchemas("drafting");
      expect((schemas.state_schema as { properties: unknown }).properties).toEqual({
        lines: { type: "array", items: { type: "string" } },
        topic: { type: "string" },
      });
      expect(readLogLines(server)).toHaveLength(1);
    },
    TYPES_READ_MS + 30_000,
  );
});
