// The /mcp endpoint under `gantry dev` on SQLite (mcp.cases.ts), a run refused by a handler, and
// `http.disable_mcp` removing the endpoint.
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
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

describe("MCP with a threads:create_run handler that refuses readers", () => {
  let server: RunningGantry;
  const connect = async (token: string) => {
    const client = new McpClient({ name: "gantry-e2e", version: "1.0.0" });
    const requestInit = { headers: { Authorization: `Bearer ${token}` } };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit }));
    return client;
  };

  beforeAll(async () => {
    server = await startGantry({ config: fixture("mcp", "langgraph.auth.json") });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("lists the tool to a reader but refuses its call with the handler's message as a JSON-RPC error", async () => {
    const reader = await connect("token-reader");
    try {
      expect((await reader.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
      await expect(reader.callTool({ name: "echo", arguments: { messages: ["hi"] } })).rejects.toMatchObject({
        code: ErrorCode.InvalidRequest,
        message: expect.stringContaining("Readers may not run assistants"),
      });
    } finally {
      await reader.close();
    }
  });

  it("runs the same call for a runner", async () => {
    const runner = await connect("token-runner");
    try {
      expect((await runner.callTool({ name: "echo", arguments: { messages: ["hi"] } })).structuredContent).toMatchObject({ reply: "hi" });
    } finally {
      await runner.close();
    }
  });
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
