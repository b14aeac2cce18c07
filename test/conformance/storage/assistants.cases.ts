// AssistantRepo cases: create and versions, setLatest, delete, search (metadata containment, graph,
// name substring, every sort field, paging and its total) and count.
import { expect } from "vitest";
import type { AssistantSortField, NewAssistant, Page } from "../../../src/storage/ports.js";
import type { Assistant, JsonObject } from "../../../src/storage/records.js";
import { ISO_MS, isBetween, newAssistant, newMarker, nextMillisecond } from "./builders.js";
import type { CaseContext } from "./harness.js";

const ALL: Page = { limit: 100, offset: 0 };

export function assistantCases({ storage, test }: CaseContext): void {
  const repo = () => storage().assistants;

  async function create(overrides: Partial<NewAssistant> = {}): Promise<Assistant> {
    const created = await repo().create(newAssistant(overrides));
    if (!created) throw new Error("a fresh assistant id was refused");
    return created;
  }

  /** Ids of the assistants carrying `marker` that also match `filter`, in search order. */
  async function idsMatching(marker: string, filter: { metadata?: JsonObject; graph_id?: string; name?: string } = {}): Promise<string[]> {
    const found = await repo().search({ ...filter, metadata: { marker, ...filter.metadata } }, { by: "assistant_id", order: "asc" }, ALL);
    return found.items.map((a) => a.assistant_id);
  }

  test("creates an assistant at version 1 and reads it back", async () => {
    const input = newAssistant({
      graph_id: "support",
      config: { configurable: { model: "small" }, tags: ["a"] },
      context: { tone: "brief" },
      metadata: { marker: newMarker(), team: "core" },
      name: "Support",
      description: "Answers tickets",
    });
    const before = Date.now();
    const created = await repo().create(input);
    const after = Date.now();

    expect(created).toEqual({ ...input, version: 1, created_at: expect.stringMatching(ISO_MS), updated_at: created?.created_at });
    expect(isBetween(created!.created_at, before, after)).toBe(true);
    expect(await repo().get(input.assistant_id)).toEqual(created);
  });

  test("returns null when creating an assistant whose id exists", async () => {
    const first = await create({ name: "First" });
    expect(await repo().create(newAssistant({ assistant_id: first.assistant_id, name: "Second" }))).toBeNull();
    expect(await repo().get(first.assistant_id)).toEqual(first);
  });

  test("lets exactly one of two concurrent creates with one id succeed", async () => {
    const input = newAssistant();
    const results = await Promise.all([repo().create(input), repo().create({ ...input, name: "Other" })]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await repo().listVersions(input.assistant_id, {}, ALL)).toHaveLength(1);
  });

  test("returns null when getting an assistant that does not exist", async () => {
    expect(await repo().get(newAssistant().assistant_id)).toBeNull();
  });

  test("records version 1 with the assistant's fields when an assistant is created", async () => {
    const created = await create({ metadata: { stage: "draft" }, config: { configurable: { k: 1 } } });
    const { updated_at: _updatedAt, ...version } = created;
    expect(await repo().listVersions(created.assistant_id, {}, ALL)).toEqual([version]);
  });

  test("writes version 2 on update with metadata merged key by key and config replaced", async () => {
    const created = await create({
      config: { configurable: { model: "small", temperature: 0 } },
      context: { tone: "brief" },
      metadata: { owner: "ann", stage: "draft", nested: { a: 1 } },
    });
    await nextMillisecond();
    const updated = await repo().update(created.assistant_id, {
      config: { configurable: { model: "large" } },
      metadata: { stage: "live", nested: { b: 2 }, added: true },
    });

    expect(updated).toEqual({
      ...created,
      version: 2,
      config: { configurable: { model: "large" } },
      metadata: { owner: "ann", stage: "live", nested: { b: 2 }, added: true },
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse(updated!.updated_at)).toBeGreaterThan(Date.parse(created.created_at));
    expect(await repo().get(created.assistant_id)).toEqual(updated);
  });

  test("replaces graph, context, name and description when the patch gives them", async () => {
    const created = await create({ graph_id: "old", context: { a: 1 }, name: "Old", description: "old one", metadata: { keep: "me" } });
    const updated = await repo().update(created.assistant_id, { graph_id: "new", context: { b: 2 }, name: "New", description: null });
    expect(updated).toMatchObject({ graph_id: "new", context: { b: 2 }, name: "New", description: null, metadata: { keep: "me" }, config: {} });
  });

  test("returns null when updating an assistant that does not exist", async () => {
    expect(await repo().update(newAssistant().assistant_id, { name: "x" })).toBeNull();
  });

  test("lists versions newest first, paged", async () => {
    const created = await create();
    await repo().update(created.assistant_id, { metadata: { step: 2 } });
    await repo().update(created.assistant_id, { metadata: { step: 3 } });

    const versions = await repo().listVersions(created.assistant_id, {}, ALL);
    expect(versions?.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(versions?.[0]?.metadata).toEqual({ step: 3 });
    expect((await repo().listVersions(created.assistant_id, {}, { limit: 1, offset: 1 }))?.map((v) => v.version)).toEqual([2]);
  });

  test("filters versions by metadata containment", async () => {
    const created = await create({ metadata: { stage: "draft", tags: ["x"] } });
    await repo().update(created.assistant_id, { metadata: { stage: "live" } });
    await repo().update(created.assistant_id, { metadata: { stage: "draft", tags: ["y"] } });

    const drafts = await repo().listVersions(created.assistant_id, { metadata: { stage: "draft" } }, ALL);
    expect(drafts?.map((v) => v.version)).toEqual([3, 1]);
    const tagged = await repo().listVersions(created.assistant_id, { metadata: { tags: ["x"] } }, ALL);
    expect(tagged?.map((v) => v.version)).toEqual([2, 1]);
  });

  test("returns null when listing the versions of an assistant that does not exist", async () => {
    expect(await repo().listVersions(newAssistant().assistant_id, {}, ALL)).toBeNull();
  });

  test("restores version 1's fields when it is set back as current", async () => {
    const created = await create({ graph_id: "g1", config: { configurable: { v: 1 } }, metadata: { v: 1 }, name: "One", description: "first" });
    await repo().update(created.assistant_id, { graph_id: "g2", config: { configurable: { v: 2 } }, metadata: { v: 2 }, name: "Two", description: null });

    const restored = await repo().setLatest(created.assistant_id, 1);
    const { updated_at: _created, ...first } = created;
    expect(restored).toEqual({ ...first, updated_at: expect.stringMatching(ISO_MS) });
    expect(await repo().get(created.assistant_id)).toEqual(restored);
    expect(await repo().listVersions(created.assistant_id, {}, ALL)).toHaveLength(2);
  });

  test("returns null from setLatest for a missing version or a missing assistant", async () => {
    const created = await create();
    expect(await repo().setLatest(created.assistant_id, 2)).toBeNull();
    expect(await repo().setLatest(newAssistant().assistant_id, 1)).toBeNull();
    expect((await repo().get(created.assistant_id))?.version).toBe(1);
  });

  test("writes the version after the highest one even when an older one is current", async () => {
    const created = await create();
    await repo().update(created.assistant_id, { name: "Two" });
    await repo().setLatest(created.assistant_id, 1);
    const updated = await repo().update(created.assistant_id, { name: "Three" });
    expect(updated?.version).toBe(3);
  });

  test("gives concurrent updates of one assistant distinct versions", async () => {
    const created = await create();
    const updates = await Promise.all([1, 2, 3, 4, 5].map((n) => repo().update(created.assistant_id, { metadata: { [`k${n}`]: n } })));
    expect(updates.map((u) => u?.version ?? 0).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6]);
    expect((await repo().get(created.assistant_id))?.version).toBe(6);
    expect(await repo().listVersions(created.assistant_id, {}, ALL)).toHaveLength(6);
  });

  test("deletes an assistant together with its versions", async () => {
    const created = await create();
    await repo().update(created.assistant_id, { name: "Two" });

    expect(await repo().delete(created.assistant_id)).toBe(true);
    expect(await repo().get(created.assistant_id)).toBeNull();
    expect(await repo().delete(created.assistant_id)).toBe(false);
    // Creating the id again starts a fresh history: version 2 of the old one is gone.
    await create({ assistant_id: created.assistant_id });
    expect((await repo().listVersions(created.assistant_id, {}, ALL))?.map((v) => v.version)).toEqual([1]);
  });

  test("finds assistants by nested metadata objects", async () => {
    const marker = newMarker();
    const eu = await create({ metadata: { marker, owner: { team: "core", region: { name: "eu", zone: 1 } } } });
    const us = await create({ metadata: { marker, owner: { team: "core", region: { name: "us" } } } });

    expect(await idsMatching(marker, { metadata: { owner: { region: { name: "eu" } } } })).toEqual([eu.assistant_id]);
    expect(await idsMatching(marker, { metadata: { owner: { team: "core" } } })).toEqual([eu.assistant_id, us.assistant_id]);
    expect(await idsMatching(marker, { metadata: { owner: { region: { zone: 2 } } } })).toEqual([]);
  });

  test("finds assistants whose metadata arrays contain every element of the filter's", async () => {
    const marker = newMarker();
    const both = await create({ metadata: { marker, tags: ["red", "blue"], items: [{ id: 1, x: true }, { id: 2 }] } });
    const blue = await create({ metadata: { marker, tags: ["blue"] } });

    expect(await idsMatching(marker, { metadata: { tags: ["blue"] } })).toEqual([both.assistant_id, blue.assistant_id]);
    expect(await idsMatching(marker, { metadata: { tags: ["blue", "red"] } })).toEqual([both.assistant_id]);
    expect(await idsMatching(marker, { metadata: { items: [{ id: 1 }] } })).toEqual([both.assistant_id]);
    expect(await idsMatching(marker, { metadata: { tags: ["green"] } })).toEqual([]);
    expect(await idsMatching(marker, { metadata: { tags: "blue" } })).toEqual([]);
  });

  test("matches booleans, numbers and null in metadata by type and value", async () => {
    const marker = newMarker();
    const typed = await create({ metadata: { marker, public: true, priority: 2, rating: 4.5, note: null } });
    const texts = await create({ metadata: { marker, public: "true", priority: "2", note: "null" } });

    expect(await idsMatching(marker, { metadata: { public: true } })).toEqual([typed.assistant_id]);
    expect(await idsMatching(marker, { metadata: { public: "true" } })).toEqual([texts.assistant_id]);
    expect(await idsMatching(marker, { metadata: { public: false } })).toEqual([]);
    expect(await idsMatching(marker, { metadata: { priority: 2 } })).toEqual([typed.assistant_id]);
    expect(await idsMatching(marker, { metadata: { priority: "2" } })).toEqual([texts.assistant_id]);
    expect(await idsMatching(marker, { metadata: { rating: 4.5 } })).toEqual([typed.assistant_id]);
    expect(await idsMatching(marker, { metadata: { note: null } })).toEqual([typed.assistant_id]);
  });

  test("filters assistants by graph_id", async () => {
    const marker = newMarker();
    const chat = await create({ graph_id: "chat", metadata: { marker } });
    await create({ graph_id: "chatbot", metadata: { marker } });
    expect(await idsMatching(marker, { graph_id: "chat" })).toEqual([chat.assistant_id]);
  });

  test("matches the name filter as a case-insensitive substring", async () => {
    const marker = newMarker();
    const bot = await create({ name: "Support Bot", metadata: { marker } });
    const desk = await create({ name: "support-desk", metadata: { marker } });
    await create({ name: "Billing", metadata: { marker } });

    expect(await idsMatching(marker, { name: "SUPPORT" })).toEqual([bot.assistant_id, desk.assistant_id]);
    expect(await idsMatching(marker, { name: "rt b" })).toEqual([bot.assistant_id]);
    expect(await idsMatching(marker, { name: "" })).toHaveLength(3);
  });

  test("takes %, _ and backslash in the name filter literally", async () => {
    const marker = newMarker();
    const percent = await create({ name: "100% sure", metadata: { marker } });
    await create({ name: "100 percent", metadata: { marker } });
    const underscore = await create({ name: "snake_case", metadata: { marker } });
    await create({ name: "snakeXcase", metadata: { marker } });
    const backslash = await create({ name: "back\\slash", metadata: { marker } });
    await create({ name: "backslash", metadata: { marker } });

    expect(await idsMatching(marker, { name: "%" })).toEqual([percent.assistant_id]);
    expect(await idsMatching(marker, { name: "0% s" })).toEqual([percent.assistant_id]);
    expect(await idsMatching(marker, { name: "_" })).toEqual([underscore.assistant_id]);
    expect(await idsMatching(marker, { name: "\\" })).toEqual([backslash.assistant_id]);
  });

  test("combines metadata, graph and name filters", async () => {
    const marker = newMarker();
    const hit = await create({ graph_id: "chat", name: "Helper", metadata: { marker, tier: "gold" } });
    await create({ graph_id: "chat", name: "Helper", metadata: { marker, tier: "free" } });
    await create({ graph_id: "mail", name: "Helper", metadata: { marker, tier: "gold" } });
    await create({ graph_id: "chat", name: "Other", metadata: { marker, tier: "gold" } });
    expect(await idsMatching(marker, { graph_id: "chat", name: "help", metadata: { tier: "gold" } })).toEqual([hit.assistant_id]);
  });

  test("sorts assistants by each field in both directions, breaking ties by id", async () => {
    const marker = newMarker();
    // Created in the order a, b, c, so both ids and created_at ascend that way; updated c, a, b.
    const a = await create({ graph_id: "graph-2", name: "beta", metadata: { marker } });
    const b = await create({ graph_id: "graph-1", name: "Gamma", metadata: { marker } });
    const c = await create({ graph_id: "graph-2", name: "alpha", metadata: { marker } });
    for (const assistant of [c, a, b]) {
      await nextMillisecond();
      await repo().update(assistant.assistant_id, { metadata: { touched: true } });
    }
    const ascending: Record<AssistantSortField, Assistant[]> = {
      assistant_id: [a, b, c],
      graph_id: [b, a, c],
      // Byte order, as on SQLite: upper case sorts before lower case.
      name: [b, c, a],
      created_at: [a, b, c],
      updated_at: [c, a, b],
    };
    for (const [by, expected] of Object.entries(ascending) as Array<[AssistantSortField, Assistant[]]>) {
      const ids = expected.map((x) => x.assistant_id);
      for (const order of ["asc", "desc"] as const) {
        const found = await repo().search({ metadata: { marker } }, { by, order }, ALL);
        expect(
          found.items.map((x) => x.assistant_id),
          `${by} ${order}`,
        ).toEqual(order === "asc" ? ids : [...ids].reverse());
      }
    }
  });

  test("pages a search and reports the number of matches before paging", async () => {
    const marker = newMarker();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ metadata: { marker } })).assistant_id);
    const page = async (limit: number, offset: number) => {
      const found = await repo().search({ metadata: { marker } }, { by: "assistant_id", order: "asc" }, { limit, offset });
      return { ids: found.items.map((a) => a.assistant_id), total: found.total };
    };

    expect(await page(2, 0)).toEqual({ ids: ids.slice(0, 2), total: 5 });
    expect(await page(2, 2)).toEqual({ ids: ids.slice(2, 4), total: 5 });
    expect(await page(2, 4)).toEqual({ ids: ids.slice(4), total: 5 });
    expect(await page(5, 0)).toEqual({ ids, total: 5 });
    expect(await page(10, 0)).toEqual({ ids, total: 5 });
    expect(await page(2, 10)).toEqual({ ids: [], total: 5 });
  });

  test("counts the assistants a filter matches", async () => {
    const marker = newMarker();
    await create({ graph_id: "chat", metadata: { marker } });
    await create({ graph_id: "chat", metadata: { marker } });
    await create({ graph_id: "mail", metadata: { marker } });
    expect(await repo().count({ metadata: { marker } })).toBe(3);
    expect(await repo().count({ metadata: { marker }, graph_id: "chat" })).toBe(2);
    expect(await repo().count({ metadata: { marker: newMarker() } })).toBe(0);
  });
}
