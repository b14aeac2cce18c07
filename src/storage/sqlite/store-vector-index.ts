// The IVF index of the store's vectors on SQLite (0007_store_vector_index.sql): spherical k-means
// centroids per vector length, trained on a sample of the stored vectors when a search first
// needs them and again when the store has grown a lot since; each vector is copied under its
// nearest centroid's cell (by triggers for every later write). A search scores the vectors of the
// cells nearest its query instead of all of them: approximate, with the recall measured in
// docs/benchmarks.md, so the adapter uses it only for large unfiltered searches.
//
// Building never holds up a search or a write: better-sqlite3 is synchronous, so a build run in
// one go (seconds at 100k vectors) would stall every request of the process and hold the write
// lock. A search asks for a build and answers from what is complete now (the live generation, or
// the exact scan); the build then runs in steps of a few milliseconds between which the event loop
// serves everything else. Its writes are short transactions into a new generation of cells, which
// the triggers fill too for vectors written meanwhile; one last short transaction swaps it for
// the live one. Why that leaves each vector in exactly one cell of the new generation: see build().
import type Database from "better-sqlite3";

/** Below this many vectors in the searched prefix, an exact scan costs a few ms and is used instead. */
export const INDEX_MIN_VECTORS = 4096;
/** Retrain once the vectors of a length are this many times what the centroids were trained on. */
const RETRAIN_GROWTH = 4;
/** k-means runs on at most this many vectors per centroid; more barely moves the centroids. */
const SAMPLE_PER_CELL = 32;
const ITERATIONS = 6;
/** Rows read per step while sampling: a scan of that many rows takes a millisecond or two. */
const SAMPLE_PAGE = 1000;
/** Rows copied into cells per write transaction: each is compared with ~2 sqrt(k) centroids. */
const ASSIGN_PAGE = 100;
/** Retired cells' rows deleted per write transaction. */
const DELETE_PAGE = 500;
/** A build's synchronous work between two turns of the event loop. */
const SLICE_MS = 4;
/** How long a build step that found the write lock taken waits before trying again. */
const BUSY_RETRY_MS = 20;

/** What a build step yields: nothing, or that it found the write lock taken and should wait. */
type Turn = "busy" | undefined;
const CELL_SPAN = 4294967296;

/**
 * About sqrt(n)/2 lists. Recall and search cost depend on the share of vectors probed, not on the
 * number of lists; fewer lists make training cheaper (it compares every vector with every centroid).
 */
function cellCount(vectors: number): number {
  return Math.max(16, Math.round(Math.sqrt(vectors) / 2));
}

/**
 * Lists probed per search: a fixed share of them, so the vectors scored stay about
 * NPROBE_SHARE x n and recall does not fall as the store grows.
 */
const NPROBE_SHARE = 0.04;
function probes(cells: number): number {
  return Math.min(cells, Math.max(8, Math.ceil(cells * NPROBE_SHARE)));
}

/** The blob's floats scaled to length 1 (copied: a Buffer's offset need not be 4-aligned). */
function unit(blob: Buffer, dims: number): Float32Array {
  const v = new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + dims * 4));
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dims; i++) v[i]! /= norm;
  return v;
}

