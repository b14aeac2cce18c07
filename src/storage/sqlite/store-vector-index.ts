// The IVF index of the store's vectors on SQLite (0007_store_vector_index.sql): spherical k-means
// centroids per vector length, trained here on a sample of the stored vectors when a search first
// needs them and again when the store has grown a lot since; each vector is copied under its
// nearest centroid's cell (by triggers for every later write). A search scores the vectors of the
// cells nearest its query instead of all of them: approximate, with the recall measured in
// docs/benchmarks.md, so the adapter uses it only for large unfiltered searches.
import type Database from "better-sqlite3";

/** Below this many vectors in the searched prefix, an exact scan costs a few ms and is used instead. */
export const INDEX_MIN_VECTORS = 4096;
/** Retrain once the vectors of a length are this many times what the centroids were trained on. */
const RETRAIN_GROWTH = 4;
/** k-means runs on at most this many vectors per centroid; more barely moves the centroids. */
const SAMPLE_PER_CELL = 32;
const ITERATIONS = 6;
/** Rows read per statement while copying vectors into cells. */
const PAGE = 2000;
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

/** Spherical k-means from evenly spaced seeds, so the same vectors always give the same centroids. */
function kmeans(sample: Float32Array[], k: number, dims: number): Float32Array[] {
  let centroids = Array.from({ length: k }, (_, c) => Float32Array.from(sample[Math.floor((c * sample.length) / k)]!));
  for (let round = 0; round < ITERATIONS; round++) {
    const sums = Array.from({ length: k }, () => new Float64Array(dims));
    for (const v of sample) {
      const sum = sums[nearest(v, centroids)]!;
      for (let i = 0; i < dims; i++) sum[i]! += v[i]!;
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

function trainTree(sample: Float32Array[], k: number, dims: number): Tree {
  const coarse = kmeans(sample, Math.max(1, Math.min(sample.length, Math.round(Math.sqrt(k)))), dims);
  const groups = coarse.map((): Float32Array[] => []);
  for (const v of sample) groups[nearest(v, coarse)]!.push(v);
  const fine = groups.map((group, g) =>
    group.length === 0 ? [coarse[g]!] : kmeans(group, Math.max(1, Math.min(group.length, Math.round((k * group.length) / sample.length))), dims),
  );
  return { coarse, fine };
}

/** The index among the tree's fine centroids, flattened in group order. */
function nearestInTree(v: Float32Array, tree: Tree, offsets: number[]): number {
  const g = nearest(v, tree.coarse);
  return offsets[g]! + nearest(v, tree.fine[g]!);
}

const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

interface Counts {
  vectors: number;
  trained_on: number;
}

export interface StoreVectorIndex {
  /** The number of lists to probe for vectors of `dims`, training first if due; 0 when there is no index. */
  prepare(dims: number): number;
}

export function storeVectorIndex(db: Database.Database): StoreVectorIndex {
  const counts = db.prepare("SELECT vectors, trained_on FROM store_vector_counts WHERE dims = ?");
  const cells = db.prepare("SELECT count(*) AS n FROM store_vector_centroids WHERE dims = ?").pluck();
  const page = db.prepare("SELECT rowid, namespace, key, field, vector FROM store_vectors WHERE rowid > ? AND length(vector) = ? ORDER BY rowid LIMIT ?");
  const sampled = db.prepare("SELECT vector FROM store_vectors WHERE length(vector) = ? AND rowid % ? = 0").pluck();
  const dropCells = db.prepare(`DELETE FROM store_vector_cells WHERE id >= ? * ${CELL_SPAN} AND id < (? + 1) * ${CELL_SPAN}`);
  const oldCells = db.prepare("SELECT cell FROM store_vector_centroids WHERE dims = ?").pluck();
  const dropCentroids = db.prepare("DELETE FROM store_vector_centroids WHERE dims = ?");
  const addCentroid = db.prepare("INSERT INTO store_vector_centroids (dims, centroid) VALUES (?, ?)");
  const addCell = db.prepare(`INSERT INTO store_vector_cells (id, namespace, key, field, vector) VALUES (? * ${CELL_SPAN} + ?, ?, ?, ?, ?)`);
  const trained = db.prepare("UPDATE store_vector_counts SET trained_on = ? WHERE dims = ?");

  const train = db.transaction((dims: number) => {
    const { vectors } = counts.get(dims) as Counts;
    const k = cellCount(vectors);
    const every = Math.max(1, Math.floor(vectors / (k * SAMPLE_PER_CELL)));
    const sample = (sampled.all(dims * 4, every) as Buffer[]).map((b) => unit(b, dims));
    const tree = trainTree(sample, k, dims);
    const offsets = tree.fine.map((_, g) => tree.fine.slice(0, g).reduce((n, f) => n + f.length, 0));
    for (const cell of oldCells.all(dims) as number[]) dropCells.run(cell, cell);
    dropCentroids.run(dims);
    const ids = tree.fine.flat().map((c) => Number(addCentroid.run(dims, blob(c)).lastInsertRowid));
    const filled = new Array<number>(ids.length).fill(0);
    for (let after = -1; ; ) {
      const rows = page.all(after, dims * 4, PAGE) as Array<{ rowid: number; namespace: string; key: string; field: string; vector: Buffer }>;
      if (rows.length === 0) break;
      for (const row of rows) {
        const c = nearestInTree(unit(row.vector, dims), tree, offsets);
        addCell.run(ids[c], ++filled[c]!, row.namespace, row.key, row.field, row.vector);
      }
      after = rows[rows.length - 1]!.rowid;
    }
    trained.run(vectors, dims);
  });

  return {
    prepare(dims) {
      const count = counts.get(dims) as Counts | undefined;
      if (!count || count.vectors < INDEX_MIN_VECTORS) return 0;
      if (count.trained_on === 0 || count.vectors >= count.trained_on * RETRAIN_GROWTH) train.immediate(dims);
      return probes(cells.get(dims) as number);
    },
  };
}
