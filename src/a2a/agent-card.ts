// The agent card an assistant publishes (GET /.well-known/agent-card.json?assistant_id=…): who it
// is, what it takes and gives, and where its JSON-RPC endpoint is.
import type { Assistant } from "../domain/records.js";
import { PROTOCOL_VERSION, type AgentCard } from "./protocol.js";

/** A messages-based graph talks in text (and data); any other takes and gives JSON data only. */
export function modesOf(hasMessages: boolean): string[] {
  return hasMessages ? ["text/plain", "application/json"] : ["application/json"];
}

export function agentCard(assistant: Assistant, options: { endpointUrl: string; graphDescription?: string; hasMessages: boolean }): AgentCard {
  const description = assistant.description || options.graphDescription || `LangGraph assistant '${assistant.name}' running graph '${assistant.graph_id}'`;
  const modes = modesOf(options.hasMessages);
  return {
    protocolVersion: PROTOCOL_VERSION,
    name: assistant.name,
    description,
    url: options.endpointUrl,
    preferredTransport: "JSONRPC",
    version: String(assistant.version),
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: [
      {
        id: `${assistant.graph_id}-main`,
        name: assistant.name,
        description,
        tags: ["langgraph", assistant.graph_id],
        inputModes: modes,
        outputModes: modes,
      },
    ],
  };
}
