// Thread rules: creates honour if_exists and the configured default TTL, patches merge metadata,
// copies need an existing source, and expired threads are swept (deleted, or pruned to their latest
// checkpoint). Deleting a thread, by request or by TTL, deletes its event logs too (its runs', its
// thread stream's, its protocol stream's): a thread created later under the same id, perhaps by
// another user, starts with none of its events.
import { conflict, invalid, notFound } from "../errors.js";
import type { RunEventLog } from "../events/run-event-log.js";
import type { RunRepo } from "../storage/run-ports.js";
import { newId } from "../ids.js";
import type { CheckpointStore } from "../storage/checkpoint-ports.js";
import type { Page, Paged, SortOrder, ThreadFilter, ThreadRepo, ThreadSortField, ThreadTtlInput } from "../storage/ports.js";
import type { JsonObject, Thread, TtlStrategy } from "../storage/records.js";
import { readPath } from "./json-path.js";
import { authField, authorize, type Access } from "./access.js";
import type { ThreadStateService } from "./thread-state.js";
import { deleteThreads, eventLogsOf, keepLatest, sweepExpiredThreads } from "./thread-removal.js";

export interface ThreadTtlDefaults {
  strategy: TtlStrategy;
  /** Minutes; when set, threads created without a ttl get this one. */
  defaultTtl?: number;
}

export type TtlInput = number | { strategy?: TtlStrategy; ttl: number };

export interface ThreadCreate {
  thread_id?: string;
  metadata?: JsonObject;
  if_exists?: "raise" | "do_nothing";
  ttl?: TtlInput;
  supersteps?: Array<{ updates: Array<{ values?: unknown; command?: unknown; as_node: string }> }>;
}

export type ThreadWithExtract = Thread & { extracted?: Record<string, unknown> };

/** `access` (custom auth) runs the user's handlers and confines every operation to what they allow. */
export interface ThreadService {
  create(input: ThreadCreate, access?: Access): Promise<Thread>;
  get(threadId: string, options?: { includeTtl?: boolean }, access?: Access): Promise<Thread>;
  update(threadId: string, patch: { metadata?: JsonObject; ttl?: TtlInput }, access?: Access): Promise<Thread>;
  delete(threadId: string, access?: Access): Promise<void>;
  search(
    filter: ThreadFilter,
    sort: { by: ThreadSortField; order: SortOrder },
    page: Page,
    extract?: Record<string, string>,
    access?: Access,
  ): Promise<Paged<ThreadWithExtract>>;
  count(filter: ThreadFilter, access?: Access): Promise<number>;
  copy(threadId: string, access?: Access): Promise<Thread>;
  prune(threadIds: string[], strategy: TtlStrategy, access?: Access): Promise<number>;
  /**
   * One TTL sweep pass: up to `limit` expired threads, each deleted or pruned to its latest
   * checkpoint as its strategy says; returns how many.
   */
  sweepExpired(now: Date, limit: number): Promise<number>;
}

export interface ThreadServiceDeps {
  threads: ThreadRepo;
  ttl: ThreadTtlDefaults;
  checkpoints: CheckpointStore;
  state: ThreadStateService;
  /** For the logs a deleted thread leaves: its runs are listed before it goes (they go with it). */
  runs: RunRepo;
  events: RunEventLog;
}

