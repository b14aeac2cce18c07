// The schemas of TypeScript-typed graphs, read on first request rather than at start-up: reading
// one costs seconds of compiler time, and a server with many graphs should not pay that before it
// listens, nor for graphs nobody inspects. A result is kept in memory for the life of the process
// (graphs are imported once, too) and, under `gantry dev`, on disk in the data dir, valid while every
// file the compiler read has the content it had (docs/decisions.md, "Schemas of TypeScript-typed graphs").
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname, join } from "node:path";
import type { Logger } from "../../logging.js";
import type { ExtractTarget, Extraction, TypedSchemas } from "./extract.js";
import { ExtractionThread } from "./extraction-thread.js";

export type { TypedSchemas };

export interface TypedSchemaSource {
  /** The typed schemas of a graph ("") and its subgraphs by namespace; undefined when none can be read. */
  get(graphId: string): Promise<Record<string, TypedSchemas> | undefined>;
  /** Stops an extraction under way; later calls to get() start another. */
  close(): Promise<void>;
}

export interface TypedSchemaSourceOptions {
  graphs: Array<ExtractTarget & { graphId: string }>;
  /** Where results are kept between runs; memory only when absent. */
  cacheDir?: string;
  log: Logger;
  /** Defaults to a worker thread; tests may pass extract.ts's function itself. */
  extract?: (target: ExtractTarget) => Promise<Extraction>;
}

// Bumped whenever extract.ts would answer differently for the same files.
const EXTRACTOR_VERSION = 1;
const TYPED_EXTENSIONS = new Set([".ts", ".mts", ".cts", ".tsx"]);

interface CacheEntry {
  key: string;
  /** Absolute path -> sha256 of its content when the schemas were read. */
  files: Record<string, string>;
  graphs: Record<string, TypedSchemas>;
}

export function createTypedSchemaSource(options: TypedSchemaSourceOptions): TypedSchemaSource {
  const { cacheDir, log } = options;
  const thread = options.extract ? undefined : new ExtractionThread();
  const extract = options.extract ?? ((target: ExtractTarget) => thread!.extract(target));
  const specs = new Map(options.graphs.map((g) => [g.graphId, g]));
  const results = new Map<string, Promise<Record<string, TypedSchemas> | undefined>>();
  const key = cacheKeyPrefix();

  const read = async (graphId: string): Promise<Record<string, TypedSchemas> | undefined> => {
    const spec = specs.get(graphId);
    if (!spec || !TYPED_EXTENSIONS.has(extname(spec.file))) return undefined;
    const target = { file: spec.file, exportName: spec.exportName };
    const entryKey = `${key}:${spec.file}:${spec.exportName}`;
    const cacheFile = cacheDir ? join(cacheDir, `${sha256(entryKey).slice(0, 24)}.json`) : undefined;
    const started = Date.now();
    if (cacheFile) {
      const cached = await readCacheEntry(cacheFile, entryKey);
      if (cached) {
        log.debug("graph schemas read from cache", { graph_id: graphId, duration_ms: Date.now() - started });
        return cached;
      }
    }
    try {
      const extraction = await extract(target);
      log.info("graph schemas read from TypeScript types", { graph_id: graphId, duration_ms: Date.now() - started });
      if (cacheFile) await writeCacheEntry(cacheFile, entryKey, extraction).catch((err: unknown) => log.warn("graph schemas not cached", { graph_id: graphId, error: String(err) }));
      return extraction.graphs;
    } catch (err) {
      log.warn("graph schemas could not be read from TypeScript types", { graph_id: graphId, error: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  };

  return {
    get(graphId) {
      let result = results.get(graphId);
      if (!result) {
        result = read(graphId);
        results.set(graphId, result);
      }
      return result;
    },
    async close() {
      await thread?.close();
    },
  };
}

async function readCacheEntry(cacheFile: string, entryKey: string): Promise<Record<string, TypedSchemas> | undefined> {
  let entry: CacheEntry;
  try {
    entry = JSON.parse(await readFile(cacheFile, "utf8")) as CacheEntry;
  } catch {
    return undefined;
  }
  if (entry.key !== entryKey) return undefined;
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

async function writeCacheEntry(cacheFile: string, entryKey: string, extraction: Extraction): Promise<void> {
  const entry: CacheEntry = { key: entryKey, files: extraction.files, graphs: extraction.graphs };
  await mkdir(join(cacheFile, ".."), { recursive: true });
  // Written aside and renamed, so a reader never sees half an entry.
  const partial = `${cacheFile}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify(entry));
  await rename(partial, cacheFile);
}

/** The extractor and the compiler that produced an entry: either changing invalidates it. */
function cacheKeyPrefix(): string {
  const require = createRequire(import.meta.url);
  const { version } = require("typescript/package.json") as { version: string };
  return `v${EXTRACTOR_VERSION}:typescript@${version}`;
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
