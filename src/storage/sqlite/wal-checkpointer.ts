// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit
// takes the WAL past 1,000 pages, and syncs the database file right there: a stall of the event
// loop every few hundred commits, about 90 µs per commit on average here (a commit itself is
// 40-50 µs). A worker thread with a connection of its own checkpoints instead, PASSIVE (it never
// waits for readers or writers), so a commit only appends to the WAL. Durability is unchanged: with
// synchronous=NORMAL in WAL mode SQLite syncs at checkpoints only, wherever they run.
//
// A PASSIVE checkpoint copies the frames the WAL held when it began, and a writer starts the WAL
// over only when every frame is in the database as its transaction begins. A server that never
// pauses between commits (a client waiting on one run after another) always adds frames while a
// checkpoint copies and syncs, so the WAL was never started over and grew without bound: 650 MB
// in 30 s of sequential runs.wait, every commit appending to an ever longer file. Once the WAL
// holds more than `restartFrames`, the PASSIVE pass (which copies the bulk without blocking
// anyone) is followed by a RESTART checkpoint: it holds writers back while it copies the frames
// added meanwhile, a few milliseconds, and leaves the WAL to be written from its start again.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** SQLite's own default, restored when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

// Plain JavaScript evaluated in the worker: the worker gets no TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
const checkpoint = (mode) => {
  try {
    return db.pragma("wal_checkpoint(" + mode + ")")[0];
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
    return undefined;
  }
};
const tick = () => {
  const passive = checkpoint("PASSIVE");
  if (passive && passive.log > workerData.restartFrames) checkpoint("RESTART");
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  tick();
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Ends the worker after a last checkpoint; the main connection checkpoints on its own after. */
  stop(): Promise<void>;
}

export function startWalCheckpointer(
  db: Database.Database,
  file: string,
  options: {
    intervalMs: number;
    /** A WAL of more frames than this is restarted even if that holds writers back. */
    restartFrames: number;
    onProblem: (message: string) => void;
  },
): WalCheckpointer {
  db.pragma("wal_autocheckpoint = 0");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve("better-sqlite3"),
      intervalMs: options.intervalMs,
      restartFrames: options.restartFrames,
    },
  });
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const fallBack = (why: string) => {
    if (stopping) return;
    stopping = true;
    // Without the worker nothing would ever checkpoint: the WAL would grow without bound.
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    options.onProblem(`${why}; SQLite checkpoints in the committing thread again`);
  };
  worker.on("message", (message: { error?: string }) => {
    if (message.error) options.onProblem(`a WAL checkpoint failed: ${message.error}`);
  });
  worker.on("error", (err) => fallBack(`the WAL checkpoint thread failed: ${err.message}`));
  worker.on("exit", () => fallBack("the WAL checkpoint thread stopped"));
  // After the listeners: attaching a message listener refs the worker again.
  worker.unref();
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      // Unreferenced, the thread would not keep the process alive for its last checkpoint: a caller
      // with nothing else pending would see the process end with this promise unsettled.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}
