// ThreadRepo cases: create, ttl, update, delete, search (ids, metadata, values, status, every sort
// field, paging and its total), count, copy, the TTL sweep, bulk operations and deleteByAssistant.
import { expect } from "vitest";
import { GantryError } from "../../../src/errors.js";
import type { NewThread, Page, ThreadFilter, ThreadSortField } from "../../../src/storage/ports.js";
import type { Thread } from "../../../src/storage/records.js";
import { ISO_MS, isBetween, newId, newMarker, newRun, newThread, nextMillisecond } from "./builders.js";
import type { CaseContext } from "./harness.js";

const ALL: Page = { limit: 100, offset: 0 };
const MINUTE = 60_000;

export function threadCases({ storage, test }: CaseContext): void {
  const repo = () => storage().threads;

  async function create(overrides: Partial<NewThread> = {}): Promise<Thread> {
    const created = await repo().create(newThread(overrides));
    if (!created) throw new Error("a fresh thread id was refused");
    return created;
  }

  /** Ids of the threads carrying `marker` that also match `filter`, in id order. */
  async function idsMatching(marker: string, filter: ThreadFilter = {}): Promise<string[]> {
    const found = await repo().search({ ...filter, metadata: { marker, ...filter.metadata } }, { by: "thread_id", order: "asc" }, ALL);
    return found.items.map((t) => t.thread_id);
  }

  test("creates an idle thread without state and reads it back", async () => {
    const input = newThread({ metadata: { marker: newMarker(), user: "ann" } });
    const before = Date.now();
    const created = await repo().create(input);
    const after = Date.now();

    expect(created).toEqual({
      thread_id: input.thread_id,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: created?.created_at,
      state_updated_at: created?.created_at,
      metadata: input.metadata,
      status: "idle",
      config: {},
      values: null,
      interrupts: {},
      error: null,
    });
    expect(created).not.toHaveProperty("ttl");
    expect(isBetween(created!.created_at, before, after)).toBe(true);
    expect(await repo().get(input.thread_id)).toEqual(created);
  });

  test("returns null when creating a thread whose id exists", async () => {
    const first = await create({ metadata: { n: 1 } });
    expect(await repo().create(newThread({ thread_id: first.thread_id, metadata: { n: 2 } }))).toBeNull();
    expect(await repo().get(first.thread_id)).toEqual(first);
  });

  test("returns null when getting a thread that does not exist", async () => {
    expect(await repo().get(newId())).toBeNull();
    expect(await repo().get(newId(), { includeTtl: true })).toBeNull();
  });

  test("stores a ttl and returns it only when asked for", async () => {
    const before = Date.now();
    const created = await create({ ttl: { strategy: "delete", ttl_minutes: 60 } });
    const after = Date.now();

    const ttl = { strategy: "delete", ttl_minutes: 60, expires_at: expect.stringMatching(ISO_MS) };
    expect(created.ttl).toEqual(ttl);
    expect(isBetween(created.ttl!.expires_at, before + 60 * MINUTE, after + 60 * MINUTE)).toBe(true);
    expect(await repo().get(created.thread_id)).not.toHaveProperty("ttl");
    expect((await repo().get(created.thread_id, { includeTtl: true }))?.ttl).toEqual(created.ttl);
  });

  test("answers a null ttl when asked for one on a thread without a ttl", async () => {
    const created = await create();
    expect((await repo().get(created.thread_id, { includeTtl: true }))?.ttl).toBeNull();
  });

  test("merges metadata key by key on update and keeps the ttl", async () => {
    const created = await create({ metadata: { user: "ann", stage: "new", nested: { a: 1 } }, ttl: { strategy: "keep_latest", ttl_minutes: 90 } });
    await nextMillisecond();
    const updated = await repo().update(created.thread_id, { metadata: { stage: "done", nested: { b: 2 } } });

    const { ttl, ...rest } = created;
    expect(updated).toEqual({ ...rest, metadata: { user: "ann", stage: "done", nested: { b: 2 } }, updated_at: expect.stringMatching(ISO_MS) });
    expect(Date.parse(updated!.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect(updated?.state_updated_at).toBe(created.state_updated_at);
    expect((await repo().get(created.thread_id, { includeTtl: true }))?.ttl).toEqual(ttl);
  });

  test("replaces the ttl on update and computes its expiry from the update time", async () => {
    const created = await create({ metadata: { user: "ann" }, ttl: { strategy: "delete", ttl_minutes: 60 } });
    const before = Date.now();
    await repo().update(created.thread_id, { ttl: { strategy: "keep_latest", ttl_minutes: 120 } });
    const after = Date.now();

    const read = await repo().get(created.thread_id, { includeTtl: true });
    expect(read?.metadata).toEqual({ user: "ann" });
    expect(read?.ttl).toEqual({ strategy: "keep_latest", ttl_minutes: 120, expires_at: expect.stringMatching(ISO_MS) });
    expect(isBetween(read!.ttl!.expires_at, before + 120 * MINUTE, after + 120 * MINUTE)).toBe(true);
  });

  test("returns null when updating a thread that does not exist", async () => {
    expect(await repo().update(newId(), { metadata: { a: 1 } })).toBeNull();
  });

  test("deletes a thread", async () => {
    const created = await create();
    expect(await repo().delete(created.thread_id)).toBe(true);
    expect(await repo().get(created.thread_id)).toBeNull();
    expect(await repo().delete(created.thread_id)).toBe(false);
  });

  test("finds threads by id", async () => {
    const marker = newMarker();
    const a = await create({ metadata: { marker } });
    const b = await create({ metadata: { marker } });
    const c = await create({ metadata: { marker } });
    expect(await idsMatching(marker, { ids: [a.thread_id, c.thread_id, newId()] })).toEqual([a.thread_id, c.thread_id]);
    expect(await idsMatching(marker, { ids: [b.thread_id] })).toEqual([b.thread_id]);
    expect(await idsMatching(marker, { ids: [] })).toEqual([]);
  });

  test("matches strings, booleans and numbers in metadata by type and value", async () => {
    const marker = newMarker();
    const typed = await create({ metadata: { marker, user: "ann", active: true, count: 3, score: 0.5 } });
    const texts = await create({ metadata: { marker, user: "bob", active: "true", count: "3" } });

    expect(await idsMatching(marker, { metadata: { user: "ann" } })).toEqual([typed.thread_id]);
    expect(await idsMatching(marker, { metadata: { user: "Ann" } })).toEqual([]);
    expect(await idsMatching(marker, { metadata: { active: true } })).toEqual([typed.thread_id]);
    expect(await idsMatching(marker, { metadata: { active: "true" } })).toEqual([texts.thread_id]);
    expect(await idsMatching(marker, { metadata: { active: false } })).toEqual([]);
    expect(await idsMatching(marker, { metadata: { count: 3 } })).toEqual([typed.thread_id]);
    expect(await idsMatching(marker, { metadata: { count: "3" } })).toEqual([texts.thread_id]);
    expect(await idsMatching(marker, { metadata: { score: 0.5, user: "ann" } })).toEqual([typed.thread_id]);
    expect(await idsMatching(marker, { metadata: { user: "ann", active: "true" } })).toEqual([]);
  });

  test("finds threads by nested metadata objects and arrays", async () => {
    const marker = newMarker();
    const one = await create({ metadata: { marker, owner: { org: "acme", team: { name: "core" } }, tags: ["a", "b"] } });
    const two = await create({ metadata: { marker, owner: { org: "acme" }, tags: ["b"] } });

    expect(await idsMatching(marker, { metadata: { owner: { org: "acme" } } })).toEqual([one.thread_id, two.thread_id]);
    expect(await idsMatching(marker, { metadata: { owner: { team: { name: "core" } } } })).toEqual([one.thread_id]);
    expect(await idsMatching(marker, { metadata: { tags: ["b"] } })).toEqual([one.thread_id, two.thread_id]);
    expect(await idsMatching(marker, { metadata: { tags: ["b", "a"] } })).toEqual([one.thread_id]);
    expect(await idsMatching(marker, { metadata: { tags: "a" } })).toEqual([]);
  });

  test("takes metadata keys with dots, quotes, spaces or nothing at all as one key", async () => {
    const marker = newMarker();
    const odd = await create({ metadata: { marker, "a.b": "dot", 'say "hi"': "quote", "with space": true, "": "empty" } });
    const nested = await create({ metadata: { marker, a: { b: "dot" } } });

    expect(await idsMatching(marker, { metadata: { "a.b": "dot" } })).toEqual([odd.thread_id]);
    expect(await idsMatching(marker, { metadata: { a: { b: "dot" } } })).toEqual([nested.thread_id]);
    expect(await idsMatching(marker, { metadata: { 'say "hi"': "quote" } })).toEqual([odd.thread_id]);
    expect(await idsMatching(marker, { metadata: { "with space": true } })).toEqual([odd.thread_id]);
    expect(await idsMatching(marker, { metadata: { "": "empty" } })).toEqual([odd.thread_id]);
  });

  test("finds a thread by the metadata an update gave it, not the metadata it replaced", async () => {
    const marker = newMarker();
    const created = await create({ metadata: { marker, stage: "new" } });
    await repo().update(created.thread_id, { metadata: { stage: "done" } });
    expect(await idsMatching(marker, { metadata: { stage: "done" } })).toEqual([created.thread_id]);
    expect(await idsMatching(marker, { metadata: { stage: "new" } })).toEqual([]);
  });

  test("never matches a thread without state values against a values filter", async () => {
    const marker = newMarker();
    const created = await create({ metadata: { marker } });
    expect(await idsMatching(marker, { values: { messages: [] } })).toEqual([]);
    expect(await idsMatching(marker, { values: {} })).toEqual([created.thread_id]);
  });

  test("filters threads by status", async () => {
    const marker = newMarker();
    const created = await create({ metadata: { marker } });
    expect(await idsMatching(marker, { status: "idle" })).toEqual([created.thread_id]);
    expect(await idsMatching(marker, { status: "busy" })).toEqual([]);
  });

  test("sorts threads by each field in both directions, breaking ties by id", async () => {
    const marker = newMarker();
    // Created in the order a, b, c, so ids, created_at and state_updated_at ascend that way; the
    // updates (c, a, b) move updated_at only; every status is idle, so status ties throughout.
    const a = await create({ metadata: { marker } });
    const b = await create({ metadata: { marker } });
    const c = await create({ metadata: { marker } });
    for (const thread of [c, a, b]) {
      await nextMillisecond();
      await repo().update(thread.thread_id, { metadata: { touched: true } });
    }
    const ascending: Record<ThreadSortField, Thread[]> = {
      thread_id: [a, b, c],
      status: [a, b, c],
      created_at: [a, b, c],
      updated_at: [c, a, b],
      state_updated_at: [a, b, c],
    };
    for (const [by, expected] of Object.entries(ascending) as Array<[ThreadSortField, Thread[]]>) {
      const ids = expected.map((t) => t.thread_id);
      for (const order of ["asc", "desc"] as const) {
        const found = await repo().search({ metadata: { marker } }, { by, order }, ALL);
        expect(
          found.items.map((t) => t.thread_id),
          `${by} ${order}`,
        ).toEqual(order === "asc" ? ids : [...ids].reverse());
      }
    }
  });

  test("pages a thread search and reports the number of matches before paging", async () => {
    const marker = newMarker();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ metadata: { marker } })).thread_id);
    const page = async (limit: number, offset: number) => {
      const found = await repo().search({ metadata: { marker } }, { by: "thread_id", order: "asc" }, { limit, offset });
      return { ids: found.items.map((t) => t.thread_id), total: found.total };
    };

    expect(await page(2, 0)).toEqual({ ids: ids.slice(0, 2), total: 5 });
    expect(await page(2, 4)).toEqual({ ids: ids.slice(4), total: 5 });
    expect(await page(5, 0)).toEqual({ ids, total: 5 });
    expect(await page(10, 0)).toEqual({ ids, total: 5 });
    expect(await page(2, 10)).toEqual({ ids: [], total: 5 });
  });

  test("counts the threads a filter matches", async () => {
    const marker = newMarker();
    const a = await create({ metadata: { marker, user: "ann" } });
    await create({ metadata: { marker, user: "ann" } });
    await create({ metadata: { marker, user: "bob" } });
    expect(await repo().count({ metadata: { marker } })).toBe(3);
    expect(await repo().count({ metadata: { marker, user: "ann" } })).toBe(2);
    expect(await repo().count({ metadata: { marker }, ids: [a.thread_id] })).toBe(1);
    expect(await repo().count({ metadata: { marker }, status: "busy" })).toBe(0);
  });

  test("copies a thread under a new id with its metadata, state and ttl", async () => {
    const marker = newMarker();
    const source = await create({ metadata: { marker, user: "ann" }, ttl: { strategy: "delete", ttl_minutes: 60 } });
    const copyId = newId();
    await nextMillisecond();
    const copy = await repo().copy(source.thread_id, copyId);

    const { ttl, ...sourceRow } = source;
    expect(copy).toEqual({
      ...sourceRow,
      thread_id: copyId,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: copy?.created_at,
      state_updated_at: copy?.created_at,
    });
    expect(Date.parse(copy!.created_at)).toBeGreaterThan(Date.parse(source.created_at));
    expect((await repo().get(copyId, { includeTtl: true }))?.ttl).toEqual(ttl);
    expect(await repo().get(source.thread_id, { includeTtl: true })).toEqual(source);
    expect(await idsMatching(marker, { metadata: { user: "ann" } })).toEqual([source.thread_id, copyId].sort());
  });

  test("returns null when copying a thread that does not exist", async () => {
    const copyId = newId();
    expect(await repo().copy(newId(), copyId)).toBeNull();
    expect(await repo().get(copyId)).toBeNull();
  });

  test("refuses to copy onto a thread id that exists, with a conflict", async () => {
    const source = await create({ metadata: { from: "source" } });
    const target = await create({ metadata: { from: "target" } });
    const copying = repo().copy(source.thread_id, target.thread_id);
    await expect(copying).rejects.toBeInstanceOf(GantryError);
    await expect(copying).rejects.toMatchObject({ kind: "conflict" });
    expect((await repo().get(target.thread_id))?.metadata).toEqual({ from: "target" });
  });

  // The sweep cases sweep the whole database, so they assert on their own threads, and on counts
  // only where other cases' rows cannot change them.
  test("claims expired threads with their strategy, and moves each one's expiry past the claim", async () => {
    const before = Date.now();
    const doomed = await create({ ttl: { strategy: "delete", ttl_minutes: 0.0001 } });
    const pruned = await create({ ttl: { strategy: "keep_latest", ttl_minutes: 0.0001 } });
    const live = await create({ ttl: { strategy: "delete", ttl_minutes: 60 } });
    const forever = await create();
    const mine = new Set([doomed, pruned, live, forever].map((t) => t.thread_id));
    const retryAt = new Date(Date.now() + 5 * MINUTE);

    const early = await repo().claimExpired(new Date(before - MINUTE), 1000, retryAt);
    expect(early.filter((t) => mine.has(t.thread_id))).toEqual([]);

    const now = new Date(Date.now() + MINUTE);
    const claimed = (await repo().claimExpired(now, 1000, retryAt)).filter((t) => mine.has(t.thread_id));
    expect(claimed.sort((a, b) => a.thread_id.localeCompare(b.thread_id))).toEqual(
      [
        { thread_id: doomed.thread_id, strategy: "delete" },
        { thread_id: pruned.thread_id, strategy: "keep_latest" },
      ].sort((a, b) => a.thread_id.localeCompare(b.thread_id)),
    );
    // Claiming deletes nothing, and a second claim at the same time finds neither again.
    expect(await repo().existing([...mine])).toHaveLength(4);
    expect((await repo().claimExpired(now, 1000, retryAt)).filter((t) => mine.has(t.thread_id))).toEqual([]);
    expect(Date.parse((await repo().get(doomed.thread_id, { includeTtl: true }))!.ttl!.expires_at)).toBe(retryAt.getTime());
    expect(Date.parse((await repo().get(pruned.thread_id, { includeTtl: true }))!.ttl!.expires_at)).toBe(now.getTime() + 0.0001 * MINUTE);
  });

  test("claims no more threads than the limit, and no busy thread", async () => {
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) mine.push((await create({ ttl: { strategy: "delete", ttl_minutes: 0.0001 } })).thread_id);
    const busy = await create({ ttl: { strategy: "keep_latest", ttl_minutes: 0.0001 } });
    const run = newRun(busy.thread_id, { multitask_strategy: "enqueue" });
    await storage().runs.enqueue(run, { threadMetadata: {}, multitask: "enqueue" });
    expect((await repo().get(busy.thread_id))?.status).toBe("busy");
    const later = new Date(Date.now() + MINUTE);
    const retryAt = new Date(Date.now() + 5 * MINUTE);

    const first = await repo().claimExpired(later, 2, retryAt);
    expect(first).toHaveLength(2);
    const claimed = new Set([...first, ...(await repo().claimExpired(later, 1000, retryAt))].map((t) => t.thread_id));
    expect(mine.filter((id) => claimed.has(id))).toEqual(mine);
    expect(claimed.has(busy.thread_id)).toBe(false);
  });

  test("gives two claims made at once no thread in common", async () => {
    const mine: string[] = [];
    for (let i = 0; i < 6; i++) mine.push((await create({ ttl: { strategy: "keep_latest", ttl_minutes: 0.0001 } })).thread_id);
    const later = new Date(Date.now() + MINUTE);
    const retryAt = new Date(Date.now() + 5 * MINUTE);

    const [a, b] = await Promise.all([repo().claimExpired(later, 1000, retryAt), repo().claimExpired(later, 1000, retryAt)]);
    const ids = [...a, ...b].map((t) => t.thread_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(mine.every((id) => ids.includes(id))).toBe(true);
  });

  test("reports which of a list of ids exist and deletes many at once", async () => {
    const a = await create();
    const b = await create();
    const missing = newId();

    expect((await repo().existing([a.thread_id, b.thread_id, missing])).sort()).toEqual([a.thread_id, b.thread_id].sort());
    expect(await repo().existing([])).toEqual([]);
    expect(await repo().deleteMany([a.thread_id, missing])).toBe(1);
    expect(await repo().existing([a.thread_id, b.thread_id])).toEqual([b.thread_id]);
    expect(await repo().deleteMany([])).toBe(0);
  });

  test("deletes the threads whose metadata names an assistant", async () => {
    const assistantId = newId();
    const first = await create({ metadata: { assistant_id: assistantId, user: "ann" } });
    const second = await create({ metadata: { assistant_id: assistantId } });
    const other = await create({ metadata: { assistant_id: newId() } });
    const nested = await create({ metadata: { origin: { assistant_id: assistantId } } });

    expect(await repo().deleteByAssistant(assistantId)).toBe(2);
    const left = await repo().existing([first, second, other, nested].map((t) => t.thread_id));
    expect(left.sort()).toEqual([other.thread_id, nested.thread_id].sort());
    expect(await repo().deleteByAssistant(assistantId)).toBe(0);
  });
}
