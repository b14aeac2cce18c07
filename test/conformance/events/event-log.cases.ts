// Event log and bus cases, written against the ports (RunEventLog, MessageBus) and run against the
// in-process implementations and the Redis ones. Only what holds on a real clock is here; the
// memory log's clock-driven cases (expiry at an exact instant, id monotonicity when the clock steps
// back) stay beside it in src/events/run-event-log.test.ts.
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { GantryError } from "../../../src/errors.js";
import type { MessageBus } from "../../../src/events/event-bus.js";
import type { RunEventLog, StoredEvent } from "../../../src/events/run-event-log.js";

export interface EventBackend {
  log: RunEventLog;
  bus: MessageBus;
  /** The retention the log was made with (short, so expiry is seen within a test). */
  retentionMs: number;
}

async function collect(events: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
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
    expect(resumed[0]).toEqual({ id: ids[2], event: "values", data: { i: 2 } });
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
    const { log, retentionMs } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    await log.append(k, { event: "values", data: 1 });
    await log.end(k);
    expect(await log.has(k)).toBe(true);
    await until("the log to expire", async () => ((await log.has(k)) ? undefined : true), retentionMs + 5_000);
  });

  it("forgets a log ended with a shorter retention sooner", async () => {
    const { log, retentionMs } = backend();
    const k = key();
    await log.open(k, { resumable: true });
    await log.append(k, { event: "values", data: 1 });
    const ended = performance.now();
    await log.end(k, { retainMs: retentionMs / 6 });
    await until("the log to expire", async () => ((await log.has(k)) ? undefined : true), retentionMs);
    expect(performance.now() - ended).toBeLessThan(retentionMs);
  });

  it("creates an idle-expiring log on append to a key nobody opened", async () => {
    const { log } = backend();
    const k = `thread:${randomUUID()}`;
    await log.append(k, { event: "lifecycle", data: { status: "running" } });
    expect(await log.has(k)).toBe(true);
    const controller = new AbortController();
    const reading = collect(log.read(k, { after: "-", signal: controller.signal }));
    await until("the replayed event", async () => ((await log.has(k)) ? true : undefined));
    controller.abort();
    expect((await reading).length).toBeLessThanOrEqual(1);
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
