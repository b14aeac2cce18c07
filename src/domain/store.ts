// Store rules (spec §1.6, §7 `store`): namespace labels are non-empty and dot-free, values are
// objects, TTLs default from `store.ttl`, and with `store.index` items are embedded on put and a
// search `query` ranks by similarity (without an index the query is ignored, as on the platform).
// The /store routes and graphs' config.store both go through this service.
import { forbidden, invalid, notFound } from "../errors.js";
import { matchesAuthFilter } from "../storage/auth-filter.js";
import type { Access } from "./access.js";
import type { JsonObject } from "../storage/records.js";
import type { StoreItem, StoreRepo, StoreSearchItem } from "../storage/store-ports.js";
import { parseStoreFilter } from "./store-filter.js";
import type { StoreIndex } from "../runtime/store-embedder.js";
import { MAX_NAMESPACE_LABELS, MAX_STORE_PATH_BYTES } from "./limits.js";
import { embedItem, embedQuery } from "./store-index.js";

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

/**
 * `access` (custom auth) runs the `store:*` handlers, which may rewrite the namespace (the
 * per-user pattern, spec §6.5) and return a filter on item values: an existing item that does not
 * match is a 404, a new one that would not match a 403.
 */
export interface StoreService {
  put(input: StorePutInput, access?: Access): Promise<void>;
  get(namespace: string[], key: string, options?: { refreshTtl?: boolean }, access?: Access): Promise<StoreItem | null>;
  delete(namespace: string[], key: string, access?: Access): Promise<void>;
  search(input: StoreSearchInput, access?: Access): Promise<StoreSearchItem[]>;
  listNamespaces(input: NamespaceListInput, access?: Access): Promise<string[][]>;
  sweepExpired(now: Date, limit: number): Promise<number>;
}

/** Labels are joined with "." in storage and on GET's query string, so a "." inside one would split it. */
export function checkNamespace(labels: string[], field: string, options: { allowEmpty: boolean }): string[] {
  if (labels.length === 0 && !options.allowEmpty) throw invalid(`Field '${field}' must have at least one label`);
  if (labels.length > MAX_NAMESPACE_LABELS) throw invalid(`Field '${field}' has ${labels.length} labels; a namespace has at most ${MAX_NAMESPACE_LABELS}`);
  labels.forEach((label, i) => {
    if (typeof label !== "string") throw invalid(`Field '${field}[${i}]' must be a string`);
    if (label === "") throw invalid(`Field '${field}[${i}]' is invalid: namespace labels cannot be empty`);
    if (label.includes(".")) throw invalid(`Field '${field}[${i}]' is invalid: namespace labels cannot contain '.' (got '${label}')`);
  });
  return labels;
}

const hidden = (namespace: string[], key: string) => notFound(`Item '${key}' not found in namespace ${JSON.stringify(namespace)}`);

/** The namespace a handler left in `value`, checked again: it may have rewritten it. */
function namespaceAfter(value: Record<string, unknown>, field: string, allowEmpty: boolean): string[] {
  if (!Array.isArray(value.namespace)) throw new Error(`The auth handler for store left '${field}' that is not a list of labels`);
  return checkNamespace(value.namespace as string[], field, { allowEmpty });
}

function checkKey(key: string): string {
  if (typeof key !== "string" || key === "") throw invalid("Field 'key' must be a non-empty string");
  return key;
}

function checkStorePathSize(namespace: string[], key: string): void {
  const bytes = Buffer.byteLength(namespace.join(".")) + Buffer.byteLength(key);
  if (bytes > MAX_STORE_PATH_BYTES) {
    throw invalid(`Fields 'namespace' and 'key' are too long: together they take ${bytes} bytes in UTF-8, and at most ${MAX_STORE_PATH_BYTES} are allowed`);
  }
}

