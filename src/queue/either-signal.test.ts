import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { eitherSignal } from "./either-signal.js";

describe("eitherSignal", () => {
  it("fires with the reason of whichever source fires first, once", () => {
    const cancel = new AbortController();
    const timeout = new AbortController();
    const { signal } = eitherSignal(cancel.signal, timeout.signal);
    let fired = 0;
    signal.addEventListener("abort", () => (fired += 1));

    timeout.abort(new Error("time limit"));
    cancel.abort(new Error("cancelled"));

    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("time limit");
    expect(fired).toBe(1);
  });

  it("is already fired when a source was", () => {
    const cancel = new AbortController();
    cancel.abort("gone");
    expect(eitherSignal(cancel.signal, new AbortController().signal).signal.reason).toBe("gone");
  });

  it("no longer follows its sources once disposed", () => {
    const cancel = new AbortController();
    const { signal, dispose } = eitherSignal(cancel.signal, new AbortController().signal);
    dispose();
    cancel.abort();
    expect(signal.aborted).toBe(false);
  });

  // AbortSignal.any kept every run's signal, and what LangGraph hung on it, for good.
  it("lets the signals of runs LangGraph streamed be collected once the runs are over", () => {
    const script = `
      const { Annotation, StateGraph, START, END } = await import("@langchain/langgraph");
      const { eitherSignal } = await import(${JSON.stringify(new URL("./either-signal.ts", import.meta.url).href)});
      const State = Annotation.Root({ message: Annotation() });
      const graph = new StateGraph(State).addNode("echo", (s) => ({ message: s.message })).addEdge(START, "echo").addEdge("echo", END).compile();
      // How many of 300 runs' signals are still reachable once they are over and collected.
      const survivors = async (combine) => {
        const refs = [];
        for (let i = 0; i < 300; i++) {
          const { signal, dispose } = combine(new AbortController().signal, new AbortController().signal);
          for await (const _ of await graph.stream({ message: "m" }, { signal, streamMode: ["values"] }));
          dispose();
          refs.push(new WeakRef(signal));
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
        globalThis.gc();
        return refs.filter((ref) => ref.deref() !== undefined).length;
      };
      const either = await survivors(eitherSignal);
      const any = await survivors((a, b) => ({ signal: AbortSignal.any([a, b]), dispose() {} }));
      console.log(JSON.stringify({ any, either }));
    `;
    const output = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      cwd: process.cwd(),
    });
    const alive = JSON.parse(output) as { any: number; either: number };
    // The measurement can see the leak: AbortSignal.any keeps every one.
    expect(alive.any).toBe(300);
    expect(alive.either).toBeLessThan(5);
  });
});
