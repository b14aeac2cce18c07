// The in-process floor: the echo graph's `graph.invoke` on one thread, with the checkpointer Gantry
// itself uses on the embedded default (its SqliteSaver over a fresh SQLite file, same pragmas).
// Gantry's sequential runs.wait minus this is what HTTP, the queue and the run records cost.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../src/storage/sqlite/open-sqlite.js";
import type { ErrorTally } from "./bench-target.js";
import { graph as echoGraph } from "./graphs/echo.js";

/** Warmed up for `warmUpSeconds` first, like the servers (see warmUp in measure-runs.ts). */
export async function inProcessInvokeTimes(count: number, errors: ErrorTally, warmUpSeconds: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "gantry-floor-"));
  const storage = openSqliteStorage(join(dir, "floor.sqlite"));
  try {
    echoGraph.checkpointer = storage.checkpoints.saver;
    const threadId = crypto.randomUUID();
    const warmUntil = performance.now() + warmUpSeconds * 1000;
    while (performance.now() < warmUntil) await echoGraph.invoke({ message: "warm" }, { configurable: { thread_id: threadId } });
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const out = await echoGraph.invoke({ message: `m${i}` }, { configurable: { thread_id: threadId } });
      times.push(performance.now() - t0);
      if (out.message !== `m${i}`) errors.add("floor", "in-process graph.invoke", `returned ${JSON.stringify(out)}`);
    }
    return times;
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
