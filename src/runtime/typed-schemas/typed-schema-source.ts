// The schemas of TypeScript-typed graphs, read on first request rather than at start-up: reading
// them costs seconds of compiler time, which a server with many graphs should not spend before it
// listens, nor at all when nobody inspects a graph. One extraction reads every graph of the project
// (they share the declaration files that make up most of the cost); its result is kept in memory
// for the life of the process (graphs are imported once, too) and, under `gantry dev`, on disk in
// the data dir, valid while every file the compiler read still has the same content.
// docs/decisions.md, "Schemas of TypeScript-typed graphs".
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import type { Logger } from "../../logging.js";
import type { ExtractTarget, Extraction, GraphExtraction, TypedSchemas } from "./extract.js";
import { ExtractionThread } from "./extraction-thread.js";

export type { TypedSchemas };

export interface TypedSchemaSource {
  /**
   * The typed schemas of a graph ("") and its subgraphs by namespace. Undefined when they cannot
   * be read, or are still being read once the first answer's wait is over.
   */
  get(graphId: string): Promise<Record<string, TypedSchemas> | undefined>;
  /** Starts reading now, in the background, so the first request finds the types read. */
  warm(): void;
  /** Stops an extraction under way. */
  close(): Promise<void>;
}

export interface TypedSchemaSourceOptions {
  graphs: ExtractTarget[];
  /** Where results are kept between runs; memory only when absent. */
  cacheDir?: string;
  log: Logger;
  /** How long, from the start of an extraction, requests wait for it at most before answering without types. */
  waitMs?: number;
  /** Defaults to a worker thread. */
  extract?: (targets: ExtractTarget[]) => Promise<Extraction>;
}

// The first answer waits for the types, so it is typed as the official server's is: a 2-core
// machine under load took 40 s to read a small project, past the official server's own 30 s. The
// bound only keeps a stuck reading from holding requests forever; past it they answer untyped.
// Counted from the start of the extraction, so requests in a row do not each wait the whole time.
const WAIT_MS = 180_000;
// Bumped whenever extract.ts would answer differently for the same files.
const EXTRACTOR_VERSION = 2;
const TYPED_EXTENSIONS = new Set([".ts", ".mts", ".cts", ".tsx"]);

interface CacheEntry {
  key: string;
  /** Absolute path -> sha256 of its content when the schemas were read. */
  files: Record<string, string>;
  graphs: Record<string, GraphExtraction>;
}

export function createTypedSchemaSource(options: TypedSchemaSourceOptions): TypedSchemaSource {
  const { log, waitMs = WAIT_MS } = options;
  const thread = options.extract ? undefined : new ExtractionThread();
  const extract = options.extract ?? ((targets: ExtractTarget[]) => thread!.extract(targets));
  const targets = options.graphs.filter((g) => TYPED_EXTENSIONS.has(extname(g.file))).map(({ graphId, file, exportName }) => ({ graphId, file, exportName }));
  const key = cacheKey(targets);
  const cacheFile = options.cacheDir ? join(options.cacheDir, `${sha256(key).slice(0, 24)}.json`) : undefined;
  let reading: { done: Promise<Record<string, GraphExtraction>>; startedAt: number } | undefined;

  const readAll = async (): Promise<Record<string, GraphExtraction>> => {
    const started = Date.now();
    if (cacheFile) {
      const cached = await readCacheEntry(cacheFile, key);
      if (cached) {
        log.debug("graph schemas read from the cache", { file: cacheFile, duration_ms: Date.now() - started });
        return cached;
      }
    }
    let extraction: Extraction;
    try {
      extraction = await extract(targets);
    } catch (err) {
      log.warn("graph schemas could not be read from TypeScript types", { error: err instanceof Error ? err.message : String(err) });
      return {};
    }
    log.info("graph schemas read from TypeScript types", { graphs: targets.map((t) => t.graphId), duration_ms: Date.now() - started });
    for (const [graphId, graph] of Object.entries(extraction.graphs)) {
      if ("error" in graph) log.warn("graph schemas could not be read from TypeScript types", { graph_id: graphId, error: graph.error });
    }
    if (cacheFile) {
      await writeCacheEntry(cacheFile, { key, files: extraction.files, graphs: extraction.graphs }).catch((err: unknown) =>
        log.warn("graph schemas could not be cached", { file: cacheFile, error: String(err) }),
      );
    }
    return extraction.graphs;
  };

  const start = () => (reading ??= { done: readAll(), startedAt: Date.now() });

  return {
    async get(graphId) {
      if (!targets.some((t) => t.graphId === graphId)) return undefined;
      const { done, startedAt } = start();
      const graphs = await settledWithin(done, startedAt + waitMs - Date.now());
      const graph = graphs?.[graphId];
      return graph && "namespaces" in graph ? graph.namespaces : undefined;
    },
    warm() {
      if (targets.length > 0) start();
    },
    async close() {
      await thread?.close();
    },
  };
}

async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readCacheEntry(cacheFile: string, key: string): Promise<Record<string, GraphExtraction> | undefined> {
  let entry: CacheEntry;
  try {
    entry = JSON.parse(await readFile(cacheFile, "utf8")) as CacheEntry;
  } catch {
    return undefined;
  }
  if (entry.key !== key) return undefined;
  const unchanged = await Promise.all(
    Object.entries(entry.files).map(async ([file, hash]) => {
      try {
        return sha256(await readFile(file)) === hash;
      } catch {
        return false;
      }
    }),
  );
  return unchanged.every(Boolean) ? entry.graphs : undefined;
}

async function writeCacheEntry(cacheFile: string, entry: CacheEntry): Promise<void> {
  await mkdir(dirname(cacheFile), { recursive: true });
  // Written aside and renamed, so a reader never sees half an entry.
  const partial = `${cacheFile}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify(entry));
  await rename(partial, cacheFile);
}

/** The extractor, the compiler and the graphs asked for: changing any of them makes a new entry. */
function cacheKey(targets: ExtractTarget[]): string {
  const require = createRequire(import.meta.url);
  const { version } = require("typescript/package.json") as { version: string };
  const graphs = targets.map((t) => `${t.graphId}=${t.file}:${t.exportName}`).sort();
  return [`v${EXTRACTOR_VERSION}`, `typescript@${version}`, ...graphs].join("\n");
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
