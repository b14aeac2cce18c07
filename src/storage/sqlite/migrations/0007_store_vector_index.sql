-- 0007_store_vector_index: an inverted-file (IVF) index of the store's vectors, so a ranked search
-- over a large namespace prefix scores a few lists of similar vectors instead of every vector and
-- every item (docs/decisions.md "Semantic store search: an IVF index on SQLite"). store_vectors
-- stays the source of truth; the tables here are derived from it and kept in step by triggers, in
-- the transaction of each write. Training the centroids is done by store-vector-index.ts.

-- The lists: one unit-length centroid per cell, per vector length (dims) in the store.
CREATE TABLE store_vector_centroids (
  cell INTEGER PRIMARY KEY,
  dims INTEGER NOT NULL,
  centroid BLOB NOT NULL
);
CREATE INDEX store_vector_centroids_dims ON store_vector_centroids (dims);

-- How many vectors of each length the store holds, and how many there were when its centroids
-- were trained (0: untrained), so a search knows without counting when to train or retrain.
CREATE TABLE store_vector_counts (
  dims INTEGER PRIMARY KEY,
  vectors INTEGER NOT NULL,
  trained_on INTEGER NOT NULL DEFAULT 0
);
INSERT INTO store_vector_counts (dims, vectors) SELECT length(vector) / 4, count(*) FROM store_vectors GROUP BY 1;

-- A copy of each vector under its nearest centroid's cell. The rowid is cell * 2^32 + a number
-- within the cell, so a cell's vectors lie next to each other in the table's B-tree and a search
-- reads each probed list as one range of pages.
CREATE TABLE store_vector_cells (
  id INTEGER PRIMARY KEY,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  field TEXT NOT NULL,
  vector BLOB NOT NULL
);
CREATE INDEX store_vector_cells_item ON store_vector_cells (namespace, key, field);

-- Without centroids for the vector's length the inner SELECT is empty and nothing is copied.
CREATE TRIGGER store_vectors_indexed AFTER INSERT ON store_vectors
BEGIN
  INSERT INTO store_vector_cells (id, namespace, key, field, vector)
    SELECT (SELECT COALESCE(MAX(c.id), nearest.cell * 4294967296) + 1 FROM store_vector_cells AS c
              WHERE c.id >= nearest.cell * 4294967296 AND c.id < (nearest.cell + 1) * 4294967296),
           new.namespace, new.key, new.field, new.vector
    FROM (SELECT cell FROM store_vector_centroids WHERE dims = length(new.vector) / 4
          ORDER BY vec_distance_cosine(centroid, new.vector) LIMIT 1) AS nearest;
  INSERT INTO store_vector_counts (dims, vectors) VALUES (length(new.vector) / 4, 1)
    ON CONFLICT (dims) DO UPDATE SET vectors = vectors + 1;
END;

-- Fires for the cascade from store_items too (item deletes, TTL sweeps).
CREATE TRIGGER store_vectors_unindexed AFTER DELETE ON store_vectors
BEGIN
  DELETE FROM store_vector_cells WHERE namespace = old.namespace AND key = old.key AND field = old.field;
  UPDATE store_vector_counts SET vectors = vectors - 1 WHERE dims = length(old.vector) / 4;
END;
