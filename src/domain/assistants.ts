// Assistant rules: graph ids stand in for their system assistant, creates honour if_exists, patches
// write a new version, deleting may take the assistant's threads along. Keeps the assistants runs
// are created with in a cache of this process's own (assistant-cache.ts).
import { isDeepStrictEqual } from "node:util";
import { conflict, invalid, notFound } from "../errors.js";
import { isUuid, newId, systemAssistantId } from "../ids.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import type { AuthFilter } from "../storage/auth-filter.js";
import type { AssistantFilter, AssistantPatch, AssistantRepo, AssistantSortField, Page, Paged, SortOrder, ThreadRepo } from "../storage/ports.js";
import type { Assistant, AssistantVersion, JsonObject } from "../storage/records.js";
import { authField, authorize, type Access } from "./access.js";
import { assistantCache } from "./assistant-cache.js";

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

/** `access` (custom auth) runs the user's handlers and confines every operation to what they allow. */
export interface AssistantService {
  /** The assistant id for a path or body value that may be a UUID or a graph id. */
  resolveId(idOrGraphId: string): string;
  create(input: AssistantCreate, access?: Access): Promise<Assistant>;
  get(idOrGraphId: string, access?: Access): Promise<Assistant>;
  /**
   * The assistant a run (or a cron's runs) will execute. A graph's system assistant serves every
   * caller whom the run's own handler (`threads:create_run`) lets through; any other assistant
   * must pass the caller's `assistants:search` filter, as on the platform, so a user's assistant
   * stays unusable to users who cannot see it. Always read from storage; a read with no auth
   * filter refreshes this process's cache.
   */
  getForRun(idOrGraphId: string, access?: Access): Promise<Assistant>;
  /**
   * getForRun, answered from this process's cache when the read needs no auth filter (no custom
   * auth, or a graph's system assistant) and the assistant is cached. A cached answer may be
   * stale, so the run's enqueue must carry its version (EnqueueOptions.assistantVersion); on
   * `assistant_changed`, getForRun reads it afresh.
   */
  getForRunCached(idOrGraphId: string, access?: Access): Promise<AssistantForRun>;
  update(idOrGraphId: string, patch: AssistantPatch, access?: Access): Promise<Assistant>;
  delete(idOrGraphId: string, options: { deleteThreads: boolean }, access?: Access): Promise<void>;
  search(filter: AssistantFilter, sort: { by: AssistantSortField; order: SortOrder }, page: Page, access?: Access): Promise<Paged<Assistant>>;
  count(filter: AssistantFilter, access?: Access): Promise<number>;
  versions(idOrGraphId: string, filter: { metadata?: JsonObject }, page: Page, access?: Access): Promise<AssistantVersion[]>;
  setLatest(idOrGraphId: string, version: number, access?: Access): Promise<Assistant>;
}

export interface AssistantForRun {
  assistant: Assistant;
  /** Answered from the cache: storage must confirm it is still the assistant's current row. */
  cached: boolean;
}

/** A graph's defaults for new assistants (LANGGRAPH_CONFIG): what `config` and `context` are when a create leaves them out. */
export interface AssistantDefaults {
  config: JsonObject;
  context: JsonObject;
}