/** Four running sums: about three times faster in V8 than one, and training is mostly this loop. */
function dot(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (let i = n; i < a.length; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

function nearest(v: Float32Array, centroids: Float32Array[]): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < centroids.length; c++) {
    const score = dot(v, centroids[c]!);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

/**
 * Spherical k-means from evenly spaced seeds, so the same vectors always give the same centroids.
 * Yields after each vector: the caller decides how many steps fit in a turn of the event loop.
 */
function* kmeans(sample: Float32Array[], k: number, dims: number): Generator<undefined, Float32Array[]> {
  let centroids = Array.from({ length: k }, (_, c) => Float32Array.from(sample[Math.floor((c * sample.length) / k)]!));
  for (let round = 0; round < ITERATIONS; round++) {
    const sums = Array.from({ length: k }, () => new Float64Array(dims));
    for (const v of sample) {
      const sum = sums[nearest(v, centroids)]!;
      for (let i = 0; i < dims; i++) sum[i]! += v[i]!;
      yield;
    }
    centroids = sums.map((sum, c) => {
      const norm = Math.sqrt(sum.reduce((s, x) => s + x * x, 0));
      // An empty cell keeps its centroid rather than becoming a zero vector.
      return norm > 0 ? Float32Array.from(sum, (x) => x / norm) : centroids[c]!;
    });
  }
  return centroids;
}

/**
 * Centroids in two levels: about sqrt(k) coarse ones, then each coarse group's share of the k
 * fine ones trained on its members. Copying every vector into its cell then compares it with
 * about 2 sqrt(k) centroids instead of k, which is most of a build's time; the fine centroids
 * are the index's lists, and later writes pick the nearest of all of them.
 */
interface Tree {
  coarse: Float32Array[];
  fine: Float32Array[][];
}

function* trainTree(sample: Float32Array[], k: number, dims: number): Generator<undefined, Tree> {
  const coarse = yield* kmeans(sample, Math.max(1, Math.min(sample.length, Math.round(Math.sqrt(k)))), dims);
  const groups = coarse.map((): Float32Array[] => []);
  for (const v of sample) groups[nearest(v, coarse)]!.push(v);
  const fine: Float32Array[][] = [];
  for (const [g, group] of groups.entries()) {
    fine.push(
      group.length === 0 ? [coarse[g]!] : yield* kmeans(group, Math.max(1, Math.min(group.length, Math.round((k * group.length) / sample.length))), dims),
    );
  }
  return { coarse, fine };
}

/** The index among the tree's fine centroids, flattened in group order. */
function nearestInTree(v: Float32Array, tree: Tree, offsets: number[]): number {
  const g = nearest(v, tree.coarse);
  return offsets[g]! + nearest(v, tree.fine[g]!);
}

const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

interface Status {
  vectors: number;
  trained_on: number;
  /** Centroids of the live generation. */
  live: number;
  /** Centroids of a generation being built or retired. */
  stale: number;
}

/** Runs the steps a few milliseconds at a time, yielding to the event loop between slices. */
function runInSlices(steps: Iterator<Turn>, stop: () => boolean, finished: (err?: unknown) => void): void {
  const slice = () => {
    try {
      const until = performance.now() + SLICE_MS;
      do {
        if (stop()) return finished();
        const step = steps.next();
        if (step.done) return finished();
        if (step.value === "busy") return void setTimeout(slice, BUSY_RETRY_MS);
      } while (performance.now() < until);
      setImmediate(slice);
    } catch (err) {
      finished(err);
    }
  };
  setImmediate(slice);
}

export interface StoreVectorIndex {
  /**
   * The number of lists to probe for vectors of `dims`; 0 when no complete index is there. Starts a
   * build in the background when one is due and none is running; never waits for it.
   */
  prepare(dims: number): number;
}

export function storeVectorIndex(db: Database.Database, options: { onProblem?: (err: unknown) => void } = {}): StoreVectorIndex {
  const onProblem = options.onProblem ?? ((err: unknown) => process.emitWarning(`store vector index build failed: ${String(err)}`));
  const status = db.prepare(
    `SELECT vectors, trained_on,
       (SELECT count(*) FROM store_vector_centroids WHERE dims = c.dims AND state = 1) AS live,
       (SELECT count(*) FROM store_vector_centroids WHERE dims = c.dims AND state <> 1) AS stale
     FROM store_vector_counts AS c WHERE dims = ?`,
  );
  const samplePage = db.prepare(
    "SELECT rowid, CASE WHEN length(vector) = ? AND rowid % ? = 0 THEN vector END AS vector FROM store_vectors WHERE rowid > ? ORDER BY rowid LIMIT ?",
  );
  const assignPage = db.prepare(
    "SELECT rowid, namespace, key, field, vector FROM store_vectors WHERE rowid > ? AND rowid <= ? AND length(vector) = ? ORDER BY rowid LIMIT ?",
  );
  const lastRowid = db.prepare("SELECT COALESCE(MAX(rowid), 0) FROM store_vectors").pluck();
  const addCentroid = db.prepare("INSERT INTO store_vector_centroids (dims, state, centroid) VALUES (?, 0, ?)");
  // Skips a vector the insert trigger already copied into this generation (a rowid freed by a
  // delete can be given to a vector written during the build, below the build's last rowid).
  const addCell = db.prepare(
    `INSERT INTO store_vector_cells (id, namespace, key, field, vector)
     SELECT (SELECT COALESCE(MAX(id), :cell * ${CELL_SPAN}) + 1 FROM store_vector_cells WHERE id >= :cell * ${CELL_SPAN} AND id < (:cell + 1) * ${CELL_SPAN}),
            :namespace, :key, :field, :vector
     WHERE NOT EXISTS (SELECT 1 FROM store_vector_cells WHERE namespace = :namespace AND key = :key AND field = :field AND id >= :first * ${CELL_SPAN})`,
  );
  const retireBuilding = db.prepare("UPDATE store_vector_centroids SET state = -1 WHERE dims = ? AND state = 0");
  const retireLive = db.prepare("UPDATE store_vector_centroids SET state = -1 WHERE dims = ? AND state = 1");
  const goLive = db.prepare("UPDATE store_vector_centroids SET state = 1 WHERE dims = ? AND state = 0");
  const trained = db.prepare("UPDATE store_vector_counts SET trained_on = vectors WHERE dims = ?");
  const retired = db.prepare("SELECT cell FROM store_vector_centroids WHERE dims = ? AND state = -1").pluck();
  const dropCellRows = db.prepare(
    `DELETE FROM store_vector_cells WHERE id IN (
       SELECT id FROM store_vector_cells WHERE id >= ? * ${CELL_SPAN} AND id < (? + 1) * ${CELL_SPAN} LIMIT ${DELETE_PAGE})`,
  );
  const dropCentroid = db.prepare("DELETE FROM store_vector_centroids WHERE cell = ?");

  /**
   * Runs a write of the build without waiting for the write lock. better-sqlite3 waits for it
   * synchronously, the whole process with it: the WAL checkpointer's RESTART (wal-checkpointer.ts),
   * which a build's 100 MB of writes set off a few times at 100k vectors, held a build step for up
   * to 0.4 s. A build that finds the lock taken gives the turn back and tries again later.
   */
  function* write<T>(work: () => T): Generator<Turn, T> {
    for (;;) {
      const patience = db.pragma("busy_timeout", { simple: true }) as number;
      db.pragma("busy_timeout = 0");
      try {
        return work();
      } catch (err) {
        if ((err as { code?: unknown }).code !== "SQLITE_BUSY") throw err;
      } finally {
        db.pragma(`busy_timeout = ${patience}`);
      }
      yield "busy";
    }
  }

  const due = (s: Status) => s.vectors >= INDEX_MIN_VECTORS && (s.live === 0 || s.vectors >= s.trained_on * RETRAIN_GROWTH);

  /** Deletes retired generations' cells, a page per transaction, then their centroids. */
  function* dropRetired(dims: number): Generator<Turn> {
    for (const cell of retired.all(dims) as number[]) {
      while ((yield* write(() => dropCellRows.run(cell, cell).changes)) > 0) yield;
      yield* write(() => dropCentroid.run(cell));
      yield;
    }
  }

  const addCentroids = db.transaction((dims: number, centroids: Float32Array[]) => ({
    ids: centroids.map((c) => Number(addCentroid.run(dims, blob(c)).lastInsertRowid)),
    last: lastRowid.get() as number,
  }));

  const assign = db.transaction((dims: number, tree: Tree, offsets: number[], ids: number[], after: number, last: number): number => {
    const rows = assignPage.all(after, last, dims * 4, ASSIGN_PAGE) as Array<{ rowid: number; namespace: string; key: string; field: string; vector: Buffer }>;
    for (const row of rows) {
      const cell = ids[nearestInTree(unit(row.vector, dims), tree, offsets)]!;
      addCell.run({ cell, first: ids[0]!, namespace: row.namespace, key: row.key, field: row.field, vector: row.vector });
    }
    return rows.length === 0 ? last : rows[rows.length - 1]!.rowid;
  });

  const switchOver = db.transaction((dims: number) => {
    retireLive.run(dims);
    goLive.run(dims);
    trained.run(dims);
  });

  /**
   * Every step holds no transaction across a yield, and each write is its own short transaction.
   * Why the new generation ends up holding each vector of the length exactly once: its centroids
   * are inserted in one transaction that also reads the last rowid R of store_vectors. From then
   * on, the insert trigger copies every new vector into it, and the delete trigger removes every
   * deleted vector's copies. The pages then copy the vectors with rowid <= R still there at their
   * turn, skipping those the trigger copied already (a reused rowid); a vector with a rowid above
   * R was written after the centroids, so the trigger copied it. Swapping the generations is one
   * transaction, so a search sees the old live one or the new, complete one.
   */
  function* build(dims: number): Generator<Turn> {
    // Leftovers of a build that did not finish (the process ended) are discarded first.
    yield* write(() => retireBuilding.run(dims));
    yield* dropRetired(dims);
    const now = status.get(dims) as Status | undefined;
    if (!now || !due(now)) return;
    const k = cellCount(now.vectors);
    const every = Math.max(1, Math.floor(now.vectors / (k * SAMPLE_PER_CELL)));
    const sample: Float32Array[] = [];
    for (let after = -1; ; yield) {
      const rows = samplePage.all(dims * 4, every, after, SAMPLE_PAGE) as Array<{ rowid: number; vector: Buffer | null }>;
      if (rows.length === 0) break;
      for (const row of rows) if (row.vector) sample.push(unit(row.vector, dims));
      after = rows[rows.length - 1]!.rowid;
    }
    if (sample.length === 0) return;
    const tree = yield* trainTree(sample, k, dims);
    const offsets = tree.fine.map((_, g) => tree.fine.slice(0, g).reduce((n, f) => n + f.length, 0));
    const centroids = tree.fine.flat();
    const { ids, last } = yield* write(() => addCentroids.immediate(dims, centroids));
    for (let after = -1; after < last; yield) after = yield* write(() => assign.immediate(dims, tree, offsets, ids, after, last));
    yield* write(() => switchOver.immediate(dims));
    yield* dropRetired(dims);
  }

  /** Lengths with a build running in this process: at most one each. */
  const building = new Set<number>();

  return {
    prepare(dims) {
      const now = status.get(dims) as Status | undefined;
      if (!now) return 0;
      if (!building.has(dims) && (due(now) || now.stale > 0)) {
        building.add(dims);
        runInSlices(
          build(dims),
          () => !db.open,
          (err) => {
            building.delete(dims);
            if (err !== undefined && db.open) onProblem(err);
          },
        );
      }
      return now.vectors >= INDEX_MIN_VECTORS && now.live > 0 ? probes(now.live) : 0;
    },
  };
}
