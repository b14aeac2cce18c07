// Another connection to a SQLite file that takes its write lock, on a thread of its own, as the WAL
// checkpoint thread's RESTART pass or another process on the file does. The thread is needed: a
// connection waiting for the lock blocks its whole thread, so the holder must let go on its own.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// Plain JavaScript evaluated in the worker, which gets no TypeScript loader. It takes the lock
// (waiting for it if need be), keeps it holdMs, lets go for gapMs, `times` times or until "stop".
const HOLDER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 5000 });
let holds = 0;
let stopping = false;
parentPort.on("message", (message) => { if (message === "stop") stopping = true; });
const hold = () => {
  if (stopping || holds === workerData.times) {
    db.close();
    parentPort.postMessage({ done: holds });
    return;
  }
  holds += 1;
  db.exec("BEGIN IMMEDIATE");
  parentPort.postMessage("held");
  setTimeout(() => {
    db.exec("COMMIT");
    setTimeout(hold, workerData.gapMs);
  }, workerData.holdMs);
};
hold();
`;

export interface WriteLockHolder {
  /** Resolves when the holder first holds the lock. */
  readonly held: Promise<void>;
  /** Lets go for good (after the hold in progress) and resolves with how many times it held the lock. */
  stop(): Promise<number>;
}

export function holdWriteLock(file: string, options: { holdMs: number; gapMs?: number; times?: number }): WriteLockHolder {
  const worker = new Worker(HOLDER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve("better-sqlite3"),
      holdMs: options.holdMs,
      gapMs: options.gapMs ?? 0,
      times: options.times ?? 1,
    },
  });
  const failed = new Promise<never>((_, reject) => worker.once("error", reject));
  failed.catch(() => {});
  const held = Promise.race([new Promise<void>((resolve) => worker.on("message", (m) => m === "held" && resolve())), failed]);
  const done = Promise.race([
    new Promise<number>((resolve) => worker.on("message", (m: { done?: number }) => typeof m?.done === "number" && resolve(m.done))),
    failed,
  ]).finally(() => worker.terminate());
  done.catch(() => {});
  return {
    held,
    stop() {
      worker.postMessage("stop");
      return done;
    },
  };
}
