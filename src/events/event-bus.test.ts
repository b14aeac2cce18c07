import { describe, expect, it } from "vitest";
import { createLogger, silentLogger } from "../logging.js";
import { createMemoryBus } from "./event-bus.js";

describe("memory bus", () => {
  it("delivers a message to every subscriber of its topic and to no other", async () => {
    const bus = createMemoryBus({ log: silentLogger });
    const seen: string[] = [];
    await bus.subscribe("run:1:cancel", (m) => seen.push(`a:${m}`));
    await bus.subscribe("run:1:cancel", (m) => seen.push(`b:${m}`));
    await bus.subscribe("run:2:cancel", (m) => seen.push(`other:${m}`));
    await bus.publish("run:1:cancel", "interrupt");
    expect(seen).toEqual(["a:interrupt", "b:interrupt"]);
  });

  it("stops delivering after unsubscribe", async () => {
    const bus = createMemoryBus({ log: silentLogger });
    const seen: string[] = [];
    const unsubscribe = await bus.subscribe("runs:wake", (m) => seen.push(m));
    await bus.publish("runs:wake", "1");
    unsubscribe();
    unsubscribe();
    await bus.publish("runs:wake", "2");
    expect(seen).toEqual(["1"]);
  });

  it("does not replay messages published before a subscription", async () => {
    const bus = createMemoryBus({ log: silentLogger });
    await bus.publish("runs:wake", "early");
    const seen: string[] = [];
    await bus.subscribe("runs:wake", (m) => seen.push(m));
    expect(seen).toEqual([]);
  });

  it("delivers twice to the same function subscribed twice, and unsubscribes each separately", async () => {
    const bus = createMemoryBus({ log: silentLogger });
    const seen: string[] = [];
    const handler = (m: string) => seen.push(m);
    const first = await bus.subscribe("t", handler);
    await bus.subscribe("t", handler);
    await bus.publish("t", "x");
    first();
    await bus.publish("t", "y");
    expect(seen).toEqual(["x", "x", "y"]);
  });

  it("logs a throwing handler and still delivers to the others", async () => {
    const lines: string[] = [];
    const bus = createMemoryBus({ log: createLogger({ level: "error", json: true, write: (l) => lines.push(l) }) });
    const seen: string[] = [];
    await bus.subscribe("t", () => {
      throw new Error("handler bug");
    });
    await bus.subscribe("t", (m) => seen.push(m));
    await bus.publish("t", "x");
    expect(seen).toEqual(["x"]);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", msg: "bus handler failed", topic: "t" });
  });
});
