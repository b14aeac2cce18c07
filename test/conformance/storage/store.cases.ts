// StoreRepo cases: put/get/delete, TTL expiry and refresh with a clock the case controls, search by
// namespace prefix (whole labels, '%' and '_' literal), filters with every operator, paging and
// order, similarity ranking, and namespace listing with prefix, suffix, '*', max_depth and paging.
// Every case puts its items under a namespace whose first label is its own marker.
import { expect } from "vitest";
import { parseStoreFilter } from "../../../src/domain/store-filter.js";
import type { JsonObject } from "../../../src/storage/records.js";
import type { StoreItem, StorePut, StoreRepo, StoreSearch } from "../../../src/storage/store-ports.js";
import { newMarker } from "./builders.js";
import type { CaseContext, MigratedStorage, StorageHarness } from "./harness.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** A fixed start for clocks, so expiry is decided by the case's arithmetic and not by the wall clock. */
const T0 = Date.parse("2031-05-04T10:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);

export function storeCases<S extends MigratedStorage>({ storage, test }: CaseContext, harness: StorageHarness<S>): void {
  const repo = (): StoreRepo => storage().store;

  function item(namespace: string[], key: string, value: JsonObject = {}, overrides: Partial<StorePut> = {}): StorePut {
    return { namespace, key, value, ttl_minutes: null, vectors: [], ...overrides };
  }

  function search(namespacePrefix: string[], overrides: Partial<Omit<StoreSearch, "filter">> & { filter?: JsonObject } = {}, now = at(0)) {
    const { filter, ...rest } = overrides;
    return repo().search({ namespacePrefix, filter: parseStoreFilter(filter ?? {}), limit: 100, offset: 0, refreshTtl: false, ...rest }, now);
  }

  async function keys(namespacePrefix: string[], overrides: Parameters<typeof search>[1] = {}, now = at(0)): Promise<string[]> {
    return (await search(namespacePrefix, overrides, now)).map((i) => i.key);
  }

  // Without an auth filter nothing is hidden: the repo answers an item or null.
  const get = async (namespace: string[], key: string, now: Date, refreshTtl = false) =>
    (await repo().get(namespace, key, { refreshTtl }, now)) as StoreItem | null;

  test("puts a store item and reads it back with its namespace, key, value and timestamps", async () => {
    const ns = [newMarker(), "users", "u1"];
    const value = { name: "Ada", tags: ["math"], nested: { deep: [1, { x: null }] }, note: "ünïcode ✓" };
    await repo().put(item(ns, "profile", value), at(0));
    expect(await get(ns, "profile", at(SECOND))).toEqual({
      namespace: ns,
      key: "profile",
      value,
      created_at: at(0).toISOString(),
      updated_at: at(0).toISOString(),
    });
  });

  test("returns null for a store key or namespace that holds no item", async () => {
    const ns = [newMarker(), "a"];
    await repo().put(item(ns, "k"), at(0));
    expect(await get(ns, "other", at(0))).toBeNull();
    expect(await get([ns[0]!, "b"], "k", at(0))).toBeNull();
    expect(await get([ns[0]!], "k", at(0))).toBeNull();
  });

  test("replaces a store item's value on a second put and keeps its created_at", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k", { v: 1, gone: true }), at(0));
    await repo().put(item(ns, "k", { v: 2 }), at(5 * SECOND));
    expect(await get(ns, "k", at(6 * SECOND))).toEqual({
      namespace: ns,
      key: "k",
      value: { v: 2 },
      created_at: at(0).toISOString(),
      updated_at: at(5 * SECOND).toISOString(),
    });
  });

  test("keeps the same key in two namespaces as two store items", async () => {
    const marker = newMarker();
    await repo().put(item([marker, "a"], "k", { which: "a" }), at(0));
    await repo().put(item([marker, "b"], "k", { which: "b" }), at(0));
    expect((await get([marker, "a"], "k", at(0)))?.value).toEqual({ which: "a" });
    expect((await get([marker, "b"], "k", at(0)))?.value).toEqual({ which: "b" });
  });

  test("deletes a store item, and deleting a missing one does nothing", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k"), at(0));
    await repo().put(item(ns, "kept"), at(0));
    await repo().delete(ns, "k");
    await repo().delete(ns, "never-there");
    expect(await get(ns, "k", at(0))).toBeNull();
    expect(await keys(ns)).toEqual(["kept"]);
  });

  test("hides a store item once its ttl has run out, before any sweep", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k", {}, { ttl_minutes: 1 }), at(0));
    expect(await get(ns, "k", at(MINUTE - SECOND))).not.toBeNull();
    expect(await get(ns, "k", at(MINUTE))).toBeNull();
    expect(await keys(ns, {}, at(MINUTE))).toEqual([]);
    expect(await repo().listNamespaces({ prefix: ns, limit: 10, offset: 0 }, at(MINUTE))).toEqual([]);
  });

  test("keeps a store item without a ttl however much time passes", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k"), at(0));
    expect(await get(ns, "k", at(10 * 365 * 24 * 60 * MINUTE))).not.toBeNull();
  });

  test("restarts a store item's ttl on a get that asks for it, and only then", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "refreshed", {}, { ttl_minutes: 1 }), at(0));
    await repo().put(item(ns, "plain", {}, { ttl_minutes: 1 }), at(0));
    await get(ns, "refreshed", at(50 * SECOND), true);
    await get(ns, "plain", at(50 * SECOND), false);
    expect(await get(ns, "plain", at(70 * SECOND))).toBeNull();
    expect(await get(ns, "refreshed", at(70 * SECOND))).not.toBeNull();
    expect(await get(ns, "refreshed", at(110 * SECOND))).toBeNull();
  });

  test("restarts the ttl of the store items a search returns when it asks, and of no others", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "old", {}, { ttl_minutes: 1 }), at(0));
    await repo().put(item(ns, "new", {}, { ttl_minutes: 1 }), at(SECOND));
    expect(await keys(ns, { limit: 1, refreshTtl: true }, at(50 * SECOND))).toEqual(["new"]);
    expect(await keys(ns, {}, at(70 * SECOND))).toEqual(["new"]);
    expect(await keys(ns, {}, at(115 * SECOND))).toEqual([]);
  });

  test("gives a store item put again after it expired a new created_at and ttl", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k", { v: 1 }, { ttl_minutes: 1 }), at(0));
    await repo().put(item(ns, "k", { v: 2 }), at(2 * MINUTE));
    const found = await get(ns, "k", at(100 * MINUTE));
    expect(found).toMatchObject({ value: { v: 2 }, created_at: at(2 * MINUTE).toISOString(), updated_at: at(2 * MINUTE).toISOString() });
  });

  test("sweeps expired store items up to the limit and keeps live ones", async () => {
    // Sweeps see every item in the database, so this case has one of its own.
    const own = await harness.open();
    try {
      const ns = [newMarker()];
      for (const key of ["a", "b", "c"]) await own.store.put(item(ns, key, {}, { ttl_minutes: 1 }), at(0));
      await own.store.put(item(ns, "later", {}, { ttl_minutes: 10 }), at(0));
      await own.store.put(item(ns, "forever"), at(0));
      expect(await own.store.sweepExpired(at(2 * MINUTE), 2)).toBe(2);
      expect(await own.store.sweepExpired(at(2 * MINUTE), 2)).toBe(1);
      expect(await own.store.sweepExpired(at(2 * MINUTE), 2)).toBe(0);
      // Swept rows are gone, not just hidden: an earlier clock no longer sees them.
      const left = await own.store.search({ namespacePrefix: ns, filter: parseStoreFilter({}), limit: 10, offset: 0, refreshTtl: false }, at(0));
      expect(left.map((i) => i.key).sort()).toEqual(["forever", "later"]);
    } finally {
      await harness.close(own);
    }
  });

  test("searches store namespaces by whole labels, never by part of one", async () => {
    const m = newMarker();
    await repo().put(item([m, "a"], "in-a"), at(0));
    await repo().put(item([m, "a", "b"], "in-a-b"), at(SECOND));
    await repo().put(item([m, "ab"], "in-ab"), at(2 * SECOND));
    await repo().put(item([m, "a-b"], "in-a-dash-b"), at(3 * SECOND));
    expect(await keys([m, "a"])).toEqual(["in-a-b", "in-a"]);
    expect(await keys([m, "a", "b"])).toEqual(["in-a-b"]);
    expect((await keys([m])).sort()).toEqual(["in-a", "in-a-b", "in-a-dash-b", "in-ab"]);
  });

  test("takes % and _ in a store namespace prefix literally", async () => {
    const m = newMarker();
    await repo().put(item([m, "a%"], "percent"), at(0));
    await repo().put(item([m, "a_b"], "underscore"), at(0));
    await repo().put(item([m, "axb"], "x"), at(0));
    await repo().put(item([m, "abc"], "abc"), at(0));
    expect(await keys([m, "a_b"])).toEqual(["underscore"]);
    expect(await keys([m, "a%"])).toEqual(["percent"]);
  });

  test("returns store search results newest update first and pages them", async () => {
    const ns = [newMarker()];
    for (let i = 0; i < 5; i++) await repo().put(item(ns, `k${i}`, { i }), at(i * SECOND));
    await repo().put(item(ns, "k1", { i: 1, touched: true }), at(10 * SECOND));
    expect(await keys(ns)).toEqual(["k1", "k4", "k3", "k2", "k0"]);
    expect(await keys(ns, { limit: 2 })).toEqual(["k1", "k4"]);
    expect(await keys(ns, { limit: 2, offset: 2 })).toEqual(["k3", "k2"]);
    expect(await keys(ns, { limit: 2, offset: 4 })).toEqual(["k0"]);
    expect(await keys(ns, { limit: 2, offset: 6 })).toEqual([]);
    const [first] = await search(ns, { limit: 1 });
    expect(first).not.toHaveProperty("score");
  });

  test("filters store items on plain values: equality by type, and arrays and objects by containment", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "a", { color: "red", n: 1, ok: true, none: null, tags: ["x", "y"], meta: { lang: "en", v: 2 } }), at(0));
    await repo().put(item(ns, "b", { color: "blue", n: "1", ok: false, tags: ["y"], meta: { lang: "fr" } }), at(SECOND));
    const match = async (filter: JsonObject) => (await keys(ns, { filter })).sort();
    expect(await match({ color: "red" })).toEqual(["a"]);
    expect(await match({ n: 1 })).toEqual(["a"]);
    expect(await match({ n: "1" })).toEqual(["b"]);
    expect(await match({ ok: false })).toEqual(["b"]);
    expect(await match({ none: null })).toEqual(["a"]);
    expect(await match({ tags: ["y"] })).toEqual(["a", "b"]);
    expect(await match({ tags: ["x", "y"] })).toEqual(["a"]);
    expect(await match({ meta: { lang: "en" } })).toEqual(["a"]);
    expect(await match({ color: "red", meta: { lang: "fr" } })).toEqual([]);
    expect(await match({ missing: "x" })).toEqual([]);
    expect(await match({})).toEqual(["a", "b"]);
  });

  test("filters store items with $eq and $ne, where a missing key is not equal", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "red", { color: "red" }), at(0));
    await repo().put(item(ns, "blue", { color: "blue" }), at(0));
    await repo().put(item(ns, "none", { shape: "round" }), at(0));
    await repo().put(item(ns, "number", { color: 7 }), at(0));
    const match = async (filter: JsonObject) => (await keys(ns, { filter })).sort();
    expect(await match({ color: { $eq: "red" } })).toEqual(["red"]);
    expect(await match({ color: { $ne: "red" } })).toEqual(["blue", "none", "number"]);
    expect(await match({ color: { $ne: "red", $eq: "blue" } })).toEqual(["blue"]);
    expect(await match({ color: { $ne: 7 } })).toEqual(["blue", "none", "red"]);
  });

  test("filters store items with $gt, $gte, $lt and $lte on numbers and on strings, by type", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "one", { score: 1, day: "2024-01-01" }), at(0));
    await repo().put(item(ns, "two", { score: 2.5, day: "2024-02-01" }), at(0));
    await repo().put(item(ns, "three", { score: 3, day: "2024-03-01" }), at(0));
    await repo().put(item(ns, "text", { score: "9", day: 20240401 }), at(0));
    await repo().put(item(ns, "none", {}), at(0));
    const match = async (filter: JsonObject) => (await keys(ns, { filter })).sort();
    expect(await match({ score: { $gt: 2.5 } })).toEqual(["three"]);
    expect(await match({ score: { $gte: 2.5 } })).toEqual(["three", "two"]);
    expect(await match({ score: { $lt: 2.5 } })).toEqual(["one"]);
    expect(await match({ score: { $lte: 2.5 } })).toEqual(["one", "two"]);
    expect(await match({ score: { $gt: 1, $lt: 3 } })).toEqual(["two"]);
    expect(await match({ day: { $gte: "2024-02-01" } })).toEqual(["three", "two"]);
    expect(await match({ day: { $lt: "2024-02" } })).toEqual(["one"]);
    expect(await match({ score: { $gte: "0" } })).toEqual(["text"]);
  });

  test("filters store items on nested keys, with operators at any depth", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "a", { user: { profile: { age: 30, city: "Paris" } } }), at(0));
    await repo().put(item(ns, "b", { user: { profile: { age: 40, city: "Rome" } } }), at(0));
    await repo().put(item(ns, "c", { other: 1 }), at(0));
    const match = async (filter: JsonObject) => (await keys(ns, { filter })).sort();
    expect(await match({ user: { profile: { city: "Paris" } } })).toEqual(["a"]);
    expect(await match({ user: { profile: { age: { $gt: 35 } } } })).toEqual(["b"]);
    expect(await match({ user: { profile: { city: { $ne: "Paris" } } } })).toEqual(["b", "c"]);
    expect(await match({ user: { profile: { age: { $lte: 40 }, city: "Rome" } } })).toEqual(["b"]);
  });

  test("takes store filter keys with dots, quotes or spaces as one key", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k", { "a.b": 1, 'say "hi"': 2, "two words": 3 }), at(0));
    expect(await keys(ns, { filter: { "a.b": 1 } })).toEqual(["k"]);
    expect(await keys(ns, { filter: { 'say "hi"': { $gte: 2 } } })).toEqual(["k"]);
    expect(await keys(ns, { filter: { "two words": { $ne: 4 } } })).toEqual(["k"]);
    expect(await keys(ns, { filter: { a: { b: 1 } } })).toEqual([]);
  });

  test("ranks store items by their best cosine similarity to a query vector, unscored items last", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "east", {}, { vectors: [{ field: "$", vector: [1, 0, 0] }] }), at(0));
    await repo().put(item(ns, "north-east", {}, { vectors: [{ field: "$", vector: [1, 1, 0] }] }), at(0));
    await repo().put(
      item(
        ns,
        "two-fields",
        {},
        {
          vectors: [
            { field: "a", vector: [0, 0, 1] },
            { field: "b", vector: [0, 2, 0] },
          ],
        },
      ),
      at(0),
    );
    await repo().put(item(ns, "plain"), at(SECOND));
    const ranked = await search(ns, { queryVector: [0, 1, 0] });
    expect(ranked.map((i) => i.key)).toEqual(["two-fields", "north-east", "east", "plain"]);
    // Vectors are stored as float32, the precision of pgvector's `vector` on the platform.
    expect(ranked.map((i) => i.score)).toEqual([expect.closeTo(1, 6), expect.closeTo(Math.SQRT1_2, 6), 0, null]);
    const page = await search(ns, { queryVector: [0, 1, 0], limit: 2, offset: 1, filter: { missing: { $ne: 1 } } });
    expect(page.map((i) => i.key)).toEqual(["north-east", "east"]);
  });

  test("replaces a store item's vectors when it is put again", async () => {
    const ns = [newMarker()];
    await repo().put(item(ns, "k", {}, { vectors: [{ field: "$", vector: [1, 0] }] }), at(0));
    await repo().put(item(ns, "k", {}, { vectors: [{ field: "$", vector: [0, 1] }] }), at(SECOND));
    expect((await search(ns, { queryVector: [0, 1] }))[0]?.score).toBeCloseTo(1, 6);
    await repo().put(item(ns, "k"), at(2 * SECOND));
    expect((await search(ns, { queryVector: [0, 1] }))[0]?.score).toBeNull();
  });

  test("ranks store items exactly as a brute-force cosine ranking of a fixed data set does", async () => {
    const m = newMarker();
    const data = fixedVectorDataSet(m);
    for (const entry of data) await repo().put(item(entry.namespace, entry.key, entry.value, { vectors: entry.vectors }), at(entry.updatedAt));
    const queries = [0, 1, 2].map((n) => seededVector(1000 + n, DIMS));
    for (const queryVector of queries) {
      for (const { prefix, filter } of [
        { prefix: [m], filter: {} },
        { prefix: [m, "a"], filter: {} },
        { prefix: [m], filter: { group: 1 } },
      ]) {
        const expected = bruteForceRanking(data, queryVector, prefix, filter.group);
        for (const [offset, limit] of [
          [0, 10],
          [10, 10],
          [expected.length - 15, 20],
        ] as const) {
          const page = await search(prefix, { queryVector, filter, offset, limit });
          const want = expected.slice(offset, offset + limit);
          expect(page.map((i) => i.key)).toEqual(want.map((w) => w.key));
          page.forEach((got, i) => (want[i]!.score === null ? expect(got.score).toBeNull() : expect(got.score).toBeCloseTo(want[i]!.score!, 5)));
        }
      }
    }
  });

  const list = (listing: { prefix?: string[]; suffix?: string[]; maxDepth?: number; limit?: number; offset?: number }, now = at(0)) =>
    repo().listNamespaces({ limit: 100, offset: 0, ...listing }, now);

  test("lists the distinct store namespaces under a prefix in label order", async () => {
    const m = newMarker();
    await repo().put(item([m, "b"], "1"), at(0));
    await repo().put(item([m, "b"], "2"), at(0));
    await repo().put(item([m, "a", "x"], "1"), at(0));
    await repo().put(item([m, "a"], "1"), at(0));
    await repo().put(item([`${m}x`], "1"), at(0));
    expect(await list({ prefix: [m] })).toEqual([
      [m, "a"],
      [m, "a", "x"],
      [m, "b"],
    ]);
    expect(await list({ prefix: [m, "a"] })).toEqual([
      [m, "a"],
      [m, "a", "x"],
    ]);
  });

  test("lists store namespaces by suffix", async () => {
    const m = newMarker();
    await repo().put(item([m, "u1", "memories"], "1"), at(0));
    await repo().put(item([m, "u2", "memories"], "1"), at(0));
    await repo().put(item([m, "u2", "settings"], "1"), at(0));
    await repo().put(item([m, "old-memories"], "1"), at(0));
    expect(await list({ prefix: [m], suffix: ["memories"] })).toEqual([
      [m, "u1", "memories"],
      [m, "u2", "memories"],
    ]);
    expect(await list({ prefix: [m], suffix: ["u2", "settings"] })).toEqual([[m, "u2", "settings"]]);
    expect(await list({ prefix: [m], suffix: [m, "u2", "settings"] })).toEqual([[m, "u2", "settings"]]);
    expect(await list({ prefix: [m], suffix: ["x", m, "u2", "settings"] })).toEqual([]);
  });

  test("cuts store namespaces to max_depth and lists each cut once", async () => {
    const m = newMarker();
    await repo().put(item([m, "a", "x", "1"], "k"), at(0));
    await repo().put(item([m, "a", "y"], "k"), at(0));
    await repo().put(item([m, "b"], "k"), at(0));
    await repo().put(item([m], "k"), at(0));
    expect(await list({ prefix: [m], maxDepth: 2 })).toEqual([[m], [m, "a"], [m, "b"]]);
    expect(await list({ prefix: [m], maxDepth: 3 })).toEqual([[m], [m, "a", "x"], [m, "a", "y"], [m, "b"]]);
    expect(await list({ prefix: [m], maxDepth: 1 })).toEqual([[m]]);
  });

  test("matches any one label with * in a store namespace prefix or suffix", async () => {
    const m = newMarker();
    await repo().put(item([m, "u1", "memories", "2024"], "k"), at(0));
    await repo().put(item([m, "u2", "memories"], "k"), at(0));
    await repo().put(item([m, "u3", "notes"], "k"), at(0));
    await repo().put(item([m, "memories"], "k"), at(0));
    expect(await list({ prefix: [m, "*", "memories"] })).toEqual([
      [m, "u1", "memories", "2024"],
      [m, "u2", "memories"],
    ]);
    expect(await list({ prefix: ["*", "u3"], suffix: [m, "*", "notes"] })).toEqual([[m, "u3", "notes"]]);
    expect(await list({ prefix: [m], suffix: ["*", "memories"] })).toEqual([
      [m, "memories"],
      [m, "u2", "memories"],
    ]);
  });

  test("pages store namespace listings with limit and offset", async () => {
    const m = newMarker();
    for (const label of ["a", "b", "c", "d"]) await repo().put(item([m, label], "k"), at(0));
    expect(await list({ prefix: [m], limit: 2 })).toEqual([
      [m, "a"],
      [m, "b"],
    ]);
    expect(await list({ prefix: [m], limit: 2, offset: 2 })).toEqual([
      [m, "c"],
      [m, "d"],
    ]);
    expect(await list({ prefix: [m], limit: 2, offset: 4 })).toEqual([]);
  });
}

