// The assistants this process last created runs with, so that creating a run need not read its
// assistant first. An entry may be stale (another replica may have changed or deleted the row):
// whoever creates a run from one has storage check it in the statement that creates the run
// (EnqueueOptions.assistantVersion). Bounded, least recently used out first.
import type { Assistant } from "../storage/records.js";

/** Entries kept: a deployment runs a few assistants, and an entry is a few hundred bytes. */
export const ASSISTANT_CACHE_SIZE = 500;

export interface AssistantCache {
  /** The cached assistant, as a copy of its own: a caller may change it as it may a row read from storage. */
  get(assistantId: string): Assistant | undefined;
  set(assistant: Assistant): void;
  delete(assistantId: string): void;
}

export function assistantCache(capacity = ASSISTANT_CACHE_SIZE): AssistantCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const entries = new Map<string, Assistant>();
  return {
    get(assistantId) {
      const found = entries.get(assistantId);
      if (!found) return undefined;
      entries.delete(assistantId);
      entries.set(assistantId, found);
      return structuredClone(found);
    },
    set(assistant) {
      entries.delete(assistant.assistant_id);
      entries.set(assistant.assistant_id, structuredClone(assistant));
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
    },
    delete(assistantId) {
      entries.delete(assistantId);
    },
  };
}