export function assistantService(deps: {
  assistants: AssistantRepo;
  threads: ThreadRepo;
  graphs: GraphRegistry;
  defaults?: Record<string, AssistantDefaults>;
}): AssistantService {
  const { assistants, threads, graphs } = deps;
  const defaults = deps.defaults ?? {};
  const cache = assistantCache();

  // Derived once: a uuid5 is a SHA-1, and the graph id is what most run creations name.
  const systemIds = new Map(graphs.ids().map((graphId) => [graphId, systemAssistantId(graphId)]));
  const systemIdSet = new Set(systemIds.values());
  // Made at start-up for its graph, under the id derived from that graph's id.
  const isSystemAssistant = (assistant: Assistant) =>
    assistant.metadata.created_by === "system" && systemIds.get(assistant.graph_id) === assistant.assistant_id;
  const resolveId = (idOrGraphId: string): string => {
    if (isUuid(idOrGraphId)) return idOrGraphId.toLowerCase();
    const systemId = systemIds.get(idOrGraphId);
    if (systemId !== undefined) return systemId;
    throw invalid(`Assistant id '${idOrGraphId}' is neither a UUID nor a graph id from langgraph.json (${graphs.ids().join(", ")})`);
  };

  const mustGet = async (assistantId: string, auth?: AuthFilter): Promise<Assistant> => {
    const found = await assistants.get(assistantId, auth);
    if (!found) throw notFound(`Assistant ${assistantId} not found`);
    return found;
  };

  /** A read with no auth filter finds the row as every caller sees it, so it refreshes the cache. */
  const readUnfiltered = async (assistantId: string): Promise<Assistant | null> => {
    const found = await assistants.get(assistantId);
    if (found) cache.set(found);
    else cache.delete(assistantId);
    return found;
  };

  const forRun = async (assistantId: string, access: Access | undefined, useCache: boolean): Promise<AssistantForRun> => {
    if (!access || systemIdSet.has(assistantId)) {
      const hit = useCache ? cache.get(assistantId) : undefined;
      if (hit && (!access || isSystemAssistant(hit))) return { assistant: hit, cached: true };
      const found = await readUnfiltered(assistantId);
      if (!access) {
        if (!found) throw notFound(`Assistant ${assistantId} not found`);
        return { assistant: found, cached: false };
      }
      if (found && isSystemAssistant(found)) return { assistant: found, cached: false };
    }
    // The platform asks the search handler with an empty search: the filter it returns is the one
    // that decides which assistants the caller may list, and so may run.
    return { assistant: await mustGet(assistantId, await access.authorize("assistants", "search", { metadata: {} })), cached: false };
  };

  const requireGraph = (graphId: string) => {
    if (!graphs.has(graphId)) {
      throw notFound(`Graph '${graphId}' not found. Graphs in langgraph.json: ${graphs.ids().join(", ")}`);
    }
  };

  return {
    resolveId,
    async create(request, access) {
      const input = { ...request, metadata: { ...(request.metadata ?? {}) } };
      requireGraph(input.graph_id);
      if (input.assistant_id !== undefined && !isUuid(input.assistant_id)) {
        throw invalid(`Field 'assistant_id' must be a UUID, got '${input.assistant_id}'`);
      }
      const assistantId = input.assistant_id?.toLowerCase() ?? newId();
      const config = input.config ?? defaults[input.graph_id]?.config ?? {};
      const context = input.context ?? defaults[input.graph_id]?.context ?? {};
      const value: Record<string, unknown> = {
        assistant_id: assistantId,
        graph_id: input.graph_id,
        config,
        context,
        metadata: input.metadata,
        if_exists: input.if_exists ?? "raise",
        name: input.name ?? "Untitled",
        description: input.description ?? null,
      };
      const auth = await authorize(access, "assistants", "create", value);
      if (access) input.metadata = (value.metadata ?? {}) as JsonObject;
      const created = await assistants.create({
        assistant_id: assistantId,
        graph_id: input.graph_id,
        config,
        context,
        metadata: input.metadata,
        name: input.name ?? "Untitled",
        description: input.description ?? null,
      });
      if (created) return created;
      if (input.if_exists === "do_nothing") {
        // Someone else's assistant under this id is a conflict, never a way to read it.
        const existing = await assistants.get(assistantId, auth);
        if (existing) return existing;
      }
      throw conflict(`Assistant ${assistantId} already exists`);
    },
    async get(idOrGraphId, access) {
      const assistantId = resolveId(idOrGraphId);
      return mustGet(assistantId, await authorize(access, "assistants", "read", { assistant_id: assistantId }));
    },
    getForRun: async (idOrGraphId, access) => (await forRun(resolveId(idOrGraphId), access, false)).assistant,
    getForRunCached: (idOrGraphId, access) => forRun(resolveId(idOrGraphId), access, true),
    async update(idOrGraphId, request, access) {
      const patch = { ...request, ...(request.metadata ? { metadata: { ...request.metadata } } : {}) };
      if (patch.graph_id !== undefined) requireGraph(patch.graph_id);
      const assistantId = resolveId(idOrGraphId);
      const value: Record<string, unknown> = { assistant_id: assistantId, ...patch };
      const auth = await authorize(access, "assistants", "update", value);
      if (access && value.metadata) patch.metadata = value.metadata as JsonObject;
      const updated = await assistants.update(assistantId, patch, auth);
      if (!updated) throw notFound(`Assistant ${assistantId} not found`);
      // Another replica's cache learns of it at its next enqueue; this one need not wait for that.
      cache.delete(assistantId);
      return updated;
    },
    async delete(idOrGraphId, options, access) {
      const assistantId = resolveId(idOrGraphId);
      const auth = await authorize(access, "assistants", "delete", { assistant_id: assistantId });
      await mustGet(assistantId, auth);
      if (options.deleteThreads) {
        // Only the threads the caller may delete: another user's thread may name this assistant too.
        const threadAuth = await authorize(access, "threads", "delete", { thread_id: null, assistant_id: assistantId });
        await threads.deleteByAssistant(assistantId, threadAuth);
      }
      const deleted = await assistants.delete(assistantId, auth);
      cache.delete(assistantId);
      if (!deleted) throw notFound(`Assistant ${assistantId} not found`);
    },
    search: async (filter, sort, page, access) => assistants.search({ ...filter, ...authField(await searchAuth(filter, page, access)) }, sort, page),
    count: async (filter, access) => assistants.count({ ...filter, ...authField(await searchAuth(filter, undefined, access)) }),
    async versions(idOrGraphId, filter, page, access) {
      const assistantId = resolveId(idOrGraphId);
      const auth = await authorize(access, "assistants", "read", { assistant_id: assistantId });
      const versions = await assistants.listVersions(assistantId, filter, page, auth);
      if (!versions) throw notFound(`Assistant ${assistantId} not found`);
      return versions;
    },
    async setLatest(idOrGraphId, version, access) {
      const assistantId = resolveId(idOrGraphId);
      const auth = await authorize(access, "assistants", "update", { assistant_id: assistantId, version });
      await mustGet(assistantId, auth);
      const updated = await assistants.setLatest(assistantId, version, auth);
      if (!updated) throw notFound(`Assistant ${assistantId} has no version ${version}`);
      cache.delete(assistantId);
      return updated;
    },
  };
}

