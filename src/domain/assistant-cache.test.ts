import { describe, expect, it } from "vitest";
import type { Assistant } from "../storage/records.js";
import { assistantCache } from "./assistant-cache.js";

const assistant = (assistantId: string, version = 1): Assistant => ({
  assistant_id: assistantId,
  graph_id: "agent",
  config: { configurable: { model: "small" } },
  context: {},
  metadata: {},
  version,
  name: "Assistant",
  description: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
});

describe("assistantCache", () => {
  it("answers what was set, replaced by a later set and gone after a delete", () => {
    const cache = assistantCache();
    expect(cache.get("a")).toBeUndefined();
    cache.set(assistant("a"));
    expect(cache.get("a")).toEqual(assistant("a"));
    cache.set(assistant("a", 2));
    expect(cache.get("a")?.version).toBe(2);
    cache.delete("a");
    expect(cache.get("a")).toBeUndefined();
  });

  it("hands out copies: changing one changes neither the entry nor another caller's", () => {
    const cache = assistantCache();
    const original = assistant("a");
    cache.set(original);
    original.config.configurable = { model: "set after" };
    const first = cache.get("a")!;
    (first.config.configurable as { model: string }).model = "changed by a caller";
    expect(cache.get("a")).toEqual(assistant("a"));
  });

  it("drops the least recently used entry past its capacity", () => {
    const cache = assistantCache(2);
    cache.set(assistant("a"));
    cache.set(assistant("b"));
    cache.get("a");
    cache.set(assistant("c"));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")?.assistant_id).toBe("a");
    expect(cache.get("c")?.assistant_id).toBe("c");
  });
});
