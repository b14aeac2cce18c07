import { describe, expect, it } from "vitest";
import type { StoreIndex } from "../runtime/store-embedder.js";
import { embedItem, textsAtPath, textsToEmbed } from "./store-index.js";

describe("textsAtPath", () => {
  const doc = { title: "Report", n: 3, meta: { tags: ["a", "b"], author: { name: "Ann" } }, chapters: [{ body: "one" }, { body: "two" }] };

  it("reads the whole value for $, and strings, numbers and objects at nested keys", () => {
    expect(textsAtPath(doc, "$")).toEqual([JSON.stringify(doc)]);
    expect(textsAtPath(doc, "title")).toEqual(["Report"]);
    expect(textsAtPath(doc, "n")).toEqual(["3"]);
    expect(textsAtPath(doc, "meta.author")).toEqual(['{"name":"Ann"}']);
    expect(textsAtPath(doc, "meta.author.name")).toEqual(["Ann"]);
  });

  it("reads one element by index, counting negative indexes from the end, or every element with [*]", () => {
    expect(textsAtPath(doc, "meta.tags[0]")).toEqual(["a"]);
    expect(textsAtPath(doc, "meta.tags[-1]")).toEqual(["b"]);
    expect(textsAtPath(doc, "chapters[*].body")).toEqual(["one", "two"]);
  });

  it("yields nothing for a path that leads nowhere", () => {
    expect(textsAtPath(doc, "missing.deeper")).toEqual([]);
    expect(textsAtPath(doc, "title[0]")).toEqual([]);
    expect(textsAtPath(doc, "meta.tags[5]")).toEqual([]);
  });
});

describe("textsToEmbed", () => {
  it("names one text by its path and several by path and position", () => {
    expect(textsToEmbed({ t: "x", list: ["a", "b"] }, ["t", "list[*]", "none"])).toEqual([
      { field: "t", text: "x" },
      { field: "list[*].0", text: "a" },
      { field: "list[*].1", text: "b" },
    ]);
  });
});

describe("embedItem", () => {
  const index = (vectors: unknown[][]): StoreIndex => ({
    dims: 2,
    fields: ["t"],
    embedder: { embedDocuments: async () => vectors as number[][], embedQuery: async () => [0, 0] },
  });

  it("pairs each embedded text's field with its vector", async () => {
    expect(await embedItem(index([[1, 2]]), { t: "x" }, ["t"])).toEqual([{ field: "t", vector: [1, 2] }]);
  });

  it("fails loudly when the embedding function returns vectors of the wrong size or count", async () => {
    await expect(embedItem(index([[1, 2, 3]]), { t: "x" }, ["t"])).rejects.toThrow("store.index.dims");
    await expect(embedItem(index([]), { t: "x" }, ["t"])).rejects.toThrow("0 vectors for 1 texts");
  });
});
