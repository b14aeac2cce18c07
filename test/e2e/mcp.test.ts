// The /mcp endpoint under `gantry dev` on SQLite (mcp.cases.ts), and `http.disable_mcp` removing it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { openSqliteStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { request } from "./http.js";
import { describeMcpE2E } from "./mcp.cases.js";

describeMcpE2E("gantry dev, SQLite", async (config) => {
  const store = await openSqliteStore();
  const server = await store.start(config);
  return {
    server,
    stop: async () => {
      await server.stop();
      await store.dispose();
    },
  };
});

describe("http.disable_mcp", () => {
  let server: RunningGantry;

  beforeAll(async () => {
    server = await startGantry({ config: fixture("mcp", "langgraph.disabled.json") });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("removes /mcp: 404 with a detail, the rest of the API unchanged", async () => {
    const response = await request(server.url, "POST", "/mcp", {
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(response.status).toBe(404);
    expect(response.json).toHaveProperty("detail");
    expect((await request(server.url, "POST", "/assistants/search", { body: {} })).status).toBe(200);
  });
});
