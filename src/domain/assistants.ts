// Assistant rules: graph ids stand in for their system assistant, creates honour if_exists, patches
// write a new version, deleting may take the assistant's threads along.
import { conflict, invalid, notFound } from "../errors.js";
import { isUuid, newId, systemAssistantId } from "../ids.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import type { AssistantFilter, AssistantPatch, AssistantRepo, AssistantSortField, Page, Paged, SortOrder, ThreadRepo } from "../storage/ports.js";
import type { Assistant, AssistantVersion, JsonObject } from "../storage/records.js";

export interface AssistantCreate {
  graph_id: string;
  assistant_id?: string;
  config?: JsonObject;
  context?: JsonObject;
  metadata?: JsonObject;
  if_exists?: "raise" | "do_nothing";
  name?: string;
  description?: string;
}

export interface AssistantService {
  /** The assistant id for a path or body value that may be a UUID or a graph id. */
  resolveId(idOrGraphId: string): string;
  create(input: AssistantCreate): Promise<Assistant>;
  get(idOrGraphId: string): Promise<Assistant>;
  update(idOrGraphId: string, patch: AssistantPatch): Promise<Assistant>;
  delete(idOrGraphId: string, options: { deleteThreads: boolean }): Promise<void>;
  search(filter: AssistantFilter, sort: { by: AssistantSortField; order: SortOrder }, page: Page): Promise<Paged<Assistant>>;
  count(filter: AssistantFilter): Promise<number>;
  versions(idOrGraphId: string, filter: { metadata?: JsonObject }, page: Page): Promise<AssistantVersion[]>;
  setLatest(idOrGraphId: string, version: number): Promise<Assistant>;
}

export function assistantService(deps: { assistants: AssistantRepo; threads: ThreadRepo; graphs: GraphRegistry }): AssistantService {
  const { assistants, threads, graphs } = deps;

  const resolveId = (idOrGraphId: string): string => {
    if (isUuid(idOrGraphId)) return idOrGraphId.toLowerCase();
    if (graphs.has(idOrGraphId)) return systemAssistantId(idOrGraphId);
    throw invalid(`Assistant id '${idOrGraphId}' is neither a UUID nor a graph id from langgraph.json (${graphs.ids().join(", ")})`);
  };

  const mustGet = async (assistantId: string): Promise<Assistant> => {
    const found = await assistants.get(assistantId);
    if (!found) throw notFound(`Assistant ${assistantId} not found`);
    return found;
  };

  const requireGraph = (graphId: string) => {
    if (!graphs.has(graphId)) {
      throw notFound(`Graph '${graphId}' not found. Graphs in langgraph.json: ${graphs.ids().join(", ")}`);
    }
  };

  return {
    resolveId,
    async create(input) {
      requireGraph(input.graph_id);
      if (input.assistant_id !== undefined && !isUuid(input.assistant_id)) {
        throw invalid(`Field 'assistant_id' must be a UUID, got '${input.assistant_id}'`);
      }
      const assistantId = input.assistant_id?.toLowerCase() ?? newId();
      const created = await assistants.create({
        assistant_id: assistantId,
        graph_id: input.graph_id,
        config: input.config ?? {},
        context: input.context ?? {},
        metadata: input.metadata ?? {},
        name: input.name ?? "Untitled",
        description: input.description ?? null,
      });
      if (created) return created;
      if (input.if_exists === "do_nothing") return mustGet(assistantId);
      throw conflict(`Assistant ${assistantId} already exists`);
    },
    async get(idOrGraphId) {
      return mustGet(resolveId(idOrGraphId));
    },
    async update(idOrGraphId, patch) {
      if (patch.graph_id !== undefined) requireGraph(patch.graph_id);
      const assistantId = resolveId(idOrGraphId);
      const updated = await assistants.update(assistantId, patch);
      if (!updated) throw notFound(`Assistant ${assistantId} not found`);
      return updated;
    },
    async delete(idOrGraphId, options) {
      const assistantId = resolveId(idOrGraphId);
      await mustGet(assistantId);
      if (options.deleteThreads) await threads.deleteByAssistant(assistantId);
      if (!(await assistants.delete(assistantId))) throw notFound(`Assistant ${assistantId} not found`);
    },
    search: (filter, sort, page) => assistants.search(filter, sort, page),
    count: (filter) => assistants.count(filter),
    async versions(idOrGraphId, filter, page) {
      const assistantId = resolveId(idOrGraphId);
      const versions = await assistants.listVersions(assistantId, filter, page);
      if (!versions) throw notFound(`Assistant ${assistantId} not found`);
      return versions;
    },
    async setLatest(idOrGraphId, version) {
      const assistantId = resolveId(idOrGraphId);
      await mustGet(assistantId);
      const updated = await assistants.setLatest(assistantId, version);
      if (!updated) throw notFound(`Assistant ${assistantId} has no version ${version}`);
      return updated;
    },
  };
}

/** One assistant per graph, created at start-up and left alone when it exists (spec §0.1). */
export async function ensureSystemAssistants(repo: AssistantRepo, graphs: GraphRegistry): Promise<string[]> {
  const created: string[] = [];
  for (const graphId of graphs.ids()) {
    const description = graphs.get(graphId).spec.description ?? null;
    const made = await repo.create({
      assistant_id: systemAssistantId(graphId),
      graph_id: graphId,
      config: {},
      context: {},
      metadata: { created_by: "system" },
      name: graphId,
      description,
    });
    if (made) created.push(graphId);
  }
  return created;
}
