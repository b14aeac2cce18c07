// Storage with LANGGRAPH_AES_JSON_KEYS applied: the named keys of thread and assistant metadata and
// of store values are sealed on the way in and opened on the way out, for both backends at once.
// Filters on a sealed key match nothing, as on the platform ("encrypted fields cannot be searched").
import type { AssistantRepo, Storage, ThreadRepo } from "../storage/ports.js";
import type { JsonObject } from "../storage/records.js";
import type { StoreRepo } from "../storage/store-ports.js";
import type { JsonKeyCipher } from "./json-keys.js";

type WithField<F extends string> = { [K in F]: JsonObject };

/** Opens `field` of whatever a repo returned: one record, a list, a page, or a status string. */
function openResult<T>(result: T, field: string, cipher: JsonKeyCipher): T {
  if (Array.isArray(result)) return result.map((item) => openResult(item, field, cipher)) as T;
  if (result === null || typeof result !== "object") return result;
  const record = result as Record<string, unknown>;
  if (Array.isArray(record.items) && !(field in record)) return { ...record, items: openResult(record.items, field, cipher) } as T;
  const value = record[field];
  if (value === null || typeof value !== "object" || Array.isArray(value)) return result;
  return { ...record, [field]: cipher.open(value as JsonObject) } as T;
}

function sealField<T extends Partial<WithField<F>>, F extends string>(input: T, field: F, cipher: JsonKeyCipher): T {
  const value = input[field];
  return value ? { ...input, [field]: cipher.seal(value) } : input;
}

/** Every method's result opened; the listed methods' argument at `argIndex` sealed first. */
function wrapRepo<R extends object>(repo: R, field: string, cipher: JsonKeyCipher, sealed: Partial<Record<keyof R, number>>): R {
  return new Proxy(repo, {
    get(target, property) {
      const method = Reflect.get(target, property, target) as unknown;
      if (typeof method !== "function") return method;
      const argIndex = sealed[property as keyof R];
      return async (...args: unknown[]) => {
        if (argIndex !== undefined && args[argIndex]) args[argIndex] = sealField(args[argIndex] as Record<string, JsonObject>, field, cipher);
        return openResult(await (method as (...a: unknown[]) => Promise<unknown>).apply(target, args), field, cipher);
      };
    },
  });
}

export function withJsonKeyEncryption(storage: Storage, cipher: JsonKeyCipher): Storage {
  return Object.assign(Object.create(storage) as Storage, {
    threads: wrapRepo<ThreadRepo>(storage.threads, "metadata", cipher, { create: 0, update: 1 }),
    assistants: wrapRepo<AssistantRepo>(storage.assistants, "metadata", cipher, { create: 0, update: 1 }),
    store: wrapRepo<StoreRepo>(storage.store, "value", cipher, { put: 0 }),
  });
}
