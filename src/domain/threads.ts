// Thread rules: creates honour if_exists and the configured default TTL, patches merge metadata,
// copies need an existing source, and expired threads are swept.
import { conflict, invalid, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { CheckpointStore } from "../storage/checkpoint-ports.js";
import type { Page, Paged, SortOrder, ThreadFilter, ThreadRepo, ThreadSortField, ThreadTtlInput } from "../storage/ports.js";
import type { JsonObject, Thread, TtlStrategy } from "../storage/records.js";
import { readPath } from "./json-path.js";
import type { ThreadStateService } from "./thread-state.js";

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

export interface ThreadService {
  create(input: ThreadCreate): Promise<Thread>;
  get(threadId: string, options?: { includeTtl?: boolean }): Promise<Thread>;
  update(threadId: string, patch: { metadata?: JsonObject; ttl?: TtlInput }): Promise<Thread>;
  delete(threadId: string): Promise<void>;
  search(
    filter: ThreadFilter,
    sort: { by: ThreadSortField; order: SortOrder },
    page: Page,
    extract?: Record<string, string>,
  ): Promise<Paged<ThreadWithExtract>>;
  count(filter: ThreadFilter): Promise<number>;
  copy(threadId: string): Promise<Thread>;
  prune(threadIds: string[], strategy: TtlStrategy): Promise<number>;
  sweepExpired(now: Date, limit: number): Promise<number>;
}

export function threadService(deps: {
  threads: ThreadRepo;
  ttl: ThreadTtlDefaults;
  checkpoints: CheckpointStore;
  state: ThreadStateService;
}): ThreadService {
  const { threads, ttl: defaults, checkpoints, state } = deps;

  const toTtl = (ttl: TtlInput | undefined): ThreadTtlInput | undefined => {
    if (ttl === undefined) return undefined;
    if (typeof ttl === "number") return { strategy: "delete", ttl_minutes: ttl };
    return { strategy: ttl.strategy ?? "delete", ttl_minutes: ttl.ttl };
  };

  return {
    async create(input) {
      const supersteps = input.supersteps ?? [];
      const graphId = input.metadata?.graph_id;
      if (supersteps.length > 0 && typeof graphId !== "string") {
        throw invalid("Field 'supersteps' needs metadata.graph_id (the graph whose nodes the updates come from)");
      }
      if (supersteps.some((step) => step.updates.some((u) => u.command !== undefined && u.command !== null))) {
        throw invalid("Field 'supersteps[].updates[].command' is not supported; give the update as 'values' with 'as_node'");
      }
      const threadId = input.thread_id ?? newId();
      const ttl =
        toTtl(input.ttl) ?? (defaults.defaultTtl !== undefined ? { strategy: defaults.strategy, ttl_minutes: defaults.defaultTtl } : undefined);
      const created = await threads.create({ thread_id: threadId, metadata: input.metadata ?? {}, ...(ttl ? { ttl } : {}) });
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
        const existing = await threads.get(threadId);
        if (existing) return existing;
      }
      throw conflict(`Thread ${threadId} already exists`);
    },
    async get(threadId, options) {
      const thread = await threads.get(threadId, options);
      if (!thread) throw notFound(`Thread ${threadId} not found`);
      return thread;
    },
    async update(threadId, patch) {
      const ttl = toTtl(patch.ttl);
      const updated = await threads.update(threadId, { ...(patch.metadata ? { metadata: patch.metadata } : {}), ...(ttl ? { ttl } : {}) });
      if (!updated) throw notFound(`Thread ${threadId} not found`);
      return updated;
    },
    async delete(threadId) {
      if (!(await threads.delete(threadId))) throw notFound(`Thread ${threadId} not found`);
      await checkpoints.deleteThread(threadId);
    },
    async search(filter, sort, page, extract) {
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
    count: (filter) => threads.count(filter),
    async copy(threadId) {
      const copied = await threads.copy(threadId, newId());
      // The platform answers 409 (not 404) when the source of a copy is missing (spec §1.2).
      if (!copied) throw conflict(`Thread ${threadId} cannot be copied: it does not exist`);
      await checkpoints.copyThread(threadId, copied.thread_id);
      return copied;
    },
    async prune(threadIds, strategy) {
      if (threadIds.length === 0) return 0;
      const existing = await threads.existing(threadIds);
      if (strategy === "delete") {
        const deleted = await threads.deleteMany(existing);
        for (const id of existing) await checkpoints.deleteThread(id);
        return deleted;
      }
      // keep_latest drops every checkpoint but the newest; the thread and its latest state stay.
      for (const id of existing) {
        const latest = await checkpoints.latestCheckpointId(id);
        if (latest) await checkpoints.deleteBefore(id, latest);
      }
      return existing.length;
    },
    sweepExpired: (now, limit) => threads.sweepExpired(now, limit),
  };
}
