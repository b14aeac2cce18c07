import { Annotation, END, START, StateGraph, getStore, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeService, type StoreService } from "./store.js";
import { GantryError } from "../errors.js";
import { openSqliteStorage, type SqliteStorage } from "../storage/sqlite/open-sqlite.js";
import { GraphStore } from "./graph-store.js";

/** Two-dimensional "embeddings": how often a text says "cat" and "dog". */
const petEmbedder = {
  embedDocuments: async (texts: string[]) => texts.map(petVector),
  embedQuery: async (text: string) => petVector(text),
};
function petVector(text: string): number[] {
  return [text.split("cat").length - 1, text.split("dog").length - 1];
}

describe("GraphStore", () => {
  let storage: SqliteStorage;
  let service: StoreService;
  let store: GraphStore;

  beforeEach(() => {
    storage = openSqliteStorage(":memory:");
    service = storeService({ store: storage.store, settings: { refreshOnRead: true, index: { dims: 2, fields: ["text"], embedder: petEmbedder } } });
    store = new GraphStore(service);
  });
  afterEach(() => storage.close());

  it("is the store a graph's nodes reach through config.store and getStore()", async () => {
    const State = Annotation.Root({ seen: Annotation<string | null>() });
    const graph = new StateGraph(State)
      .addNode("write", async (_state, config: LangGraphRunnableConfig) => {
        await config.store!.put(["users", "u1"], "profile", { name: "Ada" });
        return {};
      })
      .addNode("read", async () => {
        const item = await getStore()!.get(["users", "u1"], "profile");
        return { seen: (item?.value.name as string | undefined) ?? null };
      })
      .addEdge(START, "write")
      .addEdge("write", "read")
      .addEdge("read", END)
      .compile({ store });

    expect(await graph.invoke({ seen: null })).toEqual({ seen: "Ada" });
    expect(await service.get(["users", "u1"], "profile")).toMatchObject({ namespace: ["users", "u1"], key: "profile", value: { name: "Ada" } });
  });

  it("runs a batch in order, so a get sees the put before it and not the delete after it", async () => {
    const [put, got, deleted, gone] = await store.batch([
      { namespace: ["a"], key: "k", value: { v: 1 } },
      { namespace: ["a"], key: "k" },
      { namespace: ["a"], key: "k", value: null },
      { namespace: ["a"], key: "k" },
    ]);
    expect(put).toBeUndefined();
    expect(got).toEqual({ namespace: ["a"], key: "k", value: { v: 1 }, createdAt: expect.any(Date), updatedAt: expect.any(Date) });
    expect(deleted).toBeUndefined();
    expect(gone).toBeNull();
  });

  it("searches with filters and lists namespaces through BaseStore's own methods", async () => {
    await store.put(["docs", "en"], "1", { lang: "en", n: 1 });
    await store.put(["docs", "fr"], "2", { lang: "fr", n: 2 });
    await store.put(["notes"], "3", { lang: "en", n: 3 });
    expect((await store.search(["docs"], { filter: { n: { $gte: 2 } } })).map((i) => i.key)).toEqual(["2"]);
    expect((await store.search([], { filter: { lang: "en" } })).map((i) => i.key).sort()).toEqual(["1", "3"]);
    expect(await store.listNamespaces({ prefix: ["docs"] })).toEqual([
      ["docs", "en"],
      ["docs", "fr"],
    ]);
    expect(await store.listNamespaces({ suffix: ["en"], maxDepth: 1 })).toEqual([["docs"]]);
  });

  it("ranks a query by similarity with the configured index and reports the score", async () => {
    await store.put(["pets"], "cat", { text: "a cat" });
    await store.put(["pets"], "dog", { text: "a dog and a dog" });
    await store.put(["pets"], "unindexed", { text: "cat" }, false);
    const found = await store.search(["pets"], { query: "dog" });
    expect(found.map((i) => [i.key, i.score])).toEqual([
      ["dog", 1],
      ["cat", 0],
      ["unindexed", undefined],
    ]);
  });

  it("refuses namespace labels containing a dot with an invalid error", async () => {
    const refused = store.batch([{ namespace: ["a.b"], key: "k", value: {} }]);
    await expect(refused).rejects.toBeInstanceOf(GantryError);
    await expect(refused).rejects.toMatchObject({ kind: "invalid" });
  });
});
