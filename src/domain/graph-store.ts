// The long-term store as graphs see it (`config.store`, `getStore()`): a LangGraph BaseStore over
// the same store service the /store routes use, so what a graph writes is what the API reads.
// LangGraph wraps it in the user's own AsyncBatchedStore, which only calls batch(), so the user's
// copy of @langchain/langgraph-checkpoint never needs to recognise our class.
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import type { StoreService } from "./store.js";
import type { JsonObject } from "../storage/records.js";
import type { StoreItem, StoreSearchItem } from "../storage/store-ports.js";

export class GraphStore extends BaseStore {
  constructor(private readonly store: StoreService) {
    super();
  }

  /** Operations run in order, so a get after a put in one batch sees the put. */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.apply(op));
    return results as OperationResults<Op>;
  }

  private async apply(op: Operation): Promise<unknown> {
    if ("namespacePrefix" in op) return this.searchItems(op);
    if ("value" in op) return this.writeItem(op);
    if ("key" in op) return this.readItem(op);
    return this.listMatching(op);
  }

  private async readItem(op: GetOperation): Promise<Item | null> {
    const item = await this.store.get(op.namespace, op.key);
    return item ? toItem(item) : null;
  }

  private async writeItem(op: PutOperation): Promise<void> {
    if (op.value === null) return this.store.delete(op.namespace, op.key);
    await this.store.put({ namespace: op.namespace, key: op.key, value: op.value as JsonObject, ...(op.index !== undefined ? { index: op.index } : {}) });
  }

  private async searchItems(op: SearchOperation): Promise<SearchItem[]> {
    const items = await this.store.search({
      namespacePrefix: op.namespacePrefix,
      ...(op.filter ? { filter: op.filter as JsonObject } : {}),
      ...(op.limit !== undefined ? { limit: op.limit } : {}),
      ...(op.offset !== undefined ? { offset: op.offset } : {}),
      ...(op.query ? { query: op.query } : {}),
    });
    return items.map(toSearchItem);
  }

  private async listMatching(op: ListNamespacesOperation): Promise<string[][]> {
    const prefix = op.matchConditions?.find((c) => c.matchType === "prefix")?.path;
    const suffix = op.matchConditions?.find((c) => c.matchType === "suffix")?.path;
    return this.store.listNamespaces({
      ...(prefix ? { prefix } : {}),
      ...(suffix ? { suffix } : {}),
      ...(op.maxDepth !== undefined ? { maxDepth: op.maxDepth } : {}),
      limit: op.limit,
      offset: op.offset,
    });
  }
}

function toItem(item: StoreItem): Item {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    createdAt: new Date(item.created_at),
    updatedAt: new Date(item.updated_at),
  };
}

function toSearchItem(item: StoreSearchItem): SearchItem {
  return item.score === undefined || item.score === null ? toItem(item) : { ...toItem(item), score: item.score };
}
