-- 0003_store: the long-term store (spec §1.6), one table for the /store API and for graphs'
-- config.store, and the embedding vectors of its items for semantic search.
-- A namespace is one text path, its labels joined with '.', which no label may contain (the API and
-- LangGraph both refuse it). A prefix search by whole labels is then a range on the primary key,
-- namespace = 'a.b' OR namespace >= 'a.b.' AND namespace < 'a.b/' ('/' follows '.' in byte order),
-- so no LIKE pattern is built from user input and '%' and '_' are ordinary characters.

CREATE TABLE store_items (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  -- The same labels as a JSON array, to match labels by position (namespace listing with '*').
  labels TEXT NOT NULL,
  value TEXT NOT NULL,
  -- Kept when a live item is replaced; restarted when an expired one is.
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- Both set or both NULL. expires_at is now + ttl_minutes after every write and refresh; an item
  -- is live while expires_at is NULL or later than the reader's now, whether or not it was swept.
  ttl_minutes REAL,
  expires_at TEXT,
  PRIMARY KEY (namespace, key),
  CHECK ((ttl_minutes IS NULL) = (expires_at IS NULL))
);
CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE store_vectors (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  -- The field path the embedded text came from: '$', 'title', or 'tags[*].1' for one of several.
  field TEXT NOT NULL,
  -- A JSON array of numbers, and its Euclidean norm from write time, so scoring needs no sqrt.
  vector TEXT NOT NULL,
  norm REAL NOT NULL,
  PRIMARY KEY (namespace, key, field),
  FOREIGN KEY (namespace, key) REFERENCES store_items (namespace, key) ON DELETE CASCADE
);
