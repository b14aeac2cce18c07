// Auth filter cases (spec §6.5): the filter a custom auth handler returns, applied by every repo
// method that takes one. `eq` matches a scalar, `contains` an array holding every value, keys are
// ANDed; a row that does not match is missing to reads, writes and deletes, and absent from
// searches, counts and listings. Each case filters on owners of its own, so cases share a database.
import { expect } from "vitest";
import type { AuthFilter } from "../../../src/storage/auth-filter.js";
import type { JsonObject } from "../../../src/storage/records.js";
import type { NewRun } from "../../../src/storage/run-ports.js";
import type { StorePut } from "../../../src/storage/store-ports.js";
import { newAssistant, newId, newKwargs, newMarker, newThread } from "./builders.js";
import type { CaseContext } from "./harness.js";

const ALL = { limit: 100, offset: 0 };
const eq = (key: string, value: string | number | boolean | null): AuthFilter => [{ key, op: "eq", value }];

export function authFilterCases({ storage, test }: CaseContext): void {
  const s = () => storage();

  async function thread(metadata: JsonObject): Promise<string> {
    const created = await s().threads.create(newThread({ metadata }));
    return created!.thread_id;
  }

  function newRun(threadId: string, overrides: Partial<NewRun> = {}): NewRun {
    return {
      run_id: newId(),
      thread_id: threadId,
      assistant_id: newId(),
      metadata: {},
      kwargs: newKwargs(),
      multitask_strategy: null,
      // Not due for an hour: no claim in another case takes it.
      available_at: new Date(Date.now() + 3_600_000),
      ...overrides,
    };
  }

  async function enqueue(threadId: string): Promise<string> {
    const result = await s().runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: "enqueue" });
    if (result.kind !== "created") throw new Error(`enqueue answered ${result.kind}`);
    return result.run.run_id;
  }

  test("auth filters match scalars with eq, arrays with contains, and AND their keys", async () => {
    const marker = newMarker();
    const both = await thread({ marker, owner: "ann", tags: ["x", "y"], level: 3, vip: true });
    const onlyX = await thread({ marker, owner: "bob", tags: ["x"], level: 3, vip: false });
    const tagAsText = await thread({ marker, owner: "ann", tags: "x", level: "3" });
    const ids = async (auth: AuthFilter) =>
      (await s().threads.search({ metadata: { marker }, auth }, { by: "thread_id", order: "asc" }, ALL)).items.map((t) => t.thread_id).sort();
    const sorted = (...list: string[]) => [...list].sort();

    expect(await ids(eq("owner", "ann"))).toEqual(sorted(both, tagAsText));
    expect(await ids([{ key: "tags", op: "contains", value: "x" }])).toEqual(sorted(both, onlyX));
    expect(await ids([{ key: "tags", op: "contains", value: ["x", "y"] }])).toEqual([both]);
    expect(await ids([...eq("owner", "bob"), { key: "tags", op: "contains", value: "y" }])).toEqual([]);
    expect(await ids(eq("level", 3))).toEqual(sorted(both, onlyX));
    expect(await ids(eq("vip", true))).toEqual([both]);
    expect(await ids(eq("missing", "anything"))).toEqual([]);
    expect(await s().threads.count({ metadata: { marker }, auth: eq("owner", "ann") })).toBe(2);
  });

  test("an auth filter on a thread makes a non-matching one missing to get, update, delete, copy, existing and deleteByAssistant", async () => {
    const mine = eq("owner", newMarker());
    const theirs = eq("owner", newMarker());
    const threadId = await thread({ owner: theirs[0]!.value });
    expect(await s().threads.get(threadId, { auth: mine })).toBeNull();
    expect(await s().threads.update(threadId, { metadata: { taken: true } }, mine)).toBeNull();
    expect(await s().threads.copy(threadId, newId(), mine)).toBeNull();
    expect(await s().threads.existing([threadId], mine)).toEqual([]);
    expect(await s().threads.delete(threadId, mine)).toBe(false);
    expect((await s().threads.get(threadId))?.metadata).toEqual({ owner: theirs[0]!.value });

    expect((await s().threads.get(threadId, { auth: theirs }))?.thread_id).toBe(threadId);
    expect((await s().threads.update(threadId, { metadata: { kept: true } }, theirs))?.metadata).toMatchObject({ kept: true });
    expect((await s().threads.copy(threadId, newId(), theirs))?.metadata).toMatchObject({ kept: true });
    expect(await s().threads.existing([threadId], theirs)).toEqual([threadId]);
    const assistantId = newId();
    const named = await thread({ owner: theirs[0]!.value, assistant_id: assistantId });
    expect(await s().threads.deleteByAssistant(assistantId, mine)).toBe(0);
    expect(await s().threads.deleteByAssistant(assistantId, theirs)).toBe(1);
    expect(await s().threads.get(named)).toBeNull();
    expect(await s().threads.delete(threadId, theirs)).toBe(true);
  });

  test("an auth filter on an assistant makes a non-matching one missing to every read and write, and absent from search and count", async () => {
    const owner = newMarker();
    const mine = eq("owner", owner);
    const theirs = await s().assistants.create(newAssistant({ metadata: { owner: newMarker(), marker: owner } }));
    const own = await s().assistants.create(newAssistant({ metadata: { owner, marker: owner } }));
    const id = theirs!.assistant_id;
    expect(await s().assistants.get(id, mine)).toBeNull();
    expect(await s().assistants.update(id, { name: "taken" }, mine)).toBeNull();
    expect(await s().assistants.listVersions(id, {}, ALL, mine)).toBeNull();
    expect(await s().assistants.setLatest(id, 1, mine)).toBeNull();
    expect(await s().assistants.delete(id, mine)).toBe(false);
    expect((await s().assistants.get(id))?.name).toBe("Assistant");

    const found = await s().assistants.search({ metadata: { marker: owner }, auth: mine }, { by: "assistant_id", order: "asc" }, ALL);
    expect(found.items.map((a) => a.assistant_id)).toEqual([own!.assistant_id]);
    expect(await s().assistants.count({ metadata: { marker: owner }, auth: mine })).toBe(1);
    expect((await s().assistants.update(own!.assistant_id, { name: "mine" }, mine))?.name).toBe("mine");
    expect(await s().assistants.listVersions(own!.assistant_id, {}, ALL, mine)).toHaveLength(2);
    expect((await s().assistants.setLatest(own!.assistant_id, 1, mine))?.name).toBe("Assistant");
    expect(await s().assistants.delete(own!.assistant_id, mine)).toBe(true);
  });

  test("an auth filter on runs goes through their thread's metadata, for get, list, delete, cancel and enqueue", async () => {
    const mine = eq("owner", newMarker());
    const theirThread = await thread({ owner: newMarker() });
    const myThread = await thread({ owner: mine[0]!.value });
    const theirRun = await enqueue(theirThread);
    const myRun = await enqueue(myThread);

    expect(await s().runs.get(theirRun, undefined, mine)).toBeNull();
    expect(await s().runs.get(theirRun, theirThread, mine)).toBeNull();
    expect(await s().runs.list(theirThread, {}, ALL, mine)).toEqual([]);
    expect(await s().runs.delete(theirRun, theirThread, mine)).toBeNull();
    expect(await s().runs.cancel({ runIds: [theirRun, myRun] }, "interrupt", mine)).toEqual({ stopped: [myRun], flagged: [] });
    expect((await s().runs.get(theirRun))?.status).toBe("pending");
    expect((await s().runs.get(myRun, myThread, mine))?.status).toBe("interrupted");
    expect((await s().runs.list(myThread, {}, ALL, mine)).map((r) => r.run_id)).toEqual([myRun]);
    expect(await s().runs.delete(myRun, myThread, mine)).toBe("deleted");

    const refused = await s().runs.enqueue(newRun(theirThread), { threadMetadata: {}, multitask: "enqueue", threadAuth: mine });
    expect(refused.kind).toBe("thread_missing");
    const overTheirs = await s().runs.enqueue(newRun(theirThread), {
      threadMetadata: {},
      multitask: "enqueue",
      threadAuth: mine,
      createThread: { metadata: { owner: mine[0]!.value }, temporary: false },
    });
    expect(overTheirs.kind).toBe("thread_missing");
    expect((await s().runs.enqueue(newRun(myThread), { threadMetadata: {}, multitask: "enqueue", threadAuth: mine })).kind).toBe("created");
    await s().runs.cancel({ runIds: [theirRun] }, "interrupt");
  });

  test("an auth filter on cancel by status stops only the runs on matching threads", async () => {
    const mine = eq("owner", newMarker());
    const theirRun = await enqueue(await thread({ owner: newMarker() }));
    const myRun = await enqueue(await thread({ owner: mine[0]!.value }));
    const result = await s().runs.cancel({ status: "pending" }, "interrupt", mine);
    expect(result.stopped).toEqual([myRun]);
    expect((await s().runs.get(theirRun))?.status).toBe("pending");
    await s().runs.cancel({ runIds: [theirRun] }, "interrupt");
  });

  test("an auth filter on a cron makes a non-matching one missing to get and delete, and absent from search and count", async () => {
    const marker = newMarker();
    const mine = eq("owner", marker);
    const assistantId = (await s().assistants.create(newAssistant()))!.assistant_id;
    const cron = (owner: string) =>
      s().crons.create({
        cron_id: newId(),
        assistant_id: assistantId,
        thread_id: null,
        on_run_completed: "delete",
        end_time: null,
        schedule: "0 0 1 1 *",
        timezone: null,
        payload: {},
        user_id: owner,
        next_run_date: null,
        metadata: { owner },
        enabled: true,
      });
    const theirs = await cron(newMarker());
    const own = await cron(marker);
    expect(await s().crons.get(theirs.cron_id, mine)).toBeNull();
    expect(await s().crons.delete(theirs.cron_id, mine)).toBe(false);
    expect(await s().crons.get(theirs.cron_id)).not.toBeNull();
    const found = await s().crons.search({ assistant_id: assistantId, auth: mine }, { by: "cron_id", order: "asc" }, ALL);
    expect(found.items.map((c) => c.cron_id)).toEqual([own.cron_id]);
    expect(await s().crons.count({ assistant_id: assistantId, auth: mine })).toBe(1);
    expect((await s().crons.get(own.cron_id, mine))?.cron_id).toBe(own.cron_id);
    expect(await s().crons.delete(own.cron_id, mine)).toBe(true);
    await s().crons.delete(theirs.cron_id);
  });

  test("an auth filter on store items hides non-matching ones from get, put, delete, search and namespace listings", async () => {
    const marker = newMarker();
    const mine = eq("owner", "ann");
    const now = new Date();
    const item = (key: string, value: JsonObject): StorePut => ({ namespace: [marker, "docs"], key, value, ttl_minutes: null, vectors: [] });
    await s().store.put(item("theirs", { owner: "bob", v: 1 }), now);
    await s().store.put({ ...item("other-ns", { owner: "bob" }), namespace: [marker, "bob-only"] }, now);
    expect(await s().store.put(item("mine", { owner: "ann", v: 1 }), now, mine)).toBe("written");

    expect(await s().store.get([marker, "docs"], "theirs", { refreshTtl: false, auth: mine }, now)).toBe("hidden");
    expect(await s().store.get([marker, "docs"], "absent", { refreshTtl: false, auth: mine }, now)).toBeNull();
    expect(await s().store.put(item("theirs", { owner: "ann", v: 2 }), now, mine)).toBe("hidden");
    expect(await s().store.delete([marker, "docs"], "theirs", mine)).toBe("hidden");
    expect(await s().store.delete([marker, "docs"], "absent", mine)).toBe("deleted");
    expect((await s().store.get([marker, "docs"], "theirs", { refreshTtl: false }, now)) as { value: JsonObject }).toMatchObject({
      value: { owner: "bob", v: 1 },
    });

    const search = await s().store.search(
      { namespacePrefix: [marker], filter: { contains: {}, comparisons: [] }, limit: 10, offset: 0, refreshTtl: false, auth: mine },
      now,
    );
    expect(search.map((i) => i.key)).toEqual(["mine"]);
    expect(await s().store.listNamespaces({ prefix: [marker], limit: 10, offset: 0, auth: mine }, now)).toEqual([[marker, "docs"]]);

    expect(await s().store.put(item("mine", { owner: "ann", v: 2 }), now, mine)).toBe("written");
    expect(await s().store.delete([marker, "docs"], "mine", mine)).toBe("deleted");
    expect(await s().store.get([marker, "docs"], "mine", { refreshTtl: false }, now)).toBeNull();
  });
}
