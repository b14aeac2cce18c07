// The MCP server for one request and one caller: tools/list shows the assistants the caller's
// `assistants:search` handler lets them see, tools/call runs one of them statelessly through the
// run service (its `threads:create_run` handler applies) and answers with the run's final output.
// It owns no state: a server is built per HTTP request, so any replica can answer any request.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Access } from "../domain/access.js";
import type { AssistantService } from "../domain/assistants.js";
import type { Assistant, JsonObject } from "../domain/records.js";
import type { RunOutputService } from "../domain/run-output.js";
import type { RunService } from "../domain/runs.js";
import type { Logger } from "../logging.js";
import { GANTRY_VERSION } from "../version.js";
import { firstNamed, toolFor, toolResult, uniqueByName, type JsonSchema } from "./assistant-tools.js";
import { isRefusal, toMcpError } from "./mcp-errors.js";

export interface AgentMcpDeps {
  assistants: AssistantService;
  runs: RunService;
  output: RunOutputService;
  /** The input schema of the assistant's graph, as GET /assistants/{id}/schemas reports it. */
  inputSchemaOf(assistant: Assistant): Promise<JsonSchema | null | undefined>;
  log: Logger;
}

export interface McpCaller {
  /** Under custom auth, the caller the auth middleware authenticated. */
  access: Access | undefined;
  /** The HTTP request's headers, for http.configurable_headers, as any run creation passes them. */
  headers: Record<string, string>;
  requestId: string;
}

const PAGE = 1000;

export function agentMcpServer(deps: AgentMcpDeps, caller: McpCaller): Server {
  const { assistants, runs, output, log } = deps;
  const { access } = caller;
  const server = new Server({ name: "gantry", version: GANTRY_VERSION }, { capabilities: { tools: {} } });

  /** Everything the caller may see with this name (or all when no name), paged through. */
  const visible = async (name?: string): Promise<Assistant[]> => {
    const found: Assistant[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await assistants.search(name ? { name } : {}, { by: "created_at", order: "asc" }, { limit: PAGE, offset }, access);
      found.push(...page.items);
      if (page.items.length < PAGE) return found;
    }
  };

  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (!isRefusal(err) && !(err instanceof McpError)) log.error("MCP request failed", { request_id: caller.requestId, err });
      throw toMcpError(err, caller.requestId);
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, () =>
    guarded(async () => {
      const { tools, hidden } = uniqueByName(await visible());
      for (const assistant of hidden) {
        log.warn("assistant not listed as an MCP tool: another assistant has its name", {
          request_id: caller.requestId,
          assistant_id: assistant.assistant_id,
          name: assistant.name,
        });
      }
      const listed: Tool[] = await Promise.all(tools.map(async (assistant) => toolFor(assistant, await deps.inputSchemaOf(assistant))));
      return { tools: listed };
    }),
  );

  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    guarded(async () => {
      const name = request.params.name;
      const assistant = firstNamed(await visible(name), name);
      if (!assistant) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
      const run = await runs.create(
        null,
        { assistant_id: assistant.assistant_id, input: (request.params.arguments ?? {}) as JsonObject },
        { headers: caller.headers },
        access,
      );
      // A call whose client left (the server is closed under it) stops the run it started: its
      // answer has nowhere to go, and its thread goes with the run.
      const cancel = () => void runs.cancel(undefined, run.run_id, "interrupt").catch(() => {});
      if (extra.signal.aborted) cancel();
      else extra.signal.addEventListener("abort", cancel, { once: true });
      try {
        return toolResult(await output.output(run, extra.signal));
      } finally {
        extra.signal.removeEventListener("abort", cancel);
      }
    }),
  );

  return server;
}
