// Store rules (spec §1.6, §7 `store`): namespace labels are non-empty and dot-free, values are
// objects, TTLs default from `store.ttl`, and with `store.index` items are embedded on put and a
// search `query` ranks by similarity (without an index the query is ignored, as on the platform).
// The /store routes and graphs' config.store both go through this service.
import { invalid } from "../errors.js";
import type { JsonObject } from "../storage/records.js";
import type { StoreItem, StoreRepo, StoreSearchItem } from "../storage/store-ports.js";
import { parseStoreFilter } from "./store-filter.js";
import { embedItem, embedQuery, type StoreIndex } from "./store-index.js";

export interface StoreSettings {
  /** Minutes; items put without a ttl get this one. */
  defaultTtl?: number;
  /** Whether reads restart TTLs when the caller does not say. */
  refreshOnRead: boolean;
  index?: StoreIndex;
}

export interface StorePutInput {
  namespace: string[];
  key: string;
  value: JsonObject;
  /** null/undefined: the configured fields; false: not embedded; a list: these field paths. */
  index?: false | string[] | null;
  /** Minutes; null/undefined: the default TTL, if any. */
  ttl?: number | null;
}

export interface StoreSearchInput {
  namespacePrefix: string[];
  filter?: JsonObject;
  limit?: number;
  offset?: number;
  query?: string;
  refreshTtl?: boolean;
}

export interface NamespaceListInput {
  prefix?: string[];
  suffix?: string[];
  maxDepth?: number;
  limit?: number;
  offset?: number;
}

export interface StoreService {
  put(input: StorePutInput): Promise<void>;
  get(namespace: string[], key: string, options?: { refreshTtl?: boolean }): Promise<StoreItem | null>;
  delete(namespace: string[], key: string): Promise<void>;
  search(input: StoreSearchInput): Promise<StoreSearchItem[]>;
  listNamespaces(input: NamespaceListInput): Promise<string[][]>;
  sweepExpired(now: Date, limit: number): Promise<number>;
}

/** Labels are joined with "." in storage and on GET's query string, so a "." inside one would split it. */
export function checkNamespace(labels: string[], field: string, options: { allowEmpty: boolean }): string[] {
  if (labels.length === 0 && !options.allowEmpty) throw invalid(`Field '${field}' must have at least one label`);
  labels.forEach((label, i) => {
    if (typeof label !== "string") throw invalid(`Field '${field}[${i}]' must be a string`);
    if (label === "") throw invalid(`Field '${field}[${i}]' is invalid: namespace labels cannot be empty`);
    if (label.includes(".")) throw invalid(`Field '${field}[${i}]' is invalid: namespace labels cannot contain '.' (got '${label}')`);
  });
  return labels;
}

function checkKey(key: string): string {
  if (typeof key !== "string" || key === "") throw invalid("Field 'key' must be a non-empty string");
  return key;
}

export function storeService(deps: { store: StoreRepo; settings: StoreSettings; now?: () => Date }): StoreService {
  const { store, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const index = settings.index;

  return {
    async put(input) {
      checkNamespace(input.namespace, "namespace", { allowEmpty: false });
      checkKey(input.key);
      if (typeof input.value !== "object" || input.value === null || Array.isArray(input.value)) {
        throw invalid("Field 'value' must be a JSON object");
      }
      const ttl = input.ttl ?? settings.defaultTtl ?? null;
      if (ttl !== null && !(ttl > 0)) throw invalid("Field 'ttl' must be a positive number of minutes");
      const fields = input.index === false ? [] : (input.index ?? index?.fields ?? []);
      const vectors = index && fields.length > 0 ? await embedItem(index, input.value, fields) : [];
      await store.put({ namespace: input.namespace, key: input.key, value: input.value, ttl_minutes: ttl, vectors }, now());
    },

    async get(namespace, key, options = {}) {
      checkNamespace(namespace, "namespace", { allowEmpty: false });
      checkKey(key);
      return store.get(namespace, key, { refreshTtl: options.refreshTtl ?? settings.refreshOnRead }, now());
    },

    async delete(namespace, key) {
      checkNamespace(namespace, "namespace", { allowEmpty: false });
      checkKey(key);
      await store.delete(namespace, key);
    },

    async search(input) {
      checkNamespace(input.namespacePrefix, "namespace_prefix", { allowEmpty: true });
      const filter = parseStoreFilter(input.filter ?? {});
      const queryVector = index && input.query ? await embedQuery(index, input.query) : undefined;
      return store.search(
        {
          namespacePrefix: input.namespacePrefix,
          filter,
          limit: input.limit ?? 10,
          offset: input.offset ?? 0,
          refreshTtl: input.refreshTtl ?? settings.refreshOnRead,
          ...(queryVector ? { queryVector } : {}),
        },
        now(),
      );
    },

    async listNamespaces(input) {
      if (input.prefix) checkNamespace(input.prefix, "prefix", { allowEmpty: true });
      if (input.suffix) checkNamespace(input.suffix, "suffix", { allowEmpty: true });
      if (input.maxDepth !== undefined && !(Number.isInteger(input.maxDepth) && input.maxDepth > 0)) {
        throw invalid("Field 'max_depth' must be a positive whole number");
      }
      return store.listNamespaces(
        {
          ...(input.prefix && input.prefix.length > 0 ? { prefix: input.prefix } : {}),
          ...(input.suffix && input.suffix.length > 0 ? { suffix: input.suffix } : {}),
          ...(input.maxDepth !== undefined ? { maxDepth: input.maxDepth } : {}),
          limit: input.limit ?? 100,
          offset: input.offset ?? 0,
        },
        now(),
      );
    },

    sweepExpired: (at, limit) => store.sweepExpired(at, limit),
  };
}
