// Storage with encryption applied to its JSON fields, for both backends at once: what a repo is
// given is sealed on the way in, and what it returns is opened on the way out. With LANGGRAPH_AES_KEY
// set, the fields that copy the graph's state are sealed whole (thread values and interrupts, run
// kwargs, cron payloads, webhook bodies waiting in the outbox), and store values key by key except
// the keys kept clear for search; LANGGRAPH_AES_JSON_KEYS seals the named keys of metadata wherever
// it is stored. A filter on a sealed field matches nothing, as on the platform ("encrypted fields
// cannot be searched").
import type { Storage } from "../storage/ports.js";
import type { Json, JsonObject, Run } from "../storage/records.js";
import type { NewRun, StoppedRunWebhook } from "../storage/run-ports.js";
import type { NewWebhookDelivery } from "../storage/webhook-ports.js";
import { jsonKeyCipher, openJson, sealJson } from "./json-keys.js";
import type { KeyRing } from "./key-ring.js";

export interface StorageEncryption {
  ring: KeyRing;
  /** LANGGRAPH_AES_JSON_KEYS: sealed in thread, assistant, run and cron metadata (and store values). */
  jsonKeys: readonly string[];
  /** Top-level keys of store values left clear, for store search filters and auth filters. */
  storeClearKeys: readonly string[];
}

type Fields = Record<string, (value: never) => unknown>;

/** `record` with each listed field present mapped, or `record` itself when none is. */
function mapFields<T>(record: T, fields: Fields): T {
  if (record === null || typeof record !== "object" || Array.isArray(record)) return record;
  let out: Record<string, unknown> | undefined;
  for (const [field, map] of Object.entries(fields)) {
    const value = (record as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    out ??= { ...(record as Record<string, unknown>) };
    out[field] = map(value as never);
  }
  return (out ?? record) as T;
}

/** `open` applied to each record of whatever a repo returned: one record, a list, a page, an enqueue result. */
function openResult<T>(result: T, open: (record: never) => unknown): T {
  if (Array.isArray(result)) return result.map((item) => openResult(item, open)) as T;
  if (result === null || typeof result !== "object" || result instanceof Map || result instanceof Set) return result;
  const record = result as Record<string, unknown>;
  if (Array.isArray(record.items)) return { ...record, items: openResult(record.items, open) } as T;
  if (typeof record.kind === "string") return mapFields(result, { run: open, claimed: open });
  return open(result as never) as T;
}

/** Every method's result opened; the listed methods' arguments sealed first. */
function wrapRepo<R extends object>(repo: R, open: (record: never) => unknown, seal: { [K in keyof R]?: (args: unknown[]) => void }): R {
  return new Proxy(repo, {
    get(target, property) {
      const method = Reflect.get(target, property, target) as unknown;
      if (typeof method !== "function") return method;
      const sealArgs = seal[property as keyof R];
      return async (...args: unknown[]) => {
        if (sealArgs) sealArgs(args);
        return openResult(await (method as (...a: unknown[]) => Promise<unknown>).apply(target, args), open);
      };
    },
  });
}

export function withEncryptedStorage(storage: Storage, { ring, jsonKeys, storeClearKeys }: StorageEncryption): Storage {
  // Opening goes by each value's marker, whatever sealed it: keys dropped from the lists still read.
  const metadata = jsonKeyCipher(ring, jsonKeys);
  const eachKey = jsonKeyCipher(ring, { except: [] });
  const storeValue = jsonKeyCipher(ring, { except: storeClearKeys });
  const sealMeta = (value: JsonObject) => metadata.seal(value);
  const openMeta = (value: JsonObject) => metadata.open(value);
  const sealWhole = <T>(value: T): T => sealJson(ring, value as Json) as T;
  const openWhole = <T>(value: T): T => openJson(ring, value);
  const sealEach = (value: JsonObject) => eachKey.seal(value);
  const openEach = (value: JsonObject) => eachKey.open(value);

  const metadataOnly: Fields = { metadata: openMeta };
  const openThread = (thread: never) => mapFields(thread, { metadata: openMeta, values: openWhole, interrupts: openEach });
  const openRun = (run: never) => mapFields(run, { metadata: openMeta, kwargs: openWhole });
  const openCron = (cron: never) => mapFields(cron, { metadata: openMeta, payload: openWhole });
  const openDelivery = (delivery: never) => mapFields(delivery, { payload: openWhole });
  const openItem = (item: never) => mapFields(item, { value: (value: JsonObject) => storeValue.open(value) });

  const sealRun = (run: NewRun): NewRun => mapFields(run, { metadata: sealMeta, kwargs: sealWhole });
  const sealDelivery = (delivery: NewWebhookDelivery | undefined) => delivery && mapFields(delivery, { payload: sealWhole });
  // Storage hands a stopped run to the callback as it stored it, and stores the delivery it gets back.
  const sealingWebhook =
    (webhookFor: StoppedRunWebhook | undefined): StoppedRunWebhook | undefined =>
    (run: Run) =>
      sealDelivery(webhookFor?.(openRun(run as never) as Run));
  const at =
    (index: number, fields: Fields) =>
    (args: unknown[]): void => {
      args[index] = mapFields(args[index], fields);
    };

  return Object.assign(Object.create(storage) as Storage, {
    assistants: wrapRepo(storage.assistants, (a: never) => mapFields(a, metadataOnly), {
      create: at(0, { metadata: sealMeta }),
      update: at(1, { metadata: sealMeta }),
    }),
    threads: wrapRepo(storage.threads, openThread, {
      create: at(0, { metadata: sealMeta }),
      update: at(1, { metadata: sealMeta }),
      setState: at(1, { values: sealWhole, interrupts: sealEach }),
    }),
    runs: wrapRepo(storage.runs, openRun, {
      enqueue(args) {
        args[0] = sealRun(args[0] as NewRun);
        args[1] = mapFields(args[1], {
          threadMetadata: sealMeta,
          createThread: (create: JsonObject) => mapFields(create, { metadata: sealMeta }),
          webhookFor: (webhookFor: StoppedRunWebhook) => sealingWebhook(webhookFor),
        });
      },
      enqueueOnNewThreads(args) {
        args[0] = (args[0] as { run: NewRun; threadMetadata: JsonObject }[]).map(({ run, threadMetadata }) => ({
          run: sealRun(run),
          threadMetadata: sealMeta(threadMetadata),
        }));
      },
      finish: at(2, { values: sealWhole, interrupts: sealEach, webhook: sealDelivery }),
      cancel(args) {
        if (args[3]) args[3] = sealingWebhook(args[3] as StoppedRunWebhook);
      },
    }),
    crons: wrapRepo(storage.crons, openCron, {
      create: at(0, { metadata: sealMeta, payload: sealWhole }),
      replace: at(2, { metadata: sealMeta, payload: sealWhole }),
    }),
    webhooks: wrapRepo(storage.webhooks, openDelivery, {}),
    store: wrapRepo(storage.store, openItem, { put: at(0, { value: (value: JsonObject) => storeValue.seal(value) }) }),
  });
}
