// /mcp: the Model Context Protocol over Streamable HTTP (the SDK's Web-standard transport), with
// each assistant a tool (mcp/agent-mcp-server.ts). Stateless, as on the platform: every POST gets
// its own server and transport and no session id, so GET has no stream to offer (405) and DELETE
// has no session to end (a no-op).
import type { Context } from "hono";
import type { AssistantService } from "../../domain/assistants.js";
import type { JsonObject } from "../../domain/records.js";
import type { RunOutputService } from "../../domain/run-output.js";
import type { RunService } from "../../domain/runs.js";
import type { Logger } from "../../logging.js";
import { describeGraphSchemas } from "../../runtime/graph-info.js";
import type { GraphRegistry } from "../../runtime/graph-registry.js";
import type { TypedSchemaSource } from "../../runtime/typed-schemas/typed-schema-source.js";
import { accessOf, type AppEnv } from "../app-env.js";
import { onClientGone, readBodyText, requestHeaders } from "../node-request.js";
import { route, type RouteSpec } from "../route.js";

const TAG = "MCP";
/** JSON-RPC's implementation-defined server error, which the SDK's transport uses for refusals at the HTTP level. */
const SERVER_ERROR = -32000;

/**
 * The MCP SDK and Gantry's server on it, loaded at the first POST rather than at start: some 200
 * modules, about 0.3 s of start-up CPU, for an endpoint most servers never see used.
 */
let mcpModules:
  | Promise<
      [
        typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
        typeof import("../../mcp/agent-mcp-server.js"),
        typeof import("../../mcp/json-rpc-body.js"),
      ]
    >
  | undefined;
const loadMcp = () =>
  (mcpModules ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("../../mcp/agent-mcp-server.js"),
    import("../../mcp/json-rpc-body.js"),
  ]));

export interface McpRouteDeps {
  assistants: AssistantService;
  runs: RunService;
  output: RunOutputService;
  graphs: GraphRegistry;
  typedSchemas?: TypedSchemaSource;
  log: Logger;
}

export function mcpRoutes(deps: McpRouteDeps): RouteSpec[] {
  const { graphs, typedSchemas } = deps;
  const serverDeps = {
    assistants: deps.assistants,
    runs: deps.runs,
    output: deps.output,
    log: deps.log,
    inputSchemaOf: async (assistant: { graph_id: string; config: JsonObject }) => {
      const graph = await graphs
        .get(assistant.graph_id)
        .resolve({ configurable: assistant.config.configurable as JsonObject | undefined, ...assistant.config });
      const typed = typedSchemas ? () => typedSchemas.get(assistant.graph_id) : undefined;
      return (await describeGraphSchemas(assistant.graph_id, graph, typed)).input_schema;
    },
  };

  const post = async (c: Context<AppEnv>) => {
    const [{ WebStandardStreamableHTTPServerTransport }, { agentMcpServer }, { readJsonRpcBody }] = await loadMcp();
    const read = readJsonRpcBody(await readBodyText(c));
    if (!read.ok) return c.json(read.error, 400);
    const server = agentMcpServer(serverDeps, { access: accessOf(c), headers: requestHeaders(c), requestId: c.get("requestId") });
    // JSON answers rather than an SSE stream: a tool call answers once, when its run ends.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // A client that leaves ends the request here; closing the server then aborts its handlers, and
    // a tool call cancels its run. The answer nobody reads says so in the metrics (499, as nginx).
    let stopWatching = () => {};
    const clientGone = new Promise<Response>((resolve) => {
      stopWatching = onClientGone(c, () => resolve(new Response(null, { status: 499 })));
    });
    try {
      return await Promise.race([transport.handleRequest(c.req.raw, { parsedBody: read.body }), clientGone]);
    } finally {
      stopWatching();
      await server.close();
    }
  };

  const notAllowed = (c: Context<AppEnv>) =>
    c.json(
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: SERVER_ERROR, message: "Method not allowed: this MCP server is stateless and offers no SSE stream; POST JSON-RPC messages to /mcp" },
      },
      405,
      {
        Allow: "POST, DELETE",
      },
    );

  // The platform documents the endpoint as /mcp and its OpenAPI as /mcp/: both answer.
  return ["/mcp", "/mcp/"].flatMap((path): RouteSpec[] => [
    route({
      method: "post",
      path,
      tag: TAG,
      summary: "Send MCP JSON-RPC messages (Streamable HTTP, stateless): initialize, tools/list, tools/call",
      responses: {
        200: "JSON-RPC response",
        202: "Notifications accepted",
        400: "Malformed JSON-RPC (JSON-RPC error object)",
        406: "Accept must list application/json and text/event-stream",
      },
      handler: post,
    }),
    route({ method: "get", path, tag: TAG, summary: "No SSE stream: the server is stateless", responses: { 405: "Method not allowed" }, handler: notAllowed }),
    route({
      method: "delete",
      path,
      tag: TAG,
      summary: "End an MCP session: a no-op, the server keeps none",
      responses: { 204: "Nothing to end" },
      handler: (c) => c.body(null, 204),
    }),
  ]);
}
