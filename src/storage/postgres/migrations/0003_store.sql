-- 0003_store: the long-term store (spec §1.6), one table for the /store API and for graphs'
-- config.store, and the embedding vectors of its items for semantic search.
-- A namespace is one text path, its labels joined with '.', which no label may contain (the API and
-- LangGraph both refuse it). In the "C" collation a prefix search by whole labels is a range on the
-- primary key, namespace = 'a.b' OR namespace >= 'a.b.' AND namespace < 'a.b/' ('/' follows '.'),
-- so no LIKE pattern is built from user input and '%' and '_' are ordinary characters.
-- Vectors are float8 arrays scored in SQL rather than pgvector columns: pgvector is an extension
-- many PostgreSQL installs lack, and requiring it would stop the store from working without it.

CREATE TABLE store_items (
  namespace TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  -- The same labels as an array, to match labels by position (namespace listing with '*').
  labels TEXT[] COLLATE "C" GENERATED ALWAYS AS (string_to_array(namespace, '.')) STORED,
  value JSONB NOT NULL,
  -- Kept when a live item is replaced; restarted when an expired one is.
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  -- Both set or both NULL. expires_at is now + ttl_minutes after every write and refresh; an item
  -- is live while expires_at is NULL or later than the reader's now, whether or not it was swept.
  ttl_minutes DOUBLE PRECISION,
  expires_at TIMESTAMPTZ,
  PRIMARY KEY (namespace, key),
  CHECK ((ttl_minutes IS NULL) = (expires_at IS NULL))
);
CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX store_items_value ON store_items USING GIN (value jsonb_path_ops) WITH (fastupdate = off);

CREATE TABLE store_vectors (
  namespace TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  -- The field path the embedded text came from: '$', 'title', or 'tags[*].1' for one of several.
  field TEXT COLLATE "C" NOT NULL,
  -- The vector and its Euclidean norm from write time, so scoring needs no square root per row.
  vector DOUBLE PRECISION[] NOT NULL,
  norm DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (namespace, key, field),
  FOREIGN KEY (namespace, key) REFERENCES store_items (namespace, key) ON DELETE CASCADE
);
