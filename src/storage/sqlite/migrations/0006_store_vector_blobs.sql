-- 0006_store_vector_blobs: store vectors as float32 blobs, sqlite-vec's vector format, so a search
-- scores them with its C distance function instead of unpacking JSON arrays row by row (json_each
-- made a 100k-item search take seconds). Needs sqlite-vec loaded on the connection (open-sqlite.ts).
-- Existing vectors are converted in place; their JSON numbers become the nearest float32.

CREATE TABLE store_vectors_f32 (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  -- The field path the embedded text came from: '$', 'title', or 'tags[*].1' for one of several.
  field TEXT NOT NULL,
  -- Little-endian float32s; a search scores only the vectors of its query's length, so vectors
  -- embedded before a change of store.index.dims rank as unembedded until their item is put again.
  vector BLOB NOT NULL CHECK (length(vector) > 0 AND length(vector) % 4 = 0),
  PRIMARY KEY (namespace, key, field),
  FOREIGN KEY (namespace, key) REFERENCES store_items (namespace, key) ON DELETE CASCADE
);
INSERT INTO store_vectors_f32 (namespace, key, field, vector)
  SELECT namespace, key, field, vec_f32(vector) FROM store_vectors;
DROP TABLE store_vectors;
ALTER TABLE store_vectors_f32 RENAME TO store_vectors;
