-- 0002_runs: runs are queue rows. A worker claims a pending run under a lease and heartbeats it;
-- a run whose lease ran out is requeued by the sweeper and resumes from its last checkpoint.

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  -- Arrival order; runs of one thread start in this order.
  seq INTEGER NOT NULL UNIQUE,
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  assistant_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'error', 'success', 'timeout', 'interrupted')),
  metadata TEXT NOT NULL,
  kwargs TEXT NOT NULL,
  multitask_strategy TEXT,
  -- A pending run is not claimed before this time (after_seconds).
  available_at TEXT NOT NULL,
  -- Attempts started so far; a requeued run resumes with attempt + 1.
  attempt INTEGER NOT NULL DEFAULT 0,
  -- Set exactly while status = 'running'.
  lease_owner TEXT,
  lease_until TEXT,
  -- A cancel asked of a running run; the worker that holds it acts on it.
  cancel_action TEXT CHECK (cancel_action IN ('interrupt', 'rollback'))
);
CREATE INDEX runs_pending ON runs (available_at, seq) WHERE status = 'pending';
CREATE INDEX runs_thread ON runs (thread_id, status, seq);
CREATE INDEX runs_running_lease ON runs (lease_until) WHERE status = 'running';
