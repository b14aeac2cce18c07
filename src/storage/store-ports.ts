// The long-term store's storage port (spec §1.6, §2.6): JSON items under a namespace path and a key,
// with an optional TTL and optional embedding vectors. Every read takes `now` and never returns an
// item that expired before it, so expiry is exact even when the background sweep runs late.
import type { AuthFilter } from "./auth-filter.js";
import type { JsonObject } from "./records.js";

/** An item as it travels on the wire (spec §2.6). */
export interface StoreItem {
  namespace: string[];
  key: string;
  value: JsonObject;
  created_at: string;
  updated_at: string;
}

/** A search result; `score` is present only when the search ranked by a query vector. */
export interface StoreSearchItem extends StoreItem {
  score?: number | null;
}

/** One embedding of an item: the field path it came from and its vector. */
export interface StoreVector {
  field: string;
  vector: number[];
}

export interface StorePut {
  /** Non-empty labels, none containing "." (the adapters join labels with it). */
  namespace: string[];
  key: string;
  value: JsonObject;
  /** Minutes until the item expires, counted from every write and refresh; null for never. */
  ttl_minutes: number | null;
  /** Replaces the item's vectors; an empty list leaves it without any. */
  vectors: StoreVector[];
}

export type StoreComparisonOperator = "$ne" | "$gt" | "$gte" | "$lt" | "$lte";

/** A comparison on the value at `path` (keys from the item's value down). */
export interface StoreComparison {
  path: string[];
  op: StoreComparisonOperator;
  /** $ne takes any scalar; the ordering operators a number or a string, and match values of that type only. */
  operand: string | number | boolean | null;
}

/** A filter on item values: JSON containment (as jsonb @>) and comparisons, all ANDed. */
export interface StoreFilter {
  contains: JsonObject;
  comparisons: StoreComparison[];
}

export interface StoreSearch {
  /** Whole leading labels; [] searches everything. */
  namespacePrefix: string[];
  filter: StoreFilter;
  limit: number;
  offset: number;
  /** Rank by cosine similarity to this vector (items without vectors last, score null); otherwise newest update first. */
  queryVector?: number[];
  /** Restart the TTL of the items returned. */
  refreshTtl: boolean;
  /** The caller's auth filter on item values. */
  auth?: AuthFilter;
}

/** A namespace pattern: labels, where "*" matches any one label. */
export type NamespacePattern = string[];

export interface NamespaceListing {
  /** Namespaces whose leading labels match. */
  prefix?: NamespacePattern;
  /** Namespaces whose trailing labels match. */
  suffix?: NamespacePattern;
  /** Namespaces longer than this are cut to their first `maxDepth` labels (then deduplicated). */
  maxDepth?: number;
  limit: number;
  offset: number;
  /** Only namespaces holding items whose value matches this auth filter. */
  auth?: AuthFilter;
}

/**
 * With an auth filter, an item whose value does not match it is "hidden": never read, listed,
 * replaced or deleted (spec §6.5).
 */
export interface StoreRepo {
  /** Inserts or replaces the item; a replaced live item keeps its created_at. */
  put(item: StorePut, now: Date, auth?: AuthFilter): Promise<"written" | "hidden">;
  /** The live item, or null; with `refreshTtl`, its TTL restarts at `now`. */
  get(namespace: string[], key: string, options: { refreshTtl: boolean; auth?: AuthFilter }, now: Date): Promise<StoreItem | "hidden" | null>;
  /** Deleting a missing item succeeds. */
  delete(namespace: string[], key: string, auth?: AuthFilter): Promise<"deleted" | "hidden">;
  search(query: StoreSearch, now: Date): Promise<StoreSearchItem[]>;
  /** Distinct namespaces holding live items, in ascending label order. */
  listNamespaces(listing: NamespaceListing, now: Date): Promise<string[][]>;
  /** Deletes up to `limit` items that expired at or before `now`; returns how many. */
  sweepExpired(now: Date, limit: number): Promise<number>;
}
