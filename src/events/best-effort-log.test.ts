import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../logging.js";
import { bestEffortWrites } from "./best-effort-log.js";
import { createMemoryEventLog } from "./memory-event-log.js";
import { StaleWriterError } from "./run-event-log.js";

const logs: Array<{ close(): void }> = [];

afterEach(() => {
  for (const log of logs.splice(0)) log.close();
});

function setUp() {
  const inner = createMemoryEventLog({ retentionMs: 60_000 });
  logs.push(inner);
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", json: true, write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { inner, events: bestEffortWrites(inner, logger), warnings: () => lines.filter((line) => line.level === "warn") };
}

describe("bestEffortWrites", () => {
  // Appending to a log that has ended is refused by the memory log: a write failing for real.
  it("answers a failed write with its fallback and warns once per run of failures", async () => {
    const { inner, events, warnings } = setUp();
    await inner.open("run-1", { resumable: true });
    await inner.end("run-1");

    await expect(events.append("run-1", { event: "values", data: 1 })).resolves.toBe("");
    await expect(events.append("run-1", { event: "values", data: 2 })).resolves.toBe("");
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ msg: expect.stringContaining("event log write failed"), what: "append", key: "run-1" });

    await events.open("run-1", { resumable: true });
    expect(await events.append("run-1", { event: "values", data: 3 })).toMatch(/^\d+-\d+$/);
    await inner.end("run-1");
    await events.append("run-1", { event: "values", data: 4 });
    expect(warnings()).toHaveLength(2);
  });

  it("passes successful writes and reads through unchanged", async () => {
    const { events, warnings } = setUp();
    await events.open("run-2", { resumable: true });
    const id = await events.append("run-2", { event: "metadata", data: { run_id: "run-2" } });
    await events.end("run-2");
    expect(await events.has("run-2")).toBe(true);
    const read = [];
    for await (const event of events.read("run-2", { after: "-1" })) read.push(event);
    expect(read).toEqual([{ id, event: "metadata", data: { run_id: "run-2" }, index: 0 }]);
    expect(warnings()).toEqual([]);
  });

  it("hands a stale writer's refusal to the caller, since it is no fault of the store", async () => {
    const { events, warnings } = setUp();
    await events.open("run-3", { resumable: true, writer: 2 });
    await expect(events.append("run-3", { event: "values", data: 1 }, { writer: 1 })).rejects.toThrow(StaleWriterError);
    await expect(events.end("run-3", { writer: 1 })).rejects.toThrow(StaleWriterError);
    expect(warnings()).toEqual([]);
  });
});
