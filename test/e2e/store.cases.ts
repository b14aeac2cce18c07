// The /store API through the official SDK's `client.store` (raw HTTP where the SDK refuses input
// client-side or has no say: dotted labels, repeated query keys, status codes), written once and
// run on each storage backend. Every case keeps to a namespace whose first label is its own.
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { detailOf, eventually, request } from "./http.js";

/** The embedding function of `store.index` counts cats, dogs and fish; a sweep runs every 300 ms. */
export const STORE_CONFIG = fixture("store", "langgraph.json");
/** No index; default_ttl 0.02 minutes; reads do not refresh TTLs unless asked. */
export const STORE_DEFAULT_TTL_CONFIG = fixture("store", "langgraph.default-ttl.json");

const own = () => `case-${randomUUID()}`;

/**
 * Resolves once the clock has moved past the last response, so the server stamps the next write
 * later than the previous one (both run on this machine's clock) and newest-first order is defined.
 */
async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() === start) await new Promise((resolve) => setImmediate(resolve));
}

export function describeStoreE2E(label: string, open: OpenStore): void {
  describe(`store through the SDK (${label})`, () => {
    const gantry = useGantry(open, STORE_CONFIG);

    it(`keeps its items in ${label} and reports the store as on in /info`, async () => {
      const info = await request(gantry.server.url, "GET", "/info");
      expect(info.json).toMatchObject({ flags: { store: true }, metadata: { storage: gantry.store.backend } });
    });

    describe("items", () => {
      it("puts, gets and deletes an item, with camelCase timestamps from the SDK", async () => {
        const ns = [own(), "users", "u1"];
        const value = { name: "Ada", langs: ["en", "fr"], nested: { n: 1 } };
        await gantry.client.store.putItem(ns, "profile", value);
        const item = await gantry.client.store.getItem(ns, "profile");
        expect(item).toMatchObject({ namespace: ns, key: "profile", value });
        expect(Date.parse(item!.createdAt)).not.toBeNaN();
        expect(item!.updatedAt).toBe(item!.createdAt);
        await gantry.client.store.deleteItem(ns, "profile");
        expect(await gantry.client.store.getItem(ns, "profile")).toBeNull();
      });

      it("answers a JSON null for a missing item and 204 for deleting one", async () => {
        const ns = [own()];
        expect(await gantry.client.store.getItem(ns, "nothing")).toBeNull();
        const raw = await request(gantry.server.url, "GET", `/store/items?namespace=${ns[0]}&key=nothing`);
        expect([raw.status, raw.text]).toEqual([200, "null"]);
        const deleted = await request(gantry.server.url, "DELETE", "/store/items", { body: { namespace: ns, key: "nothing" } });
        expect(deleted.status).toBe(204);
      });

      it("replaces an item on a second put and keeps its creation time", async () => {
        const ns = [own()];
        await gantry.client.store.putItem(ns, "k", { v: 1, old: true });
        const first = await gantry.client.store.getItem(ns, "k");
        await nextMillisecond();
        await gantry.client.store.putItem(ns, "k", { v: 2 });
        const second = await gantry.client.store.getItem(ns, "k");
        expect(second).toMatchObject({ value: { v: 2 }, createdAt: first!.createdAt });
        expect(Date.parse(second!.updatedAt)).toBeGreaterThan(Date.parse(first!.updatedAt));
      });

      it("reads the namespace of a get as one dotted string or as repeated keys", async () => {
        const ns = [own(), "a", "b"];
        await gantry.client.store.putItem(ns, "k", { ok: true });
        const dotted = await request(gantry.server.url, "GET", `/store/items?namespace=${ns.join(".")}&key=k`);
        const repeated = await request(gantry.server.url, "GET", `/store/items?${ns.map((l) => `namespace=${l}`).join("&")}&key=k`);
        expect(dotted.json).toMatchObject({ namespace: ns, key: "k", value: { ok: true } });
        expect(repeated.json).toEqual(dotted.json);
      });
    });

    describe("search", () => {
      it("searches by whole namespace labels, newest first, with limit and offset", async () => {
        const m = own();
        await gantry.client.store.putItem([m, "docs"], "d1", { n: 1 });
        await nextMillisecond();
        await gantry.client.store.putItem([m, "docs", "old"], "d2", { n: 2 });
        await gantry.client.store.putItem([m, "docs2"], "other", { n: 3 });
        await nextMillisecond();
        await gantry.client.store.putItem([m, "docs"], "d3", { n: 4 });
        const keys = async (options: { limit?: number; offset?: number } = {}) =>
          (await gantry.client.store.searchItems([m, "docs"], options)).items.map((i) => i.key);
        expect(await keys()).toEqual(["d3", "d2", "d1"]);
        expect(await keys({ limit: 2 })).toEqual(["d3", "d2"]);
        expect(await keys({ limit: 2, offset: 2 })).toEqual(["d1"]);
        const [first] = (await gantry.client.store.searchItems([m, "docs"], { limit: 1 })).items;
        expect(first).toMatchObject({ namespace: [m, "docs"], key: "d3", value: { n: 4 } });
        expect(first).not.toHaveProperty("score");
      });

      it("takes % and _ in a namespace prefix literally", async () => {
        const m = own();
        await gantry.client.store.putItem([m, "a_b"], "underscore", {});
        await gantry.client.store.putItem([m, "axb"], "x", {});
        await gantry.client.store.putItem([m, "a%"], "percent", {});
        await gantry.client.store.putItem([m, "ab"], "plain", {});
        expect((await gantry.client.store.searchItems([m, "a_b"])).items.map((i) => i.key)).toEqual(["underscore"]);
        expect((await gantry.client.store.searchItems([m, "a%"])).items.map((i) => i.key)).toEqual(["percent"]);
      });

      it("filters on value keys with plain values, operators and nested keys", async () => {
        const ns = [own()];
        await gantry.client.store.putItem(ns, "ann", { name: "Ann", age: 31, city: "Paris", profile: { tier: "gold", visits: 12 } });
        await gantry.client.store.putItem(ns, "bob", { name: "Bob", age: 25, city: "Rome", profile: { tier: "silver", visits: 3 } });
        await gantry.client.store.putItem(ns, "cy", { name: "Cy", age: 40 });
        const match = async (filter: Record<string, unknown>) => (await gantry.client.store.searchItems(ns, { filter })).items.map((i) => i.key).sort();
        expect(await match({ city: "Paris" })).toEqual(["ann"]);
        expect(await match({ age: { $gt: 30 } })).toEqual(["ann", "cy"]);
        expect(await match({ age: { $gte: 25, $lt: 40 } })).toEqual(["ann", "bob"]);
        expect(await match({ age: { $lte: 25 } })).toEqual(["bob"]);
        expect(await match({ city: { $ne: "Paris" } })).toEqual(["bob", "cy"]);
        expect(await match({ city: { $eq: "Rome" } })).toEqual(["bob"]);
        expect(await match({ name: { $gte: "B" } })).toEqual(["bob", "cy"]);
        expect(await match({ profile: { tier: "gold" } })).toEqual(["ann"]);
        expect(await match({ profile: { visits: { $gt: 5 } } })).toEqual(["ann"]);
      });

      it("ranks a query by similarity with the configured embedding function and returns the score", async () => {
        const ns = [own()];
        await gantry.client.store.putItem(ns, "cats", { text: "a cat and another cat" });
        await gantry.client.store.putItem(ns, "dogs", { text: "the dog" });
        await gantry.client.store.putItem(ns, "both", { text: "a cat with a dog" });
        await gantry.client.store.putItem(ns, "untexted", { title: "no text field" });
        const { items } = await gantry.client.store.searchItems(ns, { query: "my cat" });
        expect(items.map((i) => i.key)).toEqual(["cats", "both", "dogs", "untexted"]);
        expect(items.map((i) => i.score)).toEqual([expect.closeTo(1, 6), expect.closeTo(Math.SQRT1_2, 6), 0, null]);
        const page = await gantry.client.store.searchItems(ns, { query: "dog", limit: 1, offset: 1, filter: { text: { $ne: "the dog" } } });
        expect(page.items.map((i) => i.key)).toEqual(["cats"]);
      });

      it("embeds the fields an item's index names, and nothing for index false", async () => {
        const ns = [own()];
        await gantry.client.store.putItem(ns, "titled", { text: "nothing here", title: "fish fish" }, { index: ["title"] });
        await gantry.client.store.putItem(ns, "skipped", { text: "fish" }, { index: false });
        await gantry.client.store.putItem(ns, "default", { text: "a fish and a cat" });
        const { items } = await gantry.client.store.searchItems(ns, { query: "fish" });
        expect(items.map((i) => [i.key, i.score === null ? null : Number(i.score!.toFixed(6))])).toEqual([
          ["titled", 1],
          ["default", Number(Math.SQRT1_2.toFixed(6))],
          ["skipped", null],
        ]);
      });
    });

    describe("namespaces", () => {
      it("lists namespaces by prefix and suffix, cut to max_depth, with limit and offset", async () => {
        const m = own();
        for (const ns of [
          [m, "u1", "memories"],
          [m, "u1", "settings"],
          [m, "u2", "memories"],
          [m, "u2", "memories", "archive"],
        ]) {
          await gantry.client.store.putItem(ns, "k", {});
        }
        const list = async (options: Parameters<Client["store"]["listNamespaces"]>[0]) => (await gantry.client.store.listNamespaces(options)).namespaces;
        expect(await list({ prefix: [m] })).toEqual([
          [m, "u1", "memories"],
          [m, "u1", "settings"],
          [m, "u2", "memories"],
          [m, "u2", "memories", "archive"],
        ]);
        expect(await list({ prefix: [m], suffix: ["memories"] })).toEqual([
          [m, "u1", "memories"],
          [m, "u2", "memories"],
        ]);
        expect(await list({ prefix: [m], maxDepth: 2 })).toEqual([
          [m, "u1"],
          [m, "u2"],
        ]);
        expect(await list({ prefix: [m, "*", "memories"], maxDepth: 3 })).toEqual([
          [m, "u1", "memories"],
          [m, "u2", "memories"],
        ]);
        expect(await list({ prefix: [m], limit: 2, offset: 1 })).toEqual([
          [m, "u1", "settings"],
          [m, "u2", "memories"],
        ]);
      });
    });

    describe("ttl", () => {
      it("hides an item once its ttl runs out, and the sweeper deletes it", async () => {
        const ns = [own()];
        await gantry.client.store.putItem(ns, "brief", { v: 1 }, { ttl: 0.01 });
        await gantry.client.store.putItem(ns, "lasting", { v: 2 });
        expect(await gantry.client.store.getItem(ns, "brief", { refreshTtl: false })).not.toBeNull();
        await eventually("the item to expire", async () =>
          (await gantry.client.store.getItem(ns, "brief", { refreshTtl: false })) === null ? true : undefined,
        );
        expect((await gantry.client.store.searchItems(ns)).items.map((i) => i.key)).toEqual(["lasting"]);
        await eventually("a sweep to delete it", async () => (/"swept expired store items"/.test(gantry.server.output()) ? true : undefined));
      });

      it("restarts an item's ttl when a read asks for it or says nothing (refresh_on_read defaults to true), and not otherwise", async () => {
        const { client } = gantry;
        const ns = [own()];
        const searched = [...ns, "searched"];
        await client.store.putItem(ns, "refreshed", {}, { ttl: 1 });
        await client.store.putItem(ns, "by-default", {}, { ttl: 1 });
        await client.store.putItem(ns, "plain", {}, { ttl: 1 });
        await client.store.putItem(searched, "found", {}, { ttl: 1 });
        // Every put was stamped before `refreshFrom` and every refresh at or after it (the server
        // runs on this machine's clock), so one minute past it the unrefreshed item has expired and
        // the refreshed ones have not. The storage is read at that instant instead of waiting for it.
        await nextMillisecond();
        const refreshFrom = Date.now();
        expect(await client.store.getItem(ns, "refreshed", { refreshTtl: true })).not.toBeNull();
        expect(await client.store.getItem(ns, "by-default")).not.toBeNull();
        expect((await client.store.searchItems(searched, { refreshTtl: true })).items).toHaveLength(1);
        expect((await client.store.searchItems(ns, { refreshTtl: false })).items).toHaveLength(4);

        const storage = await gantry.store.openStorage();
        try {
          const at = new Date(refreshFrom + 60_000 - 1);
          const liveAt = async (namespace: string[], key: string) => (await storage.store.get(namespace, key, { refreshTtl: false }, at)) !== null;
          expect(await liveAt(ns, "plain")).toBe(false);
          expect(await liveAt(ns, "refreshed")).toBe(true);
          expect(await liveAt(ns, "by-default")).toBe(true);
          expect(await liveAt(searched, "found")).toBe(true);
        } finally {
          await storage.close();
        }
      });
    });

    describe("bad input", () => {
      const expect422 = async (method: string, path: string, body: unknown, mentions: string) => {
        const response = await request(gantry.server.url, method, path, body === undefined ? {} : { body });
        expect(response.status, response.text).toBe(422);
        expect(detailOf(response)).toContain(mentions);
      };

      it("answers 422 with a detail to namespace labels that are empty or contain a dot", async () => {
        await expect422("PUT", "/store/items", { namespace: ["a.b"], key: "k", value: {} }, "namespace[0]");
        await expect422("PUT", "/store/items", { namespace: ["a", ""], key: "k", value: {} }, "namespace[1]");
        await expect422("PUT", "/store/items", { namespace: [], key: "k", value: {} }, "namespace");
        await expect422("POST", "/store/items/search", { namespace_prefix: ["x.y"] }, "namespace_prefix[0]");
        await expect422("POST", "/store/namespaces", { prefix: [""] }, "prefix[0]");
        await expect422("DELETE", "/store/items", { namespace: ["ok", "no.pe"], key: "k" }, "namespace[1]");
        await expect422("GET", "/store/items?namespace=a..b&key=k", undefined, "namespace[1]");
      });

      it("answers 422 with a detail to missing and ill-typed fields, unknown ones beside them notwithstanding", async () => {
        await expect422("PUT", "/store/items", { namespace: ["a"], key: "k", value: [1] }, "value");
        await expect422("PUT", "/store/items", { namespace: ["a"], value: {} }, "key");
        await expect422("PUT", "/store/items", { namespace: ["a"], key: "k", value: {}, ttl: -1 }, "ttl");
        await expect422("PUT", "/store/items", { namespace: ["a"], key: "k", value: {}, colour: "red", index: "all" }, "index");
        await expect422("POST", "/store/items/search", { limit: 0 }, "limit");
        await expect422("POST", "/store/items/search", { offset: -1 }, "offset");
        await expect422("POST", "/store/items/search", { filter: { n: { $in: [1] } } }, "$in");
        await expect422("POST", "/store/items/search", { filter: { n: { $gt: true } } }, "filter.n.$gt");
        await expect422("POST", "/store/namespaces", { max_depth: 0 }, "max_depth");
        await expect422("GET", "/store/items?namespace=a", undefined, "key");
        await expect422("GET", "/store/items?key=k", undefined, "namespace");
        await expect422("GET", "/store/items?namespace=a&key=k&refresh_ttl=maybe", undefined, "refresh_ttl");
      });
    });

    describe("graphs", () => {
      it("shows an item a graph wrote through config.store, and gives the graph what the API wrote", async () => {
        const user = own();
        await gantry.client.store.putItem(["users", user, "memories"], "from-api", { text: "likes tea" });
        const output = await gantry.client.runs.wait(null, "memory", { input: { user, note: "plays chess" } });
        expect(output).toMatchObject({ recalled: ["likes tea", "plays chess"] });
        const written = await gantry.client.store.getItem(["users", user, "memories"], "from-graph");
        expect(written).toMatchObject({ namespace: ["users", user, "memories"], key: "from-graph", value: { text: "plays chess", by: "graph" } });
      });
    });
  });

  describe(`store with a default ttl and no index (${label})`, () => {
    const gantry = useGantry(open, STORE_DEFAULT_TTL_CONFIG);

    it("gives an item put without a ttl the configured default_ttl", async () => {
      const ns = [own()];
      await gantry.client.store.putItem(ns, "k", {});
      expect(await gantry.client.store.getItem(ns, "k")).not.toBeNull();
      await eventually("the default ttl to run out", async () => ((await gantry.client.store.getItem(ns, "k")) === null ? true : undefined));
    });

    it("ignores a search query when no index is configured, listing newest first without scores", async () => {
      const ns = [own()];
      await gantry.client.store.putItem(ns, "older", { text: "cat" }, { ttl: 60 });
      await nextMillisecond();
      await gantry.client.store.putItem(ns, "newer", { text: "dog" }, { ttl: 60 });
      const { items } = await gantry.client.store.searchItems(ns, { query: "cat" });
      expect(items.map((i) => i.key)).toEqual(["newer", "older"]);
      for (const item of items) expect(item).not.toHaveProperty("score");
    });
  });
}
