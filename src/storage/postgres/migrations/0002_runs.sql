-- 0002_runs: runs are queue rows. A worker claims a pending run under a lease and heartbeats it;
-- a run whose lease ran out is requeued by the sweeper and resumes from its last checkpoint.
-- Every change to which run of a thread is pending or running happens with the thread's row
-- locked, so enqueue, claim, finish, cancel and the sweeper serialise per thread across processes.

CREATE TABLE runs (
  run_id TEXT COLLATE "C" PRIMARY KEY,
  -- Arrival order; runs of one thread start in this order. Enqueues on one thread hold its row
  -- lock, so within a thread the order values are drawn in is also the order they commit in.
  seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  thread_id TEXT COLLATE "C" NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  assistant_id TEXT COLLATE "C" NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'running', 'error', 'success', 'timeout', 'interrupted')),
  metadata JSONB NOT NULL,
  kwargs JSONB NOT NULL,
  multitask_strategy TEXT CHECK (multitask_strategy IN ('reject', 'interrupt', 'rollback', 'enqueue')),
  -- A pending run is not claimed before this time (after_seconds).
  available_at TIMESTAMPTZ NOT NULL,
  -- Attempts started so far; a requeued run resumes with attempt + 1.
  attempt INTEGER NOT NULL DEFAULT 0,
  -- Set exactly while status = 'running'.
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  -- A cancel asked of a running run; the worker that holds it acts on it.
  cancel_action TEXT CHECK (cancel_action IN ('interrupt', 'rollback')),
  CHECK ((status = 'running') = (lease_owner IS NOT NULL) AND (lease_owner IS NULL) = (lease_until IS NULL))
);
-- The claim walks pending runs in (available_at, seq) order; nextAvailableAt reads its first entry.
CREATE INDEX runs_pending ON runs (available_at, seq) WHERE status = 'pending';
-- A thread's queue: its first pending run, and the inflight runs enqueue and cancel act on.
CREATE INDEX runs_inflight ON runs (thread_id, seq) WHERE status IN ('pending', 'running');
-- Listing a thread's runs newest first, and the cascade when a thread is deleted.
CREATE INDEX runs_thread ON runs (thread_id, seq);
-- At most one run of a thread executes at a time. The claim already keeps to this; the index
-- makes a second running run an error instead of a silent overlap.
CREATE UNIQUE INDEX runs_one_running_per_thread ON runs (thread_id) WHERE status = 'running';
-- The sweeper looks for running runs whose lease ran out.
CREATE INDEX runs_running_lease ON runs (lease_until) WHERE status = 'running';
