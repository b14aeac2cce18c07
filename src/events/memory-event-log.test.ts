import { afterEach, describe, expect, it } from "vitest";
import { GantryError } from "../errors.js";
import { createMemoryEventLog } from "./memory-event-log.js";
import { EventsLostError, type ReadEvent } from "./run-event-log.js";

const RETENTION_MS = 120_000;
let clock = 1_000;
const open: Array<{ close(): void }> = [];

function newLog(options: { maxEvents?: number } = {}) {
  const log = createMemoryEventLog({ retentionMs: RETENTION_MS, now: () => clock, ...options });
  open.push(log);
  return log;
}

afterEach(() => {
  for (const log of open.splice(0)) log.close();
  clock = 1_000;
});

async function collect(events: AsyncIterable<ReadEvent>): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function appendMany(log: ReturnType<typeof newLog>, key: string, count: number, from = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + count; i++) ids.push(await log.append(key, { event: "values", data: { i } }));
  return ids;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("memory run event log", () => {
  it("gives ids that strictly increase, within one millisecond and when the clock steps back", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    const ids = [await log.append("r", { event: "a", data: 1 }), await log.append("r", { event: "a", data: 2 })];
    clock = 900;
    ids.push(await log.append("r", { event: "a", data: 3 }));
    clock = 2_000;
    ids.push(await log.append("r", { event: "a", data: 4 }));
    expect(ids).toEqual(["1000-0", "1000-1", "1000-2", "2000-0"]);
  });

  it("resumes strictly after the given id", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    const ids = await appendMany(log, "r", 5);
    await log.end("r");
    const resumed = await collect(log.read("r", { after: ids[1] }));
    expect(resumed.map((e) => e.id)).toEqual(ids.slice(2));
    expect(resumed.map((e) => e.data)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
  });

  it("resumes after an id that is newer than every event with only what comes next", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    await appendMany(log, "r", 2);
    const reader = log.read("r", { after: "9999999-0" });
    const ids = await appendMany(log, "r", 1, 2);
    clock = 10_000_000;
    ids.push(...(await appendMany(log, "r", 1, 3)));
    await log.end("r");
    expect((await collect(reader)).map((e) => e.id)).toEqual(ids.slice(1));
  });

  it("replays a resumable log from the start on -1 and on -", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    const ids = await appendMany(log, "r", 3);
    await log.end("r");
    expect((await collect(log.read("r", { after: "-1" }))).map((e) => e.id)).toEqual(ids);
    expect((await collect(log.read("r", { after: "-" }))).map((e) => e.id)).toEqual(ids);
  });

  it("attaches live to a non-resumable log even when asked to replay", async () => {
    const log = newLog();
    await log.open("r", { resumable: false });
    await appendMany(log, "r", 3);
    const reader = log.read("r", { after: "-1" });
    const later = await appendMany(log, "r", 2, 3);
    await log.end("r");
    expect((await collect(reader)).map((e) => [e.id, e.index])).toEqual(later.map((id, i) => [id, 3 + i]));
  });

  it("gives a live reader only the events appended after it attached", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    await appendMany(log, "r", 3);
    const reader = log.read("r", {});
    const later = await appendMany(log, "r", 2, 3);
    await log.end("r");
    expect((await collect(reader)).map((e) => e.id)).toEqual(later);
  });

  it("lets a join that arrives before the first event wait for it", async () => {
    const log = newLog();
    await log.open("r", { resumable: false });
    const seen = collect(log.read("r", {}));
    await yieldToLoop();
    const ids = await appendMany(log, "r", 2);
    await log.end("r");
    expect((await seen).map((e) => e.id)).toEqual(ids);
  });

  it("ends a reader once end() was called and the log is drained", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    const reader = log.read("r", {})[Symbol.asyncIterator]();
    const pending = reader.next();
    await log.append("r", { event: "values", data: 1 });
    await log.end("r");
    expect((await pending).value).toMatchObject({ data: 1 });
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("yields nothing for a key it does not hold", async () => {
    const log = newLog();
    expect(await log.has("missing")).toBe(false);
    expect(await collect(log.read("missing", { after: "-1" }))).toEqual([]);
  });

  it("refuses a malformed Last-Event-ID as invalid before reading anything", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    let thrown: unknown;
    try {
      log.read("r", { after: "not-an-id" });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GantryError);
    expect((thrown as GantryError).kind).toBe("invalid");
  });

  for (const resumable of [true, false]) {
    it(`gives readers of different speeds every event once and in order (resumable: ${resumable})`, async () => {
      const log = newLog();
      await log.open("r", { resumable });
      const readers = [0, 1, 3, 7].map(async (slowness) => {
        const seen: string[] = [];
        for await (const event of log.read("r", { after: resumable ? "-1" : undefined })) {
          seen.push(event.id);
          for (let i = 0; i < slowness; i++) await yieldToLoop();
        }
        return seen;
      });
      const ids: string[] = [];
      for (let i = 0; i < 2_000; i++) {
        ids.push(await log.append("r", { event: "values", data: i }));
        if (i % 50 === 0) await yieldToLoop();
      }
      await log.end("r");
      for (const seen of await Promise.all(readers)) expect(seen).toEqual(ids);
    });
  }

  it("keeps an ended resumable log for the retention time, then drops it", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    const ids = await appendMany(log, "r", 2);
    await log.end("r");
    clock += RETENTION_MS - 1;
    expect(await log.has("r")).toBe(true);
    expect((await collect(log.read("r", { after: "-1" }))).map((e) => e.id)).toEqual(ids);
    clock += 1;
    expect(await log.has("r")).toBe(false);
    expect(await collect(log.read("r", { after: "-1" }))).toEqual([]);
  });

  it("keeps a log ended with a shorter retention that long only, and never longer than its own", async () => {
    const log = newLog();
    await log.open("short", { resumable: true });
    await log.open("long", { resumable: true });
    const ids = await appendMany(log, "short", 2);
    await appendMany(log, "long", 2);
    await log.end("short", { retainMs: 10_000 });
    await log.end("long", { retainMs: RETENTION_MS * 2 });
    clock += 9_999;
    expect((await collect(log.read("short", { after: "-1" }))).map((e) => e.id)).toEqual(ids);
    clock += 1;
    expect(await log.has("short")).toBe(false);
    expect(await log.has("long")).toBe(true);
    clock += RETENTION_MS - 10_000;
    expect(await log.has("long")).toBe(false);
  });

  it("drops a non-resumable log at end() while an attached reader still drains it", async () => {
    const log = newLog();
    await log.open("r", { resumable: false });
    const reader = log.read("r", {});
    const ids = await appendMany(log, "r", 3);
    await log.end("r");
    expect(await log.has("r")).toBe(false);
    expect((await collect(reader)).map((e) => e.id)).toEqual(ids);
  });

  it("keeps a never-ended thread log while a reader follows it and drops it after the retention time idle", async () => {
    const log = newLog();
    const key = "thread:t1";
    await log.open(key, { resumable: true, expiresWhenIdle: true });
    const follower = new AbortController();
    const seen = collect(log.read(key, { after: "-", signal: follower.signal }));
    const ids = await appendMany(log, key, 2);
    clock += RETENTION_MS * 10;
    expect(await log.has(key)).toBe(true);
    follower.abort();
    expect((await seen).map((e) => e.id)).toEqual(ids);
    clock += RETENTION_MS - 1;
    expect(await log.has(key)).toBe(true);
    clock += 1;
    expect(await log.has(key)).toBe(false);
  });

  it("creates a log on append to a key nobody opened, as a resumable log that expires when idle, marked lost", async () => {
    const log = newLog();
    const id = await log.append("thread:t2", { event: "metadata", data: null });
    await expect(collect(log.read("thread:t2", { after: "-" }))).rejects.toThrow(EventsLostError);
    expect(await log.last("thread:t2")).toMatchObject({ id });
    clock += RETENTION_MS;
    expect(await log.has("thread:t2")).toBe(false);
  });

  it("tells a resume from before events it dropped for its bound that they are lost, and serves one from after", async () => {
    const log = newLog({ maxEvents: 10 });
    await log.open("r", { resumable: true });
    const ids = await appendMany(log, "r", 25);
    await log.end("r");
    await expect(collect(log.read("r", { after: ids[5]! }))).rejects.toThrow(EventsLostError);
    expect((await collect(log.read("r", { after: ids[14]! }))).map((e) => e.id)).toEqual(ids.slice(15));
    await expect(collect(log.read("r", { after: "13" }))).rejects.toThrow("no longer holds the events after 13");
    expect((await collect(log.read("r", { after: "14" }))).map((e) => [e.id, e.index])).toEqual(ids.slice(15).map((id, i) => [id, 15 + i]));
  });

  it("refuses appends after end() until the log is opened again", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    const first = await log.append("r", { event: "values", data: 1 });
    await log.end("r");
    await expect(log.append("r", { event: "values", data: 2 })).rejects.toThrow(/has ended/);
    await log.open("r", { resumable: true });
    const second = await log.append("r", { event: "values", data: 3 });
    await log.end("r");
    expect((await collect(log.read("r", { after: "-1" }))).map((e) => e.id)).toEqual([first, second]);
  });

  it("holds at most maxEvents, and tells a reader that fell behind what was dropped that it lost events", async () => {
    const log = newLog({ maxEvents: 10 });
    await log.open("r", { resumable: true });
    const ids = await appendMany(log, "r", 5);
    const behind = log.read("r", { after: "-1" })[Symbol.asyncIterator]();
    expect((await behind.next()).value?.id).toBe(ids[0]);
    ids.push(...(await appendMany(log, "r", 20, 5)));
    await log.end("r");
    expect((await collect(log.read("r", { after: "-1" }))).map((e) => e.id)).toEqual(ids.slice(-10));
    await expect(behind.next()).rejects.toThrow(/fell further behind/);
  });

  it("bounds a non-resumable log that a stalled reader pins, and tells the reader it lost events", async () => {
    const log = newLog({ maxEvents: 10 });
    await log.open("r", { resumable: false });
    const stalled = log.read("r", {})[Symbol.asyncIterator]();
    await appendMany(log, "r", 30);
    await log.end("r");
    await expect(stalled.next()).rejects.toThrow(EventsLostError);
    const followed = log.read("r", {})[Symbol.asyncIterator]();
    expect((await followed.next()).done).toBe(true);
  });

  it("stops a waiting reader when its signal aborts, and gives an aborted signal nothing", async () => {
    const log = newLog();
    await log.open("r", { resumable: true });
    await log.append("r", { event: "values", data: 0 });
    expect(await collect(log.read("r", { after: "-1", signal: AbortSignal.abort() }))).toEqual([]);
    const controller = new AbortController();
    const reader = log.read("r", { signal: controller.signal })[Symbol.asyncIterator]();
    const pending = reader.next();
    await yieldToLoop();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it("ends every reader on close()", async () => {
    const log = newLog();
    await log.open("thread:t", { resumable: true, expiresWhenIdle: true });
    const seen = collect(log.read("thread:t", {}));
    await yieldToLoop();
    log.close();
    expect(await seen).toEqual([]);
  });
});
