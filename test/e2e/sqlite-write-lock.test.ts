// A busy SQLite file costs a run time, never the run: while another connection keeps taking the
// write lock (as the WAL checkpoint thread's RESTART pass does under load), concurrent runs of a
// ten-step graph through the SDK all succeed.
import { describe, expect, it } from "vitest";
import { holdWriteLock } from "../support/sqlite-write-lock.js";
import { openSqliteStore } from "./backends.js";
import { useGantry } from "./fixture.js";
import { RUNS_CONFIG, RUNS_ENV } from "./runs-support.js";

const ALL_STEPS = Array.from({ length: 10 }, (_, i) => `step_${i}`);
const CLIENTS = 12;

describe("runs on a SQLite file whose write lock another connection keeps taking", () => {
  const gantry = useGantry(openSqliteStore, RUNS_CONFIG, RUNS_ENV);

  it("all succeed", async () => {
    const threads = await Promise.all(Array.from({ length: CLIENTS }, () => gantry.client.threads.create()));
    // Held most of the time, so the runs' writes keep meeting it.
    const holder = holdWriteLock(gantry.store.sqliteFile!, { holdMs: 20, gapMs: 5, times: Number.POSITIVE_INFINITY });
    await holder.held;
    try {
      const results = await Promise.all(threads.map(({ thread_id }) => gantry.client.runs.wait(thread_id, "chain", { input: {}, raiseError: false })));
      expect(results).toEqual(Array.from({ length: CLIENTS }, () => ({ steps: ALL_STEPS })));
    } finally {
      expect(await holder.stop()).toBeGreaterThan(0);
    }
    for (const { thread_id } of threads) {
      expect((await gantry.client.runs.list(thread_id)).map((run) => run.status)).toEqual(["success"]);
    }
  });
});
