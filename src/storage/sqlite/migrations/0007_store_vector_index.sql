-- 0007_store_vector_index: an inverted-file (IVF) index of the store's vectors, so a ranked search
-- over a large namespace prefix scores a few lists of similar vectors instead of every vector and
-- every item (docs/decisions.md "Semantic store search: an IVF index on SQLite"). store_vectors
-- stays the source of truth; the tables here are derived from it and kept in step by triggers, in
-- the transaction of each write. Training the centroids and building the lists are done by
-- store-vector-index.ts, in the background and in short steps.

-- The lists: one unit-length centroid per cell, per vector length (dims) in the store. A length
-- has at most one live generation of cells (state 1, the one searches probe) and one being built
-- (state 0, filled by the build and, meanwhile, by the triggers below); a generation replaced by
-- a newer one is retired (state -1) until the build has deleted its cells. AUTOINCREMENT: a cell
-- number is never reused, so a new generation's cells cannot meet a retired one's leftover rows.
CREATE TABLE store_vector_centroids (
  cell INTEGER PRIMARY KEY AUTOINCREMENT,
  dims INTEGER NOT NULL,
  state INTEGER NOT NULL CHECK (state IN (-1, 0, 1)),
  centroid BLOB NOT NULL
);
CREATE INDEX store_vector_centroids_dims ON store_vector_centroids (dims, state);

-- How many vectors of each length the store holds, and how many there were when its centroids
-- went live (0: never), so a search knows without counting when to start a build.
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

-- One copy per generation in use, live (1) and being built (0), under that generation's nearest
-- centroid; a generation with no centroids of the vector's length has no nearest cell and gets none.
CREATE TRIGGER store_vectors_indexed AFTER INSERT ON store_vectors
BEGIN
  INSERT INTO store_vector_cells (id, namespace, key, field, vector)
    SELECT (SELECT COALESCE(MAX(c.id), nearest.cell * 4294967296) + 1 FROM store_vector_cells AS c
              WHERE c.id >= nearest.cell * 4294967296 AND c.id < (nearest.cell + 1) * 4294967296),
           new.namespace, new.key, new.field, new.vector
    FROM (SELECT (SELECT cell FROM store_vector_centroids WHERE dims = length(new.vector) / 4 AND state = generation.state
                  ORDER BY vec_distance_cosine(centroid, new.vector) LIMIT 1) AS cell
          FROM (SELECT 1 AS state UNION ALL SELECT 0) AS generation) AS nearest
    WHERE nearest.cell IS NOT NULL;
  INSERT INTO store_vector_counts (dims, vectors) VALUES (length(new.vector) / 4, 1)
    ON CONFLICT (dims) DO UPDATE SET vectors = vectors + 1;
END;

-- Fires for the cascade from store_items too (item deletes, TTL sweeps); removes the vector's copy
-- in every generation.
CREATE TRIGGER store_vectors_unindexed AFTER DELETE ON store_vectors
BEGIN
  DELETE FROM store_vector_cells WHERE namespace = old.namespace AND key = old.key AND field = old.field;
  UPDATE store_vector_counts SET vectors = vectors - 1 WHERE dims = length(old.vector) / 4;
END;
