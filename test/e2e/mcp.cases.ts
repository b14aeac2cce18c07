// The /mcp endpoint through the official MCP client (@modelcontextprotocol/sdk's Client over its
// Streamable HTTP transport) against a real Gantry: assistants listed as tools, a call running one
// statelessly, a graph's failure as a tool error, the protocol's errors for unknown tools and
// malformed JSON-RPC, and custom auth confining each user to what its handlers allow. Run by
// mcp.test.ts (gantry dev on SQLite) and mcp-postgres.test.ts (gantry serve on PostgreSQL + Redis).
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { eventually, request } from "./http.js";

export const MCP_CONFIG = fixture("mcp", "langgraph.json");
export const AUTH_CONFIG = fixture("auth", "langgraph.json");

/** Starts a Gantry on its own fresh storage; stop() stops it and removes the storage. */
export type StartServer = (config: string) => Promise<{ server: RunningGantry; stop(): Promise<void> }>;

/** MCP requests must accept both answers the transport may give. */
const MCP_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function connect(url: string, token?: string): Promise<McpClient> {
  const client = new McpClient({ name: "gantry-e2e", version: "1.0.0" });
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), headers ? { requestInit: { headers } } : undefined));
  return client;
}

function useServer(start: StartServer, config: string): () => RunningGantry {
  let running: Awaited<ReturnType<StartServer>> | undefined;
  beforeAll(async () => {
    running = await start(config);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return () => {
    if (!running) throw new Error("The server was read before its beforeAll hook started it");
    return running.server;
  };
}

export function describeMcpE2E(label: string, start: StartServer): void {
  describe(`MCP (${label})`, () => {
    describe("without custom auth", () => {
      const server = useServer(start, MCP_CONFIG);
      let mcp: McpClient;

      beforeAll(async () => {
        mcp = await connect(server().url);
      });
      afterAll(async () => {
        await mcp?.close();
      });

      it("answers initialize statelessly: no session id", async () => {
        const response = await request(server().url, "POST", "/mcp", { body: INITIALIZE, headers: MCP_HEADERS });
        expect(response.status).toBe(200);
        expect(response.headers.get("mcp-session-id")).toBeNull();
        expect(response.json).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "gantry" }, capabilities: { tools: {} } } });
      });

      it("lists each graph's assistant as a tool with its description and the graph's input schema", async () => {
        const { tools } = await mcp.listTools();
        const echo = tools.find((t) => t.name === "echo");
        expect(echo).toMatchObject({
          description: "Repeats the last message back",
          inputSchema: { type: "object", properties: { messages: { type: "array", items: { type: "string" } } } },
        });
        expect(tools.map((t) => t.name)).toContain("fails");
      });

      it("lists an assistant created through the API under its own name, and one tool per name", async () => {
        const api = new Client({ apiUrl: server().url, callerOptions: { maxRetries: 0 } });
        await api.assistants.create({ graphId: "echo", name: "parrot", description: "Says it again" });
        await api.assistants.create({ graphId: "echo", name: "echo", description: "A second assistant named echo" });
        const { tools } = await mcp.listTools();
        expect(tools.find((t) => t.name === "parrot")).toMatchObject({ description: "Says it again", inputSchema: { type: "object" } });
        const named = tools.filter((t) => t.name === "echo");
        expect(named).toHaveLength(1);
        expect(named[0]!.description).toBe("Repeats the last message back");
      });

      it("runs the assistant when its tool is called and answers with the run's output", async () => {
        const result = await mcp.callTool({ name: "echo", arguments: { messages: ["hello", "over MCP"] } });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ messages: ["hello", "over MCP"], reply: "over MCP", count: 1 });
        const [content] = result.content as Array<{ type: string; text: string }>;
        expect(content!.type).toBe("text");
        expect(JSON.parse(content!.text)).toEqual(result.structuredContent);
      });

      it("runs an assistant created through the API by its name", async () => {
        const result = await mcp.callTool({ name: "parrot", arguments: { messages: ["polly"] } });
        expect(result.structuredContent).toMatchObject({ reply: "polly" });
      });

      it("answers a graph that throws with a tool error carrying the error, not a protocol error", async () => {
        const result = await mcp.callTool({ name: "fails", arguments: { text: "x" } });
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: "text", text: "BoomError: boom" }]);
      });

      it("cancels the run of a call whose client went away", async () => {
        const api = new Client({ apiUrl: server().url, callerOptions: { maxRetries: 0 } });
        const leaving = new AbortController();
        const call = fetch(`${server().url}/mcp`, {
          method: "POST",
          headers: MCP_HEADERS,
          body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "slow", arguments: { ms: 120_000, label: "mcp" } } }),
          signal: leaving.signal,
        }).catch((err: unknown) => err);
        const [thread] = await eventually(
          "the call's run to be running",
          async () => {
            const busy = await api.threads.search({ metadata: { graph_id: "slow" }, status: "busy" });
            return busy.length > 0 ? busy : undefined;
          },
          30_000,
        );
        leaving.abort();
        await call;
        await eventually(
          "the run to be cancelled",
          async () =>
            server()
              .output()
              .split("\n")
              .find((line) => line.includes('"run cancelled"') && line.includes(thread!.thread_id)),
          30_000,
        );
      }, 60_000);

      it("refuses an unknown tool with the protocol's invalid-params error", async () => {
        const call = mcp.callTool({ name: "no-such-assistant", arguments: {} });
        await expect(call).rejects.toBeInstanceOf(McpError);
        await expect(call).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining("Tool no-such-assistant not found") });
      });

      it("answers a body that is not JSON with a JSON-RPC parse error (-32700)", async () => {
        const response = await request(server().url, "POST", "/mcp", { body: '{"jsonrpc": "2.0", "id": 1,', headers: MCP_HEADERS });
        expect(response.status).toBe(400);
        expect(response.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError } });
      });

      it("answers JSON that is no JSON-RPC message with an invalid-request error (-32600), keeping its id", async () => {
        const response = await request(server().url, "POST", "/mcp", { body: { jsonrpc: "2.0", id: 7, method: 42 }, headers: MCP_HEADERS });
        expect(response.status).toBe(400);
        expect(response.json).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: ErrorCode.InvalidRequest, message: expect.stringContaining("method") } });
        const empty = await request(server().url, "POST", "/mcp", { body: [], headers: MCP_HEADERS });
        expect(empty.json).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
      });

      it("answers an unknown method with the protocol's method-not-found error", async () => {
        const response = await request(server().url, "POST", "/mcp", { body: { jsonrpc: "2.0", id: 3, method: "no/such" }, headers: MCP_HEADERS });
        expect(response.status).toBe(200);
        expect(response.json).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: ErrorCode.MethodNotFound } });
      });

      it("offers no SSE stream on GET (405) and ends no session on DELETE (a no-op)", async () => {
        const get = await request(server().url, "GET", "/mcp", { headers: { accept: "text/event-stream" } });
        expect(get.status).toBe(405);
        expect(get.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
        expect((await request(server().url, "DELETE", "/mcp")).status).toBe(204);
      });

      it("serves the trailing-slash path the platform's OpenAPI names", async () => {
        const response = await request(server().url, "POST", "/mcp/", { body: { ...INITIALIZE, id: 2 }, headers: MCP_HEADERS });
        expect(response.json).toMatchObject({ id: 2, result: { serverInfo: { name: "gantry" } } });
      });
    });

    describe("with custom auth", () => {
      const server = useServer(start, AUTH_CONFIG);
      const api = (token: string) =>
        new Client({ apiUrl: server().url, callerOptions: { maxRetries: 0 }, defaultHeaders: { Authorization: `Bearer ${token}` } });

      beforeAll(async () => {
        // The fixture's handlers stamp each assistant with its owner and show each user only their own.
        await api("token-alice").assistants.create({ graphId: "agent", name: "alice-agent", description: "Alice's" });
        await api("token-bob").assistants.create({ graphId: "agent", name: "bob-agent" });
      });

      it("refuses a request without credentials with 401, as the API does", async () => {
        const response = await request(server().url, "POST", "/mcp", { body: INITIALIZE, headers: MCP_HEADERS });
        expect(response.status).toBe(401);
        expect(response.json).toEqual({ detail: "Invalid or missing bearer token" });
        await expect(connect(server().url)).rejects.toThrow();
      });

      it("lists to each user only the assistants its handlers let it see", async () => {
        const alice = await connect(server().url, "token-alice");
        const bob = await connect(server().url, "token-bob");
        try {
          expect((await alice.listTools()).tools.map((t) => t.name)).toEqual(["alice-agent"]);
          expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(["bob-agent"]);
        } finally {
          await Promise.all([alice.close(), bob.close()]);
        }
      });

      it("runs a call as the caller and refuses another user's assistant as an unknown tool", async () => {
        const alice = await connect(server().url, "token-alice");
        try {
          const result = await alice.callTool({ name: "alice-agent", arguments: {} });
          expect(result.structuredContent).toMatchObject({ user_id: "alice", display_name: "Alice A." });
          await expect(alice.callTool({ name: "bob-agent", arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
        } finally {
          await alice.close();
        }
      });
    });
  });
}
