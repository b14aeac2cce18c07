// Runs extract.ts on a worker thread: building a TypeScript program takes seconds of CPU, which on
// the main thread would stall every open stream and request. The thread ends when it has no job
// left, giving back the few hundred MB the compiler holds.
import { Worker } from "node:worker_threads";
import type { ExtractTarget, Extraction } from "./extract.js";

// Plain JavaScript evaluated in the thread, which gets no TypeScript loader of its own: tsx's
// tsImport loads extract.ts there.
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const loaded = import(workerData.tsx).then((tsx) => tsx.tsImport(workerData.module, workerData.parent));
parentPort.on("message", async ({ id, targets }) => {
  try {
    const { extractTypedSchemas } = await loaded;
    parentPort.postMessage({ id, result: extractTypedSchemas(targets) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

interface Pending {
  resolve(result: Extraction): void;
  reject(err: Error): void;
}

export class ExtractionThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  extract(targets: ExtractTarget[]): Promise<Extraction> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<Extraction>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, targets });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error("The schema extraction thread was stopped"));
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        tsx: import.meta.resolve("tsx/esm/api"),
        module: new URL("./extract.ts", import.meta.url).href,
        parent: import.meta.url,
      },
    });
    worker.on("message", (message: { id: number; result?: Extraction; error?: string }) => {
      const job = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) job?.reject(new Error(message.error));
      else job?.resolve(message.result!);
      if (this.pending.size === 0 && this.worker === worker) {
        this.worker = undefined;
        void worker.terminate();
      }
    });
    worker.on("error", (err) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(err);
    });
    worker.on("exit", () => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.failAll(new Error("The schema extraction thread exited"));
      }
    });
    // A schema being read never keeps the process alive on its own.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const job of this.pending.values()) job.reject(err);
    this.pending.clear();
  }
}
