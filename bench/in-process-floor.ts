// The in-process floor: the echo graph's `graph.invoke` on one thread, with the checkpointer Gantry
// itself uses on the embedded default (its SqliteSaver over a fresh SQLite file, same pragmas).
// Gantry's sequential runs.wait minus this is what HTTP, the queue and the run records cost. It
// takes its turns in the same rounds as the servers' waits, so the machine's drift falls on both.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../src/storage/sqlite/open-sqlite.js";
import { graph as echoGraph } from "./graphs/echo.js";

export interface InProcessEcho {
  invoke(message: string): Promise<{ message?: string }>;
  close(): Promise<void>;
}

export function openInProcessEcho(): InProcessEcho {
  const dir = mkdtempSync(join(tmpdir(), "gantry-floor-"));
  const storage = openSqliteStorage(join(dir, "floor.sqlite"));
  echoGraph.checkpointer = storage.checkpoints.saver;
  const threadId = crypto.randomUUID();
  return {
    invoke: (message) => echoGraph.invoke({ message }, { configurable: { thread_id: threadId } }),
    async close() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