const DIMS = 16;

/** Numbers in [-1, 1) from a seed: the same vectors on every run and backend. */
function seededVector(seed: number, dims: number): number[] {
  let state = (seed * 2654435761) >>> 0;
  return Array.from({ length: dims }, () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

interface FixedEntry {
  namespace: string[];
  key: string;
  value: { group: number };
  vectors: StorePut["vectors"];
  updatedAt: number;
}

/**
 * 240 items in two namespaces under the marker and one beside it: most with one vector, every
 * fifth with two (its best one counts), every seventh with none, every eleventh with a vector of
 * another length (left unscored, as after a change of store.index.dims).
 */
function fixedVectorDataSet(marker: string): FixedEntry[] {
  return Array.from({ length: 240 }, (_, n) => {
    const namespace = n % 3 === 0 ? [marker, "a"] : n % 3 === 1 ? [marker, "b", "c"] : [`${marker}x`];
    const vectors =
      n % 7 === 0
        ? []
        : n % 11 === 0
          ? [{ field: "$", vector: seededVector(n, DIMS + 1) }]
          : n % 5 === 0
            ? [
                { field: "a", vector: seededVector(n, DIMS) },
                { field: "b", vector: seededVector(n + 500, DIMS) },
              ]
            : [{ field: "$", vector: seededVector(n, DIMS) }];
    return { namespace, key: `item-${String(n).padStart(3, "0")}`, value: { group: n % 2 }, vectors, updatedAt: (n % 13) * SECOND };
  });
}

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return dot / (norm(a) * norm(b));
}

/** The order the port promises: best score first, unscored last, then newest update, namespace, key. */
function bruteForceRanking(data: FixedEntry[], query: number[], prefix: string[], group: number | undefined) {
  const under = (ns: string[]) => prefix.every((label, i) => ns[i] === label);
  return data
    .filter((e) => under(e.namespace) && (group === undefined || e.value.group === group))
    .map((e) => {
      const scores = e.vectors.filter((v) => v.vector.length === query.length).map((v) => cosine(v.vector, query));
      return { ...e, score: scores.length > 0 ? Math.max(...scores) : null };
    })
    .sort(
      (x, y) =>
        (y.score ?? -Infinity) - (x.score ?? -Infinity) ||
        y.updatedAt - x.updatedAt ||
        x.namespace.join(".").localeCompare(y.namespace.join(".")) ||
        x.key.localeCompare(y.key),
    );
}
