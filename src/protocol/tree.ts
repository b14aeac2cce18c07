// agent.getTree: the agents of the thread's latest run and where each stands, rebuilt from the
// protocol events still held (lifecycle events, and namespaces other events mention), so any
// replica can answer it.
import type { AgentStatus, AgentTreeNode, Event, LifecycleData } from "@langchain/protocol";
import { isPrefixMatch, normalizeNamespaceSegment } from "@langchain/langgraph/stream";

interface Agent {
  namespace: string[];
  status: AgentStatus;
  graphName: string;
}

export function agentTree(events: readonly Event[], rootGraph: string): AgentTreeNode {
  // The latest run starts at its root `running` lifecycle event.
  let start = 0;
  events.forEach((event, index) => {
    if (isRootLifecycle(event) && (event.params.data as LifecycleData).event === "running") start = index;
  });
  const agents = new Map<string, Agent>();
  agents.set(key([]), { namespace: [], status: "started", graphName: rootGraph });
  for (const event of events.slice(start)) {
    const namespace = event.params.namespace;
    for (let length = 1; length <= namespace.length; length++) {
      const prefix = namespace.slice(0, length);
      if (!agents.has(key(prefix))) agents.set(key(prefix), { namespace: prefix, status: "started", graphName: normalizeNamespaceSegment(prefix.at(-1)!) });
    }
    if (event.method === "lifecycle") {
      const data = event.params.data as LifecycleData;
      const agent = agents.get(key(namespace))!;
      agent.status = data.event;
      if (typeof data.graph_name === "string") agent.graphName = data.graph_name;
    }
  }
  const build = (agent: Agent): AgentTreeNode => {
    const children = [...agents.values()]
      .filter((a) => a.namespace.length === agent.namespace.length + 1 && isPrefixMatch(a.namespace, agent.namespace))
      .sort((a, b) => JSON.stringify(a.namespace).localeCompare(JSON.stringify(b.namespace)))
      .map(build);
    return { namespace: agent.namespace, status: agent.status, graph_name: agent.graphName, ...(children.length > 0 ? { children } : {}) };
  };
  return build(agents.get(key([]))!);
}

const key = (namespace: readonly string[]) => namespace.join("\0");

const isRootLifecycle = (event: Event) => event.method === "lifecycle" && event.params.namespace.length === 0;
