// Event log and bus cases, written against the ports (RunEventLog, MessageBus) and run against the
// in-process implementations and the Redis ones. Only what holds on a real clock is here; the
// memory log's clock-driven cases (expiry at an exact instant, id monotonicity when the clock steps
// back) stay beside it in src/events/run-event-log.test.ts.
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { GantryError } from "../../../src/errors.js";
import type { MessageBus } from "../../../src/events/event-bus.js";
import { EventsLostError, type RunEventLog, StaleWriterError, type ReadEvent } from "../../../src/events/run-event-log.js";

export interface EventBackend {
  /**
   * A log with a retention far longer than any case (a minute): what a case reads back after end()
   * is still there however long a busy machine takes to get to it.
   */
  log: RunEventLog;
  bus: MessageBus;
  /** A log with a short retention, for the cases about expiry and nothing else. */
  expiring: RunEventLog;
  /** The retention `expiring` was made with. */
  expiringRetentionMs: number;
}

async function collect(events: AsyncIterable<ReadEvent>): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 5_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

export function eventLogCases(backend: () => EventBackend): void {
  const key = () => `run-${randomUUID()}`;

  it("replays a resumable log from the start and resumes strictly after an id", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await log.append(k, { event: "values", data: { i } }));
    await log.end(k);
    expect(ids.every((id) => /^\d+-\d+$/.test(id))).toBe(true);
    expect((await collect(log.read(k, { after: "-1" }))).map((e) => e.data)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
    const resumed = await collect(log.read(k, { after: ids[1]! }));
    expect(resumed.map((e) => e.id)).toEqual(ids.slice(2));
    expect(resumed[0]).toEqual({ id: ids[2], event: "values", data: { i: 2 }, index: 2 });
  });

  it("numbers events from 0 in the order appended, and resumes strictly after an index as after an id", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await log.append(k, { event: "values", data: { i } }));
    const resumed = collect(log.read(k, { after: "1" }));
    const live = collect(log.read(k, {}));
    for (let i = 3; i < 5; i++) ids.push(await log.append(k, { event: "values", data: { i } }));
    await log.end(k);
    const event = (i: number) => ({ id: ids[i], event: "values", data: { i }, index: i });
    expect(await resumed).toEqual([2, 3, 4].map(event));
    expect(await live).toEqual([3, 4].map(event));
    expect(await collect(log.read(k, { after: "-1" }))).toEqual([0, 1, 2, 3, 4].map(event));
    expect(await collect(log.read(k, { after: ids[2]! }))).toEqual([3, 4].map(event));
    expect(await collect(log.read(k, { after: "4" }))).toEqual([]);
    // An index the log has not reached is from another log under the key: what it missed is unknown.
    await expect(collect(log.read(k, { after: "5" }))).rejects.toThrow(EventsLostError);
    await expect(collect(log.read(key(), { after: "0" }))).rejects.toThrow(EventsLostError);
  });

  it("delivers live events to a waiting reader and ends it when the log ends", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    await log.append(k, { event: "metadata", data: null });
    const reading = collect(log.read(k, {}));
    // Attached at read() itself (no wait needed): what follows reaches it, what came before does not.
    await log.append(k, { event: "values", data: { n: 1 } });
    await log.append(k, { event: "values", data: { n: 2 } });
    await log.end(k);
    expect((await reading).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("gives readers of a log written here every event once, in order, and the end", async () => {
    const { log } = backend();
    const k = key();
    const stopWriting = log.writeHere(k);
    await log.open(k, { resumable: true });
    const early = collect(log.read(k, { after: "-1" }));
    const writes: Array<Promise<string>> = [];
    for (let i = 0; i < 300; i++) writes.push(log.append(k, { event: "custom", data: { i } }));
    const late = collect(log.read(k, { after: "-1" }));
    for (let i = 300; i < 600; i++) writes.push(log.append(k, { event: "custom", data: { i } }));
    await log.end(k);
    stopWriting();
    const ids = await Promise.all(writes);
    const expected = ids.map((id, i) => ({ id, event: "custom", data: { i }, index: i }));
    expect(await early).toEqual(expected);
    expect(await late).toEqual(expected);
  });

  it("leaves an ended log ended when opened createOnly, as a run's creator does after its worker", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const id = await log.append(k, { event: "values", data: 1 });
    await log.end(k);
    await log.open(k, { resumable: true, createOnly: true });
    expect(await collect(log.read(k, { after: "-1" }))).toEqual([{ id, event: "values", data: 1, index: 0 }]);
    const fresh = key();
    await log.open(fresh, { resumable: true, createOnly: true });
    expect(await log.has(fresh)).toBe(true);
  });

  it("lets a reader stop with its signal while the log is still open", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const controller = new AbortController();
    const reading = collect(log.read(k, { after: "-1", signal: controller.signal }));
    await log.append(k, { event: "values", data: 1 });
    controller.abort();
    const events = await reading;
    expect(events.length).toBeLessThanOrEqual(1);
  });

  it("refuses a malformed Last-Event-ID when read is called, and yields nothing for an unknown log", async () => {
    const { log } = backend();
    expect(() => log.read(key(), { after: "yesterday" })).toThrow(GantryError);
    expect(await collect(log.read(key(), { after: "-1" }))).toEqual([]);
    expect(await log.has(key())).toBe(false);
  });

  it("reads back the newest event held, which is where the next writer continues", async () => {
    const { log } = backend();
    const k = key();
    expect(await log.last(k)).toBeUndefined();
    await log.open(k, { resumable: true, expiresWhenIdle: true });
    expect(await log.last(k)).toBeUndefined();
    await log.append(k, { event: "values", data: { seq: 1 } });
    const id = await log.append(k, { event: "values", data: { seq: 2 } });
    expect(await log.last(k)).toEqual({ id, event: "values", data: { seq: 2 } });
  });

  it("continues a reopened log, and refuses appends to an ended one", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    await log.append(k, { event: "metadata", data: { attempt: 1 } });
    await log.end(k);
    await expect(log.append(k, { event: "values", data: 1 })).rejects.toThrow(/ended/);
    await log.open(k, { resumable: true });
    await log.append(k, { event: "metadata", data: { attempt: 2 } });
    await log.end(k);
    expect((await collect(log.read(k, { after: "-1" }))).map((e) => e.data)).toEqual([{ attempt: 1 }, { attempt: 2 }]);
  });

  it("forgets an ended log after the retention time", async () => {
    const { expiring, expiringRetentionMs } = backend();
    const k = key();
    await expiring.open(k, { resumable: true });
    await expiring.append(k, { event: "values", data: 1 });
    await expiring.end(k);
    expect(await expiring.has(k)).toBe(true);
    await until("the log to expire", async () => ((await expiring.has(k)) ? undefined : true), expiringRetentionMs + 20_000);
  });

  it("forgets a log ended with a shorter retention sooner", async () => {
    // Two logs ended together: the one given a short retention goes, the other (a minute) stays.
    // An order, not a deadline, so a slow machine cannot break it.
    const { log } = backend();
    const [short, kept] = [key(), key()];
    for (const k of [short, kept]) {
      await log.open(k, { resumable: true });
      await log.append(k, { event: "values", data: 1 });
    }
    await log.end(kept);
    await log.end(short, { retainMs: 200 });
    await until("the log to expire", async () => ((await log.has(short)) ? undefined : true), 20_000);
    expect(await log.has(kept)).toBe(true);
  });

  it("creates a log on append to a key nobody opened, marked as missing what came before: writers open first", async () => {
    const { log } = backend();
    const k = `thread:${randomUUID()}`;
    const first = await log.append(k, { event: "lifecycle", data: { status: "running" } });
    expect(await log.has(k)).toBe(true);
    await expect(collect(log.read(k, { after: "-" }))).rejects.toThrow(EventsLostError);
    const controller = new AbortController();
    const live = log.read(k, { after: first, signal: controller.signal })[Symbol.asyncIterator]();
    const second = await log.append(k, { event: "lifecycle", data: { status: "success" } });
    expect((await live.next()).value).toEqual({ id: second, event: "lifecycle", data: { status: "success" }, index: 1 });
    controller.abort();
    await live.return?.();
  });

  it("keeps one log's writes in call order when the writer does not await each append", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const reading = collect(log.read(k, { after: "-1" }));
    // More than one batch's worth, all issued before the first is written, then end() behind them.
    const appends = Array.from({ length: 700 }, (_, i) => log.append(k, { event: "custom", data: { i } }));
    const ended = log.end(k);
    const late = log.append(k, { event: "custom", data: { late: true } });
    const ids = await Promise.all(appends);
    await ended;
    await expect(late).rejects.toThrow(/ended/);
    const numeric = ids.map((id) => id.split("-").map(Number) as [number, number]);
    expect(numeric.every(([ms, seq], i) => i === 0 || ms > numeric[i - 1]![0] || (ms === numeric[i - 1]![0] && seq > numeric[i - 1]![1]))).toBe(true);
    const events = await reading;
    expect(events.map((e) => e.id)).toEqual(ids);
    expect(events.map((e) => (e.data as { i: number }).i)).toEqual(ids.map((_, i) => i));
  });

  it("gives readers that join at different points of a busy log every event once, in order", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const first = await Promise.all(Array.from({ length: 300 }, (_, i) => log.append(k, { event: "custom", data: { i } })));
    // Joining while the next appends are under way: from the start, from the middle, live.
    const readers = [collect(log.read(k, { after: "-1" })), collect(log.read(k, { after: first[149]! })), collect(log.read(k, {}))];
    const rest = Array.from({ length: 600 }, (_, n) => log.append(k, { event: "custom", data: { i: 300 + n } }));
    await Promise.all(rest);
    await log.end(k);
    const [all, middle, live] = (await Promise.all(readers)).map((events) => events.map((e) => (e.data as { i: number }).i));
    expect(all).toEqual(Array.from({ length: 900 }, (_, i) => i));
    expect(middle).toEqual(Array.from({ length: 750 }, (_, i) => 150 + i));
    expect(live).toEqual(live!.length === 0 ? [] : Array.from({ length: live!.length }, (_, i) => 900 - live!.length + i));
  });

  it("appends with ifOpen only to a log that exists and has not ended", async () => {
    const { log } = backend();
    const k = `thread:${randomUUID()}`;
    expect(await log.append(k, { event: "lifecycle", data: 1 }, { ifOpen: true })).toBe("");
    expect(await log.has(k)).toBe(false);
    await log.open(k, { resumable: true, expiresWhenIdle: true });
    const id = await log.append(k, { event: "lifecycle", data: 2 }, { ifOpen: true });
    expect(id).toMatch(/^\d+-\d+$/);
    await log.end(k);
    expect(await log.append(k, { event: "lifecycle", data: 3 }, { ifOpen: true })).toBe("");
    expect((await collect(log.read(k, { after: "-1" }))).map((e) => e.data)).toEqual([2]);
  });

  it("copies events with alsoTo to the other log from the moment it exists, in order", async () => {
    const { log } = backend();
    const run = key();
    const thread = `thread:${randomUUID()}`;
    await log.open(run, { resumable: true });
    await log.append(run, { event: "custom", data: { i: 0 } }, { alsoTo: thread });
    expect(await log.has(thread)).toBe(false);
    await log.open(thread, { resumable: true, expiresWhenIdle: true });
    // Interleaved and not awaited one by one: only the events marked for the thread reach it.
    const appends = Array.from({ length: 300 }, (_, n) => {
      const i = n + 1;
      return log.append(run, { event: "custom", data: { i } }, i % 3 === 0 ? undefined : { alsoTo: thread });
    });
    await Promise.all(appends);
    await log.end(run);
    const copied: number[] = [];
    for await (const event of log.read(thread, { after: "-1" })) {
      copied.push((event.data as { i: number }).i);
      if (copied.length === 200) break;
    }
    expect(copied).toEqual(Array.from({ length: 300 }, (_, n) => n + 1).filter((i) => i % 3 !== 0));
    expect((await collect(log.read(run, { after: "-1" }))).length).toBe(301);
  });

  it("replays a log of several pages from the start or from an id, open or ended, and nothing of an unknown one", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const ids = await Promise.all(Array.from({ length: 1_234 }, (_, i) => log.append(k, { event: "custom", data: { i } })));
    const numbers = (events: ReadEvent[]) => events.map((e) => (e.data as { i: number }).i);
    // While the log is open: a replay reads every page held, then waits for what comes next.
    const whileOpen = collect(log.read(k, { after: "-1" }));
    const fromMiddle = collect(log.read(k, { after: ids[700]! }));
    const last = await log.append(k, { event: "custom", data: { i: 1_234 } });
    await log.end(k);
    expect(numbers(await whileOpen)).toEqual(Array.from({ length: 1_235 }, (_, i) => i));
    expect(numbers(await fromMiddle)).toEqual(Array.from({ length: 534 }, (_, i) => 701 + i));
    // Once ended: the same events, then the end, without waiting.
    expect((await collect(log.read(k, { after: "-" }))).map((e) => e.id)).toEqual([...ids, last]);
    expect(await collect(log.read(k, { after: last }))).toEqual([]);
    expect(await collect(log.read(key(), { after: "-1" }))).toEqual([]);
    await expect(collect(log.read(key(), { after: ids[3]! }))).rejects.toThrow(EventsLostError);
  });

  it("appends closing events to another log with the end, in order, only while that log is open", async () => {
    const { log } = backend();
    const run = key();
    const thread = `thread:${randomUUID()}`;
    await log.open(thread, { resumable: true, expiresWhenIdle: true });
    const follower = collect(log.read(thread, { after: "-1" }));
    await log.open(run, { resumable: true });
    const reading = collect(log.read(run, { after: "-1" }));
    const copied = await log.append(run, { event: "values", data: { n: 1 } }, { alsoTo: thread });
    const closing = [
      { event: "lifecycle", data: { status: "success" } },
      { event: "state_update", data: { values: { n: 1 } } },
    ];
    await log.end(run, { alsoTo: { key: thread, events: closing } });
    expect((await reading).map((e) => e.id)).toEqual([copied]);
    // Ending the run again still reaches the thread's log; an ended thread log gets nothing.
    await log.end(run, { alsoTo: { key: thread, events: [{ event: "lifecycle", data: { status: "again" } }] } });
    await log.end(thread);
    await log.end(run, { alsoTo: { key: thread, events: [{ event: "lifecycle", data: { status: "late" } }] } });
    const seen = await follower;
    expect(seen.map((e) => e.event)).toEqual(["values", "lifecycle", "state_update", "lifecycle"]);
    expect(seen.slice(1).map((e) => e.data)).toEqual([...closing.map((e) => e.data), { status: "again" }]);
    // A log nobody opened is not created by them.
    const unfollowed = `thread:${randomUUID()}`;
    const other = key();
    await log.open(other, { resumable: true });
    await log.end(other, { alsoTo: { key: unfollowed, events: closing } });
    expect(await log.has(unfollowed)).toBe(false);
  });

  it("tells a resume after an id that the log no longer reaches back to, once it expired or began again", async () => {
    const { expiring: log, expiringRetentionMs: retentionMs } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const id = await log.append(k, { event: "values", data: 1 });
    await log.end(k, { retainMs: retentionMs / 3 });
    expect(await collect(log.read(k, { after: id }))).toEqual([]);
    await until("the log to expire", async () => ((await log.has(k)) ? undefined : true), retentionMs + 5_000);
    const resumed = collect(log.read(k, { after: id }));
    await expect(resumed).rejects.toThrow(EventsLostError);
    await expect(resumed).rejects.toThrow(`no longer holds the events after ${id}`);
    // A new log under the key (a thread's log opened again) cannot serve it either, but serves its own ids.
    await log.open(k, { resumable: true });
    const fresh = await log.append(k, { event: "values", data: 2 });
    const last = await log.append(k, { event: "values", data: 3 });
    await log.end(k);
    await expect(collect(log.read(k, { after: id }))).rejects.toThrow(EventsLostError);
    expect((await collect(log.read(k, { after: fresh }))).map((e) => e.id)).toEqual([last]);
    expect((await collect(log.read(k, { after: "-1" }))).map((e) => e.data)).toEqual([2, 3]);
  });

  it("re-creates a log its writer lost, marked lost: a replay from the start or from before says so, a later id resumes", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const before = await log.append(k, { event: "values", data: 1 });
    await log.delete([k]);
    const after = await log.append(k, { event: "values", data: 2 });
    const last = await log.append(k, { event: "values", data: 3 });
    await log.end(k);
    await expect(collect(log.read(k, { after: "-1" }))).rejects.toThrow(/lost its earliest events/);
    await expect(collect(log.read(k, { after: before }))).rejects.toThrow(EventsLostError);
    expect((await collect(log.read(k, { after }))).map((e) => e.id)).toEqual([last]);
    // The new log counts from 0 again: an index cannot tell the old log's events from its own.
    await expect(collect(log.read(k, { after: "0" }))).rejects.toThrow(/started again after its event log vanished/);
  });

  it("leaves a lost log behind, ended, when its writer ends a log that vanished", async () => {
    const { log } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    const id = await log.append(k, { event: "values", data: 1 });
    await log.delete([k]);
    await log.end(k);
    expect(await log.has(k)).toBe(true);
    await expect(collect(log.read(k, { after: "-1" }))).rejects.toThrow(EventsLostError);
    await expect(collect(log.read(k, { after: id }))).rejects.toThrow(EventsLostError);
    // An end from nobody who wrote it leaves an unknown log unknown.
    const other = key();
    await log.end(other);
    expect(await log.has(other)).toBe(false);
  });

  it("ends the readers of a deleted log, and a log made later under its key holds none of its events", async () => {
    const { log } = backend();
    const k = `protocol:${randomUUID()}`;
    await log.open(k, { resumable: true, expiresWhenIdle: true });
    const first = await log.append(k, { event: "values", data: { secret: 1 } });
    const reader = collect(log.read(k, { after: "-1" }));
    await log.delete([k]);
    expect((await reader).map((e) => e.id)).toEqual(expect.arrayContaining([]));
    expect(await log.has(k)).toBe(false);
    // The next owner of the key opens it as a reader does, then its own writer writes it.
    await log.open(k, { resumable: true, expiresWhenIdle: true, createOnly: true });
    expect(await log.last(k)).toBeUndefined();
    await expect(collect(log.read(k, { after: first }))).rejects.toThrow(EventsLostError);
  });

  it("tells a reader of a log made again under its key that its writer, still writing, lost it, and never gives it that writer's events", async () => {
    const { log } = backend();
    const k = `protocol:${randomUUID()}`;
    // A run writes the thread's log; the thread is deleted while it runs, and another reader opens the key anew.
    await log.open(k, { resumable: true, expiresWhenIdle: true });
    await log.append(k, { event: "values", data: { secret: 1 } });
    await log.delete([k]);
    await log.open(k, { resumable: true, expiresWhenIdle: true, createOnly: true });
    const reading = collect(log.read(k, { after: "-1" }));
    await log.append(k, { event: "values", data: { secret: 2 } });
    await expect(reading).rejects.toThrow(EventsLostError);
    await expect(collect(log.read(k, { after: "-1" }))).rejects.toThrow(EventsLostError);
  });

  it("refuses appends, ends and opens from a writer older than the one that opened the log, writing nothing", async () => {
    const { log } = backend();
    const k = key();
    const thread = `thread:${randomUUID()}`;
    await log.open(thread, { resumable: true, expiresWhenIdle: true });
    await log.open(k, { resumable: true, writer: 1 });
    const first = await log.append(k, { event: "values", data: { attempt: 1 } }, { writer: 1 });
    await log.open(k, { resumable: true, writer: 2 });
    const second = await log.append(k, { event: "values", data: { attempt: 2 } }, { writer: 2, alsoTo: thread });
    await expect(log.append(k, { event: "values", data: { attempt: 1, late: true } }, { writer: 1, alsoTo: thread })).rejects.toThrow(StaleWriterError);
    await expect(log.end(k, { writer: 1, alsoTo: { key: thread, events: [{ event: "lifecycle", data: "stale" }] } })).rejects.toThrow(StaleWriterError);
    await expect(log.open(k, { resumable: true, writer: 1 })).rejects.toThrow(/attempt 2/);
    // Unfenced writes (no writer given) and the current writer's go through; a newer writer raises the record.
    const unfenced = await log.append(k, { event: "values", data: { unfenced: true } });
    const third = await log.append(k, { event: "values", data: { attempt: 3 } }, { writer: 3 });
    await expect(log.append(k, { event: "values", data: { attempt: 2, late: true } }, { writer: 2 })).rejects.toThrow(StaleWriterError);
    await log.end(k, { writer: 3, alsoTo: { key: thread, events: [{ event: "lifecycle", data: "done" }] } });
    expect((await collect(log.read(k, { after: "-1" }))).map((e) => e.id)).toEqual([first, second, unfenced, third]);
    await log.end(thread);
    expect((await collect(log.read(thread, { after: "-1" }))).map((e) => e.data)).toEqual([{ attempt: 2 }, "done"]);
  });

  it("delivers bus messages to every subscriber until it unsubscribes", async () => {
    const { bus } = backend();
    const topic = `topic-${randomUUID()}`;
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = await bus.subscribe(topic, (m) => first.push(m));
    const stopSecond = await bus.subscribe(topic, (m) => second.push(m));
    await bus.publish(topic, "one");
    await until("both to hear one", async () => (first.length === 1 && second.length === 1 ? true : undefined));
    stopFirst();
    await bus.publish(topic, "two");
    await until("the second to hear two", async () => (second.length === 2 ? true : undefined));
    expect(first).toEqual(["one"]);
    expect(second).toEqual(["one", "two"]);
    stopSecond();
  });
}