function searchAuth(filter: AssistantFilter, page: Page | undefined, access: Access | undefined) {
  // Without custom auth, nothing to build: searches are the hot path.
  if (!access) return undefined;
  return authorize(access, "assistants", "search", {
    graph_id: filter.graph_id ?? null,
    // A copy: a handler that changes the search value does not change the search.
    metadata: { ...(filter.metadata ?? {}) },
    limit: page?.limit ?? null,
    offset: page?.offset ?? null,
  });
}

/**
 * One assistant per graph, created at start-up with the graph's defaults (LANGGRAPH_CONFIG) and
 * left alone when it exists (spec §0.1), as the official servers do: one that exists keeps the
 * config it has, which may have been changed through the API since. `drifted` names the graphs
 * whose existing system assistant no longer matches their defaults, so start-up can say so.
 */
export async function ensureSystemAssistants(
  repo: AssistantRepo,
  graphs: GraphRegistry,
  defaults: Record<string, AssistantDefaults> = {},
): Promise<{ created: string[]; drifted: string[] }> {
  const created: string[] = [];
  const drifted: string[] = [];
  for (const graphId of graphs.ids()) {
    const description = graphs.get(graphId).spec.description ?? null;
    const wanted = defaults[graphId];
    const assistantId = systemAssistantId(graphId);
    const made = await repo.create({
      assistant_id: assistantId,
      graph_id: graphId,
      config: wanted?.config ?? {},
      context: wanted?.context ?? {},
      metadata: { created_by: "system" },
      name: graphId,
      description,
    });
    if (made) created.push(graphId);
    else if (wanted) {
      const existing = await repo.get(assistantId);
      if (existing && !(isDeepStrictEqual(existing.config, wanted.config) && isDeepStrictEqual(existing.context, wanted.context))) drifted.push(graphId);
    }
  }
  return { created, drifted };
}
