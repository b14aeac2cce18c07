// The event log cases against Redis with encryption at rest (LANGGRAPH_AES_KEY): every payload is
// sealed in the stream and in the batches readers hear, and reads as it was written. Then what the
// sealing adds: no plaintext in any stream entry, a reader on another process (the channel's
// batches) and a replay (the stream) both see the data, and a log written before the key, or under
// a retired key, still reads.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sealedEventPayloads } from "../../../src/encryption/sealed-event-payloads.js";
import { keyRing } from "../../../src/encryption/key-ring.js";
import type { MessageBus } from "../../../src/events/event-bus.js";
import type { RedisConnections } from "../../../src/events/redis-connection.js";
import type { RunEventLog, StoredEvent } from "../../../src/events/run-event-log.js";
import { describeWithRedis, freshKeyPrefix } from "../../support/redis.js";
import { eventLogCases } from "./event-log.cases.js";
import { closeRedisLogs, EXPIRING_RETENTION_MS, openRedisLogs, type RedisLogs } from "./redis-logs.js";

const OLD_KEY = { key: "old-key-16-bytes", name: "old" };
const NEW_KEY = { key: "new-key-is-32-bytes-long-ok!!!!!", name: "new" };

await describeWithRedis("Redis event log with sealed payloads", () => {
  const expiringRetentionMs = EXPIRING_RETENTION_MS;
  const prefix = freshKeyPrefix();
  const payloads = sealedEventPayloads(keyRing(NEW_KEY, [OLD_KEY]));
  let logs: RedisLogs | undefined;
  let redis: RedisConnections;
  let log: RunEventLog;
  let otherLog: RunEventLog;
  let expiring: RunEventLog;
  let bus: MessageBus;
  let logOn: RedisLogs["logOn"];

  beforeAll(async () => {
    logs = await openRedisLogs(prefix, payloads);
    ({ redis, log, otherLog, expiring, bus, logOn } = logs);
  });

  afterAll(() => closeRedisLogs(logs, prefix));

  eventLogCases(() => ({ log, bus, expiring, expiringRetentionMs }));

  const collect = async (events: AsyncIterable<StoredEvent>) => {
    const out: StoredEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };
  const streamText = async (key: string) =>
    ((await redis.commands.xrange(`${prefix}events:${key}`, "-", "+")) as [string, string[]][]).map(([, f]) => f.join(" ")).join("\n");

  it("stores no plaintext of a payload, and a reader elsewhere and a replay both read it as written", async () => {
    const key = `run-${randomUUID()}`;
    const secret = `secret-${randomUUID()}`;
    await log.open(key, { resumable: true });
    const live = collect(otherLog.read(key, { after: "-1" }));
    const ids = await Promise.all([1, 2, 3].map((i) => log.append(key, { event: "values", data: { secret, i } })));
    await log.end(key);
    const expected = ids.map((id, n) => ({ id, index: n, event: "values", data: { secret, i: n + 1 } }));
    expect(await live).toEqual(expected);
    expect(await collect(log.read(key, { after: "-1" }))).toEqual(expected);
    expect(await log.last(key)).toEqual({ id: ids[2], event: "values", data: { secret, i: 3 } });
    const stored = await streamText(key);
    expect(stored).toContain("values");
    expect(stored).not.toContain(secret);
  });

  it("reads a log written before the key was set, and one written under a retired key", async () => {
    const before = logOn("A-before", { payloads: undefined });
    const retired = logOn("A-retired", { payloads: sealedEventPayloads(keyRing(OLD_KEY)) });
    for (const [writer, label] of [
      [before, "plain"],
      [retired, "old key"],
    ] as const) {
      const key = `run-${randomUUID()}`;
      await writer.open(key, { resumable: true });
      const id = await writer.append(key, { event: "values", data: { label } });
      await writer.end(key);
      expect(await collect(otherLog.read(key, { after: "-1" }))).toEqual([{ id, index: 0, event: "values", data: { label } }]);
      expect((await streamText(key)).includes(label)).toBe(label === "plain");
    }
  });
});
