-- 0006_store_vector_reals: store vectors as real[] (float4) instead of float8[]. A 256-dimension
-- vector then takes 1 KiB and stays inside its row instead of going to TOAST, which halves what
-- a search reads; float4 is also what embedding models produce and what pgvector's `vector` holds.
-- Existing vectors are converted in place, each number rounded to the nearest float4.
-- A search scores only the vectors of its query's length: vectors embedded before a change of
-- store.index.dims rank as unembedded until their item is put again.
-- A later migration can index this column with pgvector without moving any data, e.g.
--   CREATE INDEX ... ON store_vectors USING hnsw ((vector::vector(256)) vector_cosine_ops)
--   WHERE cardinality(vector) = 256;
-- (docs/decisions.md); until then a search scores every vector its filters leave.

ALTER TABLE store_vectors ALTER COLUMN vector TYPE REAL[] USING vector::real[];
