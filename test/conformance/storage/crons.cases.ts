// CronRepo cases: create and read back, replace guarded by the revision, delete (and going with the
// assistant or thread), search filters, sorts and paging, count, and the scheduler's pair: which
// crons are due, and advancing one so that of several claimers exactly one wins. Every case makes
// its own assistant, and filters by it, so it sees only its own crons.
import { expect } from "vitest";
import type { CronFields, CronRepo, NewCron } from "../../../src/storage/cron-ports.js";
import type { Storage } from "../../../src/storage/ports.js";
import { ISO_MS, newAssistant, newId, newMarker, newThread, nextMillisecond } from "./builders.js";
import type { CaseContext, MigratedStorage, StorageHarness } from "./harness.js";

const MINUTE = 60_000;
/** A fixed start, so due-ness is decided by the case's arithmetic and not by the wall clock. */
const T0 = Date.parse("2031-05-04T10:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);

export function cronCases<S extends MigratedStorage>({ storage, test }: CaseContext, harness: StorageHarness<S>): void {
  const repo = (): CronRepo => storage().crons;

  async function assistant(s: Storage = storage()): Promise<string> {
    const created = await s.assistants.create(newAssistant());
    return created!.assistant_id;
  }

  async function thread(s: Storage = storage()): Promise<string> {
    const created = await s.threads.create(newThread());
    return created!.thread_id;
  }

  function newCron(assistantId: string, overrides: Partial<NewCron> = {}): NewCron {
    return {
      cron_id: newId(),
      assistant_id: assistantId,
      thread_id: null,
      on_run_completed: "delete",
      end_time: null,
      schedule: "*/5 * * * *",
      timezone: null,
      payload: { assistant_id: assistantId, input: { n: 1 } },
      user_id: null,
      next_run_date: at(5 * MINUTE),
      metadata: {},
      enabled: true,
      ...overrides,
    };
  }

  const fieldsOf = (cron: NewCron): Omit<CronFields, "assistant_id" | "thread_id"> => {
    const { cron_id: _id, assistant_id: _a, thread_id: _t, ...fields } = cron;
    return fields;
  };

  test("creates a cron and reads it back with every field and revision 1", async () => {
    const assistantId = await assistant();
    const input = newCron(assistantId, {
      end_time: at(60 * MINUTE),
      timezone: "Europe/Paris",
      metadata: { team: "ops", nested: { deep: [1, null] } },
      payload: { assistant_id: assistantId, input: { text: "ünïcode ✓" }, config: { tags: ["a"] }, webhook: "https://example.com/hook" },
    });
    const before = Date.now();
    const created = await repo().create(input);
    expect(created).toEqual({
      cron_id: input.cron_id,
      assistant_id: assistantId,
      thread_id: null,
      on_run_completed: "delete",
      end_time: at(60 * MINUTE).toISOString(),
      schedule: "*/5 * * * *",
      timezone: "Europe/Paris",
      created_at: expect.stringMatching(ISO_MS),
      updated_at: created.created_at,
      payload: input.payload,
      user_id: null,
      next_run_date: at(5 * MINUTE).toISOString(),
      metadata: input.metadata,
      enabled: true,
    });
    expect(Date.parse(created.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(await repo().get(input.cron_id)).toEqual({ ...created, revision: 1 });
    expect(await repo().get(newId())).toBeNull();
  });

  test("keeps a thread cron's thread and a null on_run_completed", async () => {
    const assistantId = await assistant();
    const threadId = await thread();
    const created = await repo().create(newCron(assistantId, { thread_id: threadId, on_run_completed: null }));
    expect(created.thread_id).toBe(threadId);
    expect(created.on_run_completed).toBeNull();
  });

  test("deletes a thread's crons with the thread and an assistant's crons with the assistant", async () => {
    const assistantId = await assistant();
    const threadId = await thread();
    const onThread = await repo().create(newCron(assistantId, { thread_id: threadId, on_run_completed: null }));
    const stateless = await repo().create(newCron(assistantId));
    await storage().threads.delete(threadId);
    expect(await repo().get(onThread.cron_id)).toBeNull();
    expect(await repo().get(stateless.cron_id)).not.toBeNull();
    await storage().assistants.delete(assistantId);
    expect(await repo().get(stateless.cron_id)).toBeNull();
  });

  test("replaces a cron's fields when the revision matches and bumps the revision and updated_at", async () => {
    const assistantId = await assistant();
    const input = newCron(assistantId);
    const created = await repo().create(input);
    await nextMillisecond();
    const next = {
      ...fieldsOf(input),
      schedule: "0 9 * * 1",
      timezone: "America/New_York",
      end_time: at(90 * MINUTE),
      on_run_completed: "keep" as const,
      payload: { assistant_id: assistantId, input: { n: 2 } },
      next_run_date: null,
      metadata: { v: 2 },
      enabled: false,
    };
    const replaced = await repo().replace(input.cron_id, 1, next);
    expect(replaced).toEqual({
      ...created,
      schedule: "0 9 * * 1",
      timezone: "America/New_York",
      end_time: at(90 * MINUTE).toISOString(),
      on_run_completed: "keep",
      payload: next.payload,
      next_run_date: null,
      metadata: { v: 2 },
      enabled: false,
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse((replaced as { updated_at: string }).updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect((await repo().get(input.cron_id))?.revision).toBe(2);
  });

  test("refuses to replace a cron whose revision moved on, and answers null for a missing cron", async () => {
    const assistantId = await assistant();
    const input = newCron(assistantId);
    await repo().create(input);
    expect(await repo().advance([{ cron_id: input.cron_id, revision: 1, next: at(10 * MINUTE) }])).toEqual(new Set([input.cron_id]));
    expect(await repo().replace(input.cron_id, 1, { ...fieldsOf(input), schedule: "0 0 * * *" })).toBe("changed");
    expect((await repo().get(input.cron_id))?.schedule).toBe("*/5 * * * *");
    expect(await repo().replace(newId(), 1, fieldsOf(input))).toBeNull();
  });

  test("deletes a cron once", async () => {
    const created = await repo().create(newCron(await assistant()));
    expect(await repo().delete(created.cron_id)).toBe(true);
    expect(await repo().delete(created.cron_id)).toBe(false);
    expect(await repo().get(created.cron_id)).toBeNull();
  });

  test("searches crons by assistant, thread, enabled and metadata, and counts them", async () => {
    const assistantId = await assistant();
    const other = await assistant();
    const threadId = await thread();
    const marker = newMarker();
    const a = await repo().create(newCron(assistantId, { metadata: { marker, kind: "a" } }));
    const b = await repo().create(newCron(assistantId, { thread_id: threadId, on_run_completed: null, metadata: { marker, kind: "b" }, enabled: false }));
    await repo().create(newCron(other, { metadata: { marker, kind: "a" } }));
    const ids = async (filter: Parameters<CronRepo["search"]>[0]) =>
      (await repo().search(filter, { by: "created_at", order: "asc" }, { limit: 100, offset: 0 })).items.map((c) => c.cron_id);

    expect(await ids({ assistant_id: assistantId })).toEqual([a.cron_id, b.cron_id]);
    expect(await ids({ thread_id: threadId })).toEqual([b.cron_id]);
    expect(await ids({ assistant_id: assistantId, enabled: true })).toEqual([a.cron_id]);
    expect(await ids({ assistant_id: assistantId, enabled: false })).toEqual([b.cron_id]);
    expect(await ids({ assistant_id: assistantId, metadata: { marker, kind: "a" } })).toEqual([a.cron_id]);
    expect(await ids({ metadata: { marker } })).toHaveLength(3);
    expect(await repo().count({ assistant_id: assistantId })).toBe(2);
    expect(await repo().count({ metadata: { marker, kind: "a" } })).toBe(2);
    expect(await repo().count({ thread_id: threadId, enabled: true })).toBe(0);
  });

  test("sorts crons by next_run_date with crons that have none last in both orders, and pages with a total", async () => {
    const assistantId = await assistant();
    const late = await repo().create(newCron(assistantId, { next_run_date: at(30 * MINUTE) }));
    const none = await repo().create(newCron(assistantId, { next_run_date: null }));
    const early = await repo().create(newCron(assistantId, { next_run_date: at(10 * MINUTE) }));
    const order = async (direction: "asc" | "desc") =>
      (await repo().search({ assistant_id: assistantId }, { by: "next_run_date", order: direction }, { limit: 10, offset: 0 })).items.map((c) => c.cron_id);
    expect(await order("asc")).toEqual([early.cron_id, late.cron_id, none.cron_id]);
    expect(await order("desc")).toEqual([late.cron_id, early.cron_id, none.cron_id]);

    const page = await repo().search({ assistant_id: assistantId }, { by: "next_run_date", order: "asc" }, { limit: 2, offset: 1 });
    expect(page.items.map((c) => c.cron_id)).toEqual([late.cron_id, none.cron_id]);
    expect(page.total).toBe(3);
    const first = await repo().search({ assistant_id: assistantId }, { by: "cron_id", order: "asc" }, { limit: 1, offset: 0 });
    expect(first.items).toHaveLength(1);
    expect(first.total).toBe(3);
  });

  test("lists as due only enabled crons whose next run date has come, earliest first", async () => {
    const assistantId = await assistant();
    const second = await repo().create(newCron(assistantId, { next_run_date: at(2 * MINUTE) }));
    const first = await repo().create(newCron(assistantId, { next_run_date: at(1 * MINUTE) }));
    const exactlyNow = await repo().create(newCron(assistantId, { next_run_date: at(3 * MINUTE) }));
    await repo().create(newCron(assistantId, { next_run_date: at(3 * MINUTE + 1) }));
    await repo().create(newCron(assistantId, { next_run_date: at(MINUTE), enabled: false }));
    await repo().create(newCron(assistantId, { next_run_date: null }));

    const mine = new Set(
      (await repo().search({ assistant_id: assistantId }, { by: "cron_id", order: "asc" }, { limit: 100, offset: 0 })).items.map((c) => c.cron_id),
    );
    const due = (await repo().due(at(3 * MINUTE), 1000)).filter((c) => mine.has(c.cron_id));
    expect(due.map((c) => c.cron_id)).toEqual([first.cron_id, second.cron_id, exactlyNow.cron_id]);
    expect(due[0]).toMatchObject({ revision: 1, next_run_date: at(MINUTE).toISOString(), payload: first.payload });
  });

  test("advances a due cron for the first caller with its revision only, and a null next run ends it", async () => {
    const assistantId = await assistant();
    const cron = await repo().create(newCron(assistantId, { next_run_date: at(MINUTE) }));
    const claim = (revision: number, next: Date | null) => repo().advance([{ cron_id: cron.cron_id, revision, next }]);
    expect(await claim(1, at(2 * MINUTE))).toEqual(new Set([cron.cron_id]));
    expect(await claim(1, at(2 * MINUTE))).toEqual(new Set());
    const stored = await repo().get(cron.cron_id);
    expect(stored).toMatchObject({ revision: 2, next_run_date: at(2 * MINUTE).toISOString(), updated_at: cron.updated_at });

    expect(await claim(2, null)).toEqual(new Set([cron.cron_id]));
    expect((await repo().get(cron.cron_id))?.next_run_date).toBeNull();
    const due = await repo().due(at(1000 * MINUTE), 1000);
    expect(due.map((c) => c.cron_id)).not.toContain(cron.cron_id);
    expect(await repo().advance([{ cron_id: newId(), revision: 1, next: null }])).toEqual(new Set());
    expect(await repo().advance([])).toEqual(new Set());
  });

  test("advances a list of crons, each on its own revision: the stale and the unknown ones are left out", async () => {
    const assistantId = await assistant();
    const [a, b, c] = await Promise.all([0, 1, 2].map((i) => repo().create(newCron(assistantId, { next_run_date: at(i * 1000) }))));
    // b is claimed first on its own, so the list's claim of it is stale.
    expect(await repo().advance([{ cron_id: b!.cron_id, revision: 1, next: at(5 * MINUTE) }])).toEqual(new Set([b!.cron_id]));
    const won = await repo().advance([
      { cron_id: a!.cron_id, revision: 1, next: at(2 * MINUTE) },
      { cron_id: b!.cron_id, revision: 1, next: at(3 * MINUTE) },
      { cron_id: c!.cron_id, revision: 1, next: null },
      { cron_id: newId(), revision: 1, next: at(2 * MINUTE) },
    ]);
    expect(won).toEqual(new Set([a!.cron_id, c!.cron_id]));
    expect(await repo().get(a!.cron_id)).toMatchObject({ revision: 2, next_run_date: at(2 * MINUTE).toISOString() });
    expect(await repo().get(b!.cron_id)).toMatchObject({ revision: 2, next_run_date: at(5 * MINUTE).toISOString() });
    expect(await repo().get(c!.cron_id)).toMatchObject({ revision: 2, next_run_date: null });
  });

  test("gives each due occurrence to exactly one of two processes claiming overlapping lists at once, occurrence after occurrence", async () => {
    const other = await harness.reopen(storage() as S);
    try {
      const assistantId = await assistant();
      const crons = await Promise.all(Array.from({ length: 24 }, (_, i) => repo().create(newCron(assistantId, { next_run_date: at(i * 1000) }))));
      const mine = new Set(crons.map((c) => c.cron_id));
      // Three occurrences in turn: each round both processes read what is due, then race for it.
      for (let round = 1; round <= 3; round++) {
        const [seenHere, seenThere] = await Promise.all([repo().due(at(round * MINUTE), 1000), other.crons.due(at(round * MINUTE), 1000)]);
        // One process claims in chunks of eight in due order, the other in chunks of five in reverse:
        // the chunks overlap in every way, and all are in flight at once.
        const chunks = (seen: typeof seenHere, size: number) => {
          const claims = seen.filter((c) => mine.has(c.cron_id)).map((c) => ({ cron_id: c.cron_id, revision: c.revision, next: at((round + 1) * MINUTE) }));
          return Array.from({ length: Math.ceil(claims.length / size) }, (_, i) => claims.slice(i * size, (i + 1) * size));
        };
        const won = await Promise.all([
          ...chunks(seenHere, 8).map((chunk) => repo().advance(chunk)),
          ...chunks([...seenThere].reverse(), 5).map((chunk) => other.crons.advance(chunk)),
        ]);
        const winners = won.flatMap((set) => [...set]);
        expect(winners.sort()).toEqual([...mine].sort());
      }
      const after = (await repo().due(at(3 * MINUTE), 1000)).filter((c) => mine.has(c.cron_id));
      expect(after).toEqual([]);
    } finally {
      await other.close();
    }
  });
}
