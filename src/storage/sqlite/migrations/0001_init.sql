-- 0001_init: assistants with their version history, and threads.
-- JSON columns hold JSON text; timestamps are ISO-8601 UTC text with milliseconds, so text order
-- is time order.

CREATE TABLE assistants (
  assistant_id TEXT PRIMARY KEY,
  graph_id TEXT NOT NULL,
  config TEXT NOT NULL,
  context TEXT NOT NULL,
  metadata TEXT NOT NULL,
  -- The current version; a row with this number always exists in assistant_versions.
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX assistants_created_at ON assistants (created_at);
CREATE INDEX assistants_updated_at ON assistants (updated_at);
CREATE INDEX assistants_graph_id ON assistants (graph_id);

-- Every version ever written; versions are never rewritten, only added.
CREATE TABLE assistant_versions (
  assistant_id TEXT NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  graph_id TEXT NOT NULL,
  config TEXT NOT NULL,
  context TEXT NOT NULL,
  metadata TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (assistant_id, version)
);

CREATE TABLE threads (
  thread_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  state_updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('idle', 'busy', 'interrupted', 'error')),
  config TEXT NOT NULL,
  -- NULL until the thread has state.
  "values" TEXT,
  interrupts TEXT NOT NULL,
  error TEXT,
  -- The three TTL columns are all NULL or all set.
  ttl_strategy TEXT CHECK (ttl_strategy IN ('delete', 'keep_latest')),
  ttl_minutes REAL,
  expires_at TEXT
);
CREATE INDEX threads_created_at ON threads (created_at);
CREATE INDEX threads_updated_at ON threads (updated_at);
CREATE INDEX threads_state_updated_at ON threads (state_updated_at);
CREATE INDEX threads_status ON threads (status, updated_at);
CREATE INDEX threads_expires_at ON threads (expires_at) WHERE expires_at IS NOT NULL;

-- SQLite cannot index JSON containment, so the top-level string and boolean metadata values of
-- each thread are mirrored here by triggers; metadata searches use it to narrow the candidates
-- before the exact containment check runs.
CREATE TABLE thread_metadata_keys (
  key TEXT NOT NULL,
  -- The value as JSON text: '"alice"', 'true', 'false'.
  value TEXT NOT NULL,
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  PRIMARY KEY (key, value, thread_id)
) WITHOUT ROWID;
CREATE INDEX thread_metadata_keys_thread ON thread_metadata_keys (thread_id);

CREATE TRIGGER threads_metadata_after_insert AFTER INSERT ON threads BEGIN
  INSERT INTO thread_metadata_keys (key, value, thread_id)
  SELECT j.key, CASE j.type WHEN 'text' THEN json_quote(j.value) ELSE j.type END, NEW.thread_id
  FROM json_each(NEW.metadata) AS j
  WHERE j.type IN ('text', 'true', 'false');
END;

CREATE TRIGGER threads_metadata_after_update AFTER UPDATE OF metadata ON threads BEGIN
  DELETE FROM thread_metadata_keys WHERE thread_id = NEW.thread_id;
  INSERT INTO thread_metadata_keys (key, value, thread_id)
  SELECT j.key, CASE j.type WHEN 'text' THEN json_quote(j.value) ELSE j.type END, NEW.thread_id
  FROM json_each(NEW.metadata) AS j
  WHERE j.type IN ('text', 'true', 'false');
END;
