// The event log and bus cases against the in-process implementations (`gantry dev`).
import { afterAll, describe } from "vitest";
import { createMemoryBus } from "../../../src/events/event-bus.js";
import { createMemoryEventLog } from "../../../src/events/memory-event-log.js";
import { createLogger } from "../../../src/logging.js";
import { eventLogCases } from "./event-log.cases.js";

describe("in-process event log and bus", () => {
  const expiringRetentionMs = 300;
  const log = createMemoryEventLog({ retentionMs: 60_000 });
  const expiring = createMemoryEventLog({ retentionMs: expiringRetentionMs });
  const bus = createMemoryBus({ log: createLogger({ level: "error", json: true }) });
  afterAll(() => {
    log.close();
    expiring.close();
  });
  eventLogCases(() => ({ log, bus, expiring, expiringRetentionMs }));
});