export function storeService(deps: { store: StoreRepo; settings: StoreSettings; now?: () => Date }): StoreService {
  const { store, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const index = settings.index;

  return {
    async put(request, access) {
      const input = { ...request };
      checkNamespace(input.namespace, "namespace", { allowEmpty: false });
      checkKey(input.key);
      checkStorePathSize(input.namespace, input.key);
      if (typeof input.value !== "object" || input.value === null || Array.isArray(input.value)) {
        throw invalid("Field 'value' must be a JSON object");
      }
      let auth;
      if (access) {
        const value: Record<string, unknown> = { namespace: [...input.namespace], key: input.key, value: input.value, index: input.index ?? null };
        auth = await access.authorize("store", "put", value);
        input.namespace = namespaceAfter(value, "namespace", false);
        // Matched as the reference server does: the value with the item's namespace and key set over it.
        if (auth && !matchesAuthFilter({ ...input.value, namespace: input.namespace, key: input.key }, auth)) {
          throw forbidden(`Forbidden: the item's value does not match what store:put allows for user ${access.user.identity}`);
        }
      }
      const ttl = input.ttl ?? settings.defaultTtl ?? null;
      if (ttl !== null && !(ttl > 0)) throw invalid("Field 'ttl' must be a positive number of minutes");
      const fields = input.index === false ? [] : (input.index ?? index?.fields ?? []);
      const vectors = index && fields.length > 0 ? await embedItem(index, input.value, fields) : [];
      const written = await store.put({ namespace: input.namespace, key: input.key, value: input.value, ttl_minutes: ttl, vectors }, now(), auth);
      if (written === "hidden") throw hidden(request.namespace, input.key);
    },

    async get(requested, key, options = {}, access) {
      let namespace = checkNamespace(requested, "namespace", { allowEmpty: false });
      checkKey(key);
      let auth;
      if (access) {
        const value: Record<string, unknown> = { namespace: [...namespace], key };
        auth = await access.authorize("store", "get", value);
        namespace = namespaceAfter(value, "namespace", false);
      }
      const item = await store.get(namespace, key, { refreshTtl: options.refreshTtl ?? settings.refreshOnRead, ...(auth ? { auth } : {}) }, now());
      if (item === "hidden") throw hidden(requested, key);
      return item;
    },

    async delete(requested, key, access) {
      let namespace = checkNamespace(requested, "namespace", { allowEmpty: false });
      checkKey(key);
      let auth;
      if (access) {
        const value: Record<string, unknown> = { namespace: [...namespace], key };
        auth = await access.authorize("store", "delete", value);
        namespace = namespaceAfter(value, "namespace", false);
      }
      if ((await store.delete(namespace, key, auth)) === "hidden") throw hidden(requested, key);
    },

    async search(request, access) {
      const input = { ...request };
      checkNamespace(input.namespacePrefix, "namespace_prefix", { allowEmpty: true });
      let auth;
      if (access) {
        const value: Record<string, unknown> = {
          namespace: [...input.namespacePrefix],
          filter: input.filter ?? null,
          limit: input.limit ?? 10,
          offset: input.offset ?? 0,
          query: input.query ?? null,
        };
        auth = await access.authorize("store", "search", value);
        input.namespacePrefix = namespaceAfter(value, "namespace_prefix", true);
      }
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
          ...(auth ? { auth } : {}),
        },
        now(),
      );
    },

    async listNamespaces(request, access) {
      const input = { ...request };
      let auth;
      if (access) {
        const value: Record<string, unknown> = {
          namespace: [...(input.prefix ?? [])],
          suffix: input.suffix ?? null,
          max_depth: input.maxDepth ?? null,
          limit: input.limit ?? 100,
          offset: input.offset ?? 0,
        };
        auth = await access.authorize("store", "list_namespaces", value);
        input.prefix = namespaceAfter(value, "prefix", true);
      }
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
          ...(auth ? { auth } : {}),
        },
        now(),
      );
    },

    sweepExpired: (at, limit) => store.sweepExpired(at, limit),
  };
}