export function threadService(deps: ThreadServiceDeps): ThreadService {
  const { threads, ttl: defaults, checkpoints, state } = deps;

  const toTtl = (ttl: TtlInput | undefined): ThreadTtlInput | undefined => {
    if (ttl === undefined) return undefined;
    if (typeof ttl === "number") return { strategy: "delete", ttl_minutes: ttl };
    return { strategy: ttl.strategy ?? "delete", ttl_minutes: ttl.ttl };
  };

  return {
    async create(request, access) {
      const input = { ...request, thread_id: request.thread_id ?? newId(), metadata: { ...(request.metadata ?? {}) } };
      const value: Record<string, unknown> = {
        thread_id: input.thread_id,
        metadata: input.metadata,
        if_exists: input.if_exists ?? "raise",
        ...(input.ttl !== undefined ? { ttl: input.ttl } : {}),
      };
      const auth = await authorize(access, "threads", "create", value);
      if (access) input.metadata = (value.metadata ?? {}) as JsonObject;
      const supersteps = input.supersteps ?? [];
      const graphId = input.metadata?.graph_id;
      if (supersteps.length > 0 && typeof graphId !== "string") {
        throw invalid("Field 'supersteps' needs metadata.graph_id (the graph whose nodes the updates come from)");
      }
      if (supersteps.some((step) => step.updates.some((u) => u.command !== undefined && u.command !== null))) {
        throw invalid("Field 'supersteps[].updates[].command' is not supported; give the update as 'values' with 'as_node'");
      }
      const threadId = input.thread_id;
      const ttl = toTtl(input.ttl) ?? (defaults.defaultTtl !== undefined ? { strategy: defaults.strategy, ttl_minutes: defaults.defaultTtl } : undefined);
      const created = await threads.create({ thread_id: threadId, metadata: input.metadata, ...(ttl ? { ttl } : {}) });
      if (created && supersteps.length > 0) {
        try {
          return await state.applySupersteps(threadId, graphId as string, supersteps);
        } catch (err) {
          // Nothing half-written: a thread whose supersteps were refused is removed again.
          await threads.delete(threadId);
          await checkpoints.deleteThread(threadId);
          throw err;
        }
      }
      if (created) return created;
      if (input.if_exists === "do_nothing") {
        // Someone else's thread under this id is a conflict, never a way to read it.
        const existing = await threads.get(threadId, authField(auth));
        if (existing) return existing;
      }
      throw conflict(`Thread ${threadId} already exists`);
    },
    async get(threadId, options, access) {
      const auth = await authorize(access, "threads", "read", { thread_id: threadId });
      const thread = await threads.get(threadId, { ...options, ...authField(auth) });
      if (!thread) throw notFound(`Thread ${threadId} not found`);
      return thread;
    },
    async update(threadId, request, access) {
      const patch = { ...request, ...(request.metadata ? { metadata: { ...request.metadata } } : {}) };
      const value: Record<string, unknown> = { thread_id: threadId, ...(patch.metadata ? { metadata: patch.metadata } : {}) };
      const auth = await authorize(access, "threads", "update", value);
      if (access && value.metadata) patch.metadata = value.metadata as JsonObject;
      const ttl = toTtl(patch.ttl);
      const updated = await threads.update(threadId, { ...(patch.metadata ? { metadata: patch.metadata } : {}), ...(ttl ? { ttl } : {}) }, auth);
      if (!updated) throw notFound(`Thread ${threadId} not found`);
      return updated;
    },
    async delete(threadId, access) {
      const auth = await authorize(access, "threads", "delete", { thread_id: threadId });
      const logs = await eventLogsOf(deps, [threadId]);
      if (!(await threads.delete(threadId, auth))) throw notFound(`Thread ${threadId} not found`);
      await checkpoints.deleteThread(threadId);
      await deps.events.delete(logs);
    },
    async search(request, sort, page, extract, access) {
      const filter = { ...request, ...authField(await searchAuth(request, page, access)) };
      const result = await threads.search(filter, sort, page);
      if (!extract || Object.keys(extract).length === 0) return result;
      return {
        total: result.total,
        items: result.items.map((thread) => ({
          ...thread,
          extracted: Object.fromEntries(Object.entries(extract).map(([alias, path]) => [alias, readPath(thread, path)])),
        })),
      };
    },
    count: async (filter, access) => threads.count({ ...filter, ...authField(await searchAuth(filter, undefined, access)) }),
    async copy(threadId, access) {
      const missing = () => conflict(`Thread ${threadId} cannot be copied: it does not exist`);
      const readAuth = await authorize(access, "threads", "read", { thread_id: threadId });
      // Under custom auth the copy is also a create (spec §6.4): its handler may stamp the new metadata.
      let stamped: JsonObject | undefined;
      const copyId = newId();
      if (access) {
        const source = await threads.get(threadId, authField(readAuth));
        if (!source) throw missing();
        const value: Record<string, unknown> = { thread_id: copyId, metadata: { ...source.metadata }, if_exists: "raise" };
        await access.authorize("threads", "create", value);
        stamped = (value.metadata ?? {}) as JsonObject;
      }
      let copied = await threads.copy(threadId, copyId, readAuth);
      // The platform answers 409 (not 404) when the source of a copy is missing (spec §1.2).
      if (!copied) throw missing();
      await checkpoints.copyThread(threadId, copied.thread_id);
      if (stamped && JSON.stringify(stamped) !== JSON.stringify(copied.metadata)) copied = (await threads.update(copyId, { metadata: stamped })) ?? copied;
      return copied;
    },
    async prune(threadIds, strategy, access) {
      if (threadIds.length === 0) return 0;
      const auth = await authorize(access, "threads", "delete", { thread_ids: threadIds });
      const existing = await threads.existing(threadIds, auth);
      if (strategy === "delete") return deleteThreads(deps, existing);
      await keepLatest(deps, existing);
      return existing.length;
    },
    sweepExpired: (now, limit) => sweepExpiredThreads(deps, now, limit),
  };
}

function searchAuth(filter: ThreadFilter, page: Page | undefined, access: Access | undefined) {
  // Without custom auth, nothing to build: searches are the hot path.
  if (!access) return undefined;
  return authorize(access, "threads", "search", {
    // A copy: a handler that changes the search value does not change the search.
    metadata: { ...(filter.metadata ?? {}) },
    ids: filter.ids ? [...filter.ids] : null,
    status: filter.status ?? null,
    values: { ...(filter.values ?? {}) },
    limit: page?.limit ?? null,
    offset: page?.offset ?? null,
  });
}
