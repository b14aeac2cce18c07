import { describe, expect, it, vi } from "vitest";
import { wakeLoop } from "./wake-loop.js";

/** A pass the test finishes by hand, counting how many started. */
function gatedPass() {
  const gates: Array<() => void> = [];
  const pass = () => new Promise<void>((done) => gates.push(done));
  return {
    pass,
    started: () => gates.length,
    finishCurrent: async () => {
      gates[gates.length - 1]!();
      // Lets the loop see the pass end and decide whether to start another.
      await new Promise((done) => setImmediate(done));
    },
  };
}

describe("wakeLoop", () => {
  it("runs one pass per wake-up when each comes after the last pass ended", async () => {
    const gated = gatedPass();
    const loop = wakeLoop(gated.pass, () => {});
    loop.wake();
    expect(gated.started()).toBe(1);
    await gated.finishCurrent();
    expect(gated.started()).toBe(1);
    loop.wake();
    expect(gated.started()).toBe(2);
    await gated.finishCurrent();
    await loop.stop();
  });

  it("turns many wake-ups during a pass into exactly one more pass", async () => {
    const gated = gatedPass();
    const loop = wakeLoop(gated.pass, () => {});
    loop.wake();
    for (let i = 0; i < 10; i++) loop.wake();
    expect(gated.started()).toBe(1);
    await gated.finishCurrent();
    expect(gated.started()).toBe(2);
    await gated.finishCurrent();
    expect(gated.started()).toBe(2);
    await loop.stop();
  });

  it("gives a pass that wakes the loop itself one more pass, never two at once", async () => {
    let inPass = 0;
    let most = 0;
    let passes = 0;
    const loop = wakeLoop(
      async () => {
        passes += 1;
        inPass += 1;
        most = Math.max(most, inPass);
        if (passes === 1) loop.wake();
        await new Promise((done) => setImmediate(done));
        inPass -= 1;
      },
      () => {},
    );
    loop.wake();
    await vi.waitFor(() => expect(passes).toBe(2));
    await loop.stop();
    expect(passes).toBe(2);
    expect(most).toBe(1);
  });

  it("waits in stop() for the pass under way, and starts no pass after it", async () => {
    const gated = gatedPass();
    const loop = wakeLoop(gated.pass, () => {});
    loop.wake();
    loop.wake();
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((done) => setImmediate(done));
    expect(stopped).toBe(false);
    await gated.finishCurrent();
    await stopping;
    expect(stopped).toBe(true);
    expect(gated.started()).toBe(1);
    loop.wake();
    expect(gated.started()).toBe(1);
  });

  it("hands a failed pass's error to onError and goes on with the next wake-up", async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const loop = wakeLoop(
      async () => {
        passes += 1;
        if (passes === 1) throw new Error("storage down");
      },
      (err) => errors.push(err),
    );
    loop.wake();
    await new Promise((done) => setImmediate(done));
    expect(errors).toEqual([new Error("storage down")]);
    loop.wake();
    await loop.stop();
    expect(passes).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it("still runs the pass owed by a wake-up that came during a failing pass", async () => {
    const errors: unknown[] = [];
    let passes = 0;
    let fail!: (err: Error) => void;
    const loop = wakeLoop(
      () => {
        passes += 1;
        return passes === 1 ? new Promise<void>((_, reject) => (fail = reject)) : Promise.resolve();
      },
      (err) => errors.push(err),
    );
    loop.wake();
    loop.wake();
    fail(new Error("claim failed"));
    await new Promise((done) => setImmediate(done));
    await loop.stop();
    expect(passes).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
