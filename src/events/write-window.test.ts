import { describe, expect, it } from "vitest";
import { writeWindow } from "./write-window.js";

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe("write window", () => {
  it("lets writes through until it is full, then waits for the oldest", async () => {
    const window = writeWindow(2);
    const [first, second] = [deferred(), deferred()];
    await window.add(first.promise);
    let through = false;
    const adding = window.add(second.promise).then(() => (through = true));
    await new Promise((wake) => setImmediate(wake));
    expect(through).toBe(false);
    first.resolve();
    await adding;
    second.resolve();
    await window.settled();
  });

  it("hands the first failure to the writer at settled(), once", async () => {
    const window = writeWindow(10);
    const failing = deferred();
    await window.add(failing.promise);
    await window.add(Promise.resolve());
    failing.reject(new Error("Redis went away"));
    await expect(window.settled()).rejects.toThrow("Redis went away");
    await window.settled();
  });
});
