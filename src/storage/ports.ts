// Storage ports: what the domain needs from a backend. Each adapter (sqlite/, postgres/) implements
// them with hand-written SQL, and one conformance suite holds both to the same behaviour.
import type { AuthFilter } from "./auth-filter.js";
import type { CheckpointStore } from "./checkpoint-ports.js";
import type { CronRepo } from "./cron-ports.js";
import type { Assistant, AssistantVersion, Json, JsonObject, Thread, ThreadStatus, TtlStrategy } from "./records.js";
import type { RunRepo } from "./run-ports.js";
import type { StoreRepo } from "./store-ports.js";
import type { WebhookOutbox } from "./webhook-ports.js";

export type SortOrder = "asc" | "desc";

export interface Page {
  limit: number;
  offset: number;
}

/** A page of results and the number of rows that matched before paging. */
export interface Paged<T> {
  items: T[];
  total: number;
}

export interface NewAssistant {
  assistant_id: string;
  graph_id: string;
  config: JsonObject;
  context: JsonObject;
  metadata: JsonObject;
  name: string;
  description: string | null;
}

export interface AssistantPatch {
  graph_id?: string;
  config?: JsonObject;
  context?: JsonObject;
  /** Merged into the current metadata, key by key. */
  metadata?: JsonObject;
  name?: string;
  description?: string | null;
}

export interface AssistantFilter {
  /** JSON containment on metadata. */
  metadata?: JsonObject;
  graph_id?: string;
  /** Case-insensitive substring of the name. */
  name?: string;
  /** The caller's auth filter on metadata, ANDed with the rest. */
  auth?: AuthFilter;
}

export type AssistantSortField = "assistant_id" | "graph_id" | "name" | "created_at" | "updated_at";

/**
 * Methods taking `auth` treat an assistant whose metadata does not match it as missing (spec §6.5).
 */
export interface AssistantRepo {
  /** Inserts the assistant and its version 1 together. Returns null when the id exists. */
  create(input: NewAssistant): Promise<Assistant | null>;
  get(assistantId: string, auth?: AuthFilter): Promise<Assistant | null>;
  /** Writes version max+1 from the current one plus the patch and makes it current. */
  update(assistantId: string, patch: AssistantPatch, auth?: AuthFilter): Promise<Assistant | null>;
  delete(assistantId: string, auth?: AuthFilter): Promise<boolean>;
  search(filter: AssistantFilter, sort: { by: AssistantSortField; order: SortOrder }, page: Page): Promise<Paged<Assistant>>;
  count(filter: AssistantFilter): Promise<number>;
  /** Versions newest first; null when the assistant does not exist. */
  listVersions(assistantId: string, filter: { metadata?: JsonObject }, page: Page, auth?: AuthFilter): Promise<AssistantVersion[] | null>;
  /** Points the assistant at an existing version. Null when the assistant or the version is missing. */
  setLatest(assistantId: string, version: number, auth?: AuthFilter): Promise<Assistant | null>;
}

/** A thread a TTL sweep claimed, and what its strategy asks for. */
export interface ExpiredThread {
  thread_id: string;
  strategy: TtlStrategy;
}

export interface ThreadTtlInput {
  strategy: TtlStrategy;
  ttl_minutes: number;
}

export interface NewThread {
  thread_id: string;
  metadata: JsonObject;
  ttl?: ThreadTtlInput;
}

export interface ThreadPatch {
  /** Merged into the current metadata, key by key. */
  metadata?: JsonObject;
  ttl?: ThreadTtlInput;
}

export interface ThreadFilter {
  ids?: string[];
  metadata?: JsonObject;
  /** JSON containment on the current state values. */
  values?: JsonObject;
  status?: ThreadStatus;
  /** The caller's auth filter on metadata, ANDed with the rest. */
  auth?: AuthFilter;
}

export type ThreadSortField = "thread_id" | "status" | "created_at" | "updated_at" | "state_updated_at";

/**
 * Methods taking `auth` treat a thread whose metadata does not match it as missing (spec §6.5).
 */
export interface ThreadRepo {
  /** Returns null when the id exists. */
  create(input: NewThread): Promise<Thread | null>;
  /** With `includeTtl`, the thread carries `ttl` (null when it has none). */
  get(threadId: string, options?: { includeTtl?: boolean; auth?: AuthFilter }): Promise<Thread | null>;
  update(threadId: string, patch: ThreadPatch, auth?: AuthFilter): Promise<Thread | null>;
  delete(threadId: string, auth?: AuthFilter): Promise<boolean>;
  /** Deletes every thread whose metadata.assistant_id is the given id (and that matches `auth`); returns how many. */
  deleteByAssistant(assistantId: string, auth?: AuthFilter): Promise<number>;
  search(filter: ThreadFilter, sort: { by: ThreadSortField; order: SortOrder }, page: Page): Promise<Paged<Thread>>;
  count(filter: ThreadFilter): Promise<number>;
  /** Copies the thread row (metadata, config, values, status) under a new id; null when the source is missing. */
  copy(sourceId: string, newId: string, auth?: AuthFilter): Promise<Thread | null>;
  /**
   * Claims up to `limit` threads, not busy, whose TTL ran out at or before `now`, oldest expiry
   * first, and moves each one's expiry so no other sweeper claims it again: a `keep_latest` thread
   * to `now` plus its TTL (its next pruning), a `delete` thread to `retryAt` (a sweeper that dies
   * before deleting it leaves it to be claimed again then). Concurrent claims never overlap.
   */
  claimExpired(now: Date, limit: number, retryAt: Date): Promise<ExpiredThread[]>;
  /**
   * Records the thread's latest state after a state update outside a run. Only an idle,
   * interrupted or errored thread changes: a busy one returns "busy" and is left as it is.
   */
  setState(threadId: string, state: { values: Json | null; interrupts: JsonObject; status: "idle" | "interrupted" }): Promise<Thread | "busy" | null>;
  /** Ids of existing threads among `ids`. */
  existing(ids: string[], auth?: AuthFilter): Promise<string[]>;
  deleteMany(ids: string[]): Promise<number>;
}

export interface Storage {
  readonly backend: "sqlite" | "postgres";
  assistants: AssistantRepo;
  threads: ThreadRepo;
  runs: RunRepo;
  checkpoints: CheckpointStore;
  store: StoreRepo;
  crons: CronRepo;
  webhooks: WebhookOutbox;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  /** Statements sent to the database server since open, each one round trip (PostgreSQL; /metrics). */
  statementsSent?(): number;
  close(): Promise<void>;
}

export type { Json, JsonObject };
