import { describe, expect, it } from "vitest";
import { checkResume, pendingInterruptIds, UnknownInterruptError } from "./strict-resume.js";
import type { ThreadState } from "./thread-state.js";

const A = "0123456789abcdef0123456789abcdef";
const B = "fedcba9876543210fedcba9876543210";

function refusal(resume: unknown, pending: string[]): UnknownInterruptError | undefined {
  try {
    checkResume(resume, pending);
    return undefined;
  } catch (err) {
    if (err instanceof UnknownInterruptError) return err;
    throw err;
  }
}

describe("checkResume", () => {
  it("lets through a map that answers waiting interrupts, and a bare value with one waiting", () => {
    expect(refusal({ [A]: "yes" }, [A, B])).toBeUndefined();
    expect(refusal("yes", [A])).toBeUndefined();
    expect(refusal({ answer: "yes" }, [A])).toBeUndefined();
  });

  it("refuses a map naming an interrupt that is not waiting, listing it and the ones that are", () => {
    expect(refusal({ [B]: "late" }, [A])?.toWire()).toEqual({
      error: "UnknownInterruptError",
      message: `Unknown or already-consumed interrupt: ${B}`,
      reason: "not_pending",
      interrupt_ids: [B],
      pending_ids: [A],
    });
  });

  it("refuses an empty map and a bare value while several interrupts wait", () => {
    expect(refusal({}, [A])).toMatchObject({ reason: "empty_map", interruptIds: [], pendingIds: [A] });
    expect(refusal("which?", [A, B])).toMatchObject({ reason: "ambiguous", pendingIds: [A, B] });
  });
});

describe("pendingInterruptIds", () => {
  it("lists the interrupts of tasks that have no result yet, sorted", () => {
    const task = (id: string, interrupts: string[], result?: unknown) => ({
      id,
      name: id,
      path: ["__pregel_pull", id],
      error: null,
      interrupts: interrupts.map((i) => ({ id: i, value: "q" })),
      checkpoint: null,
      state: null,
      result: result ?? null,
    });
    const state = { tasks: [task("t1", [B]), task("t2", [A]), task("t3", ["0".repeat(32)], { done: true })] } as unknown as ThreadState;
    expect(pendingInterruptIds(state)).toEqual([A, B]);
  });
});
