-- 0004_crons: scheduled runs (spec §1.5, §2.5). A cron holds its schedule, the run payload its runs
-- start from, and when it fires next; the scheduler creates the run and moves next_run_date on.
-- A cron goes with its assistant or its thread.

CREATE TABLE crons (
  cron_id TEXT COLLATE "C" PRIMARY KEY,
  assistant_id TEXT COLLATE "C" NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
  -- NULL for a stateless cron: each run gets a thread of its own.
  thread_id TEXT COLLATE "C" REFERENCES threads (thread_id) ON DELETE CASCADE,
  -- Stateless crons only ('delete' or 'keep' each run's thread); NULL on thread crons.
  on_run_completed TEXT CHECK (on_run_completed IN ('delete', 'keep')),
  end_time TIMESTAMPTZ,
  schedule TEXT NOT NULL,
  -- IANA time zone the schedule is read in; NULL is UTC.
  timezone TEXT,
  payload JSONB NOT NULL,
  user_id TEXT,
  -- The next occurrence, never after end_time; NULL when none is left.
  next_run_date TIMESTAMPTZ,
  metadata JSONB NOT NULL,
  enabled BOOLEAN NOT NULL,
  -- Incremented by every write. A scheduler owns an occurrence by advancing next_run_date with
  -- the revision it read; a second scheduler, or an update in between, finds it changed (a
  -- timestamp would be a poor token: PostgreSQL keeps microseconds that a Date drops).
  revision INTEGER NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  CHECK (thread_id IS NULL OR on_run_completed IS NULL)
);
-- The scheduler's question: which enabled crons are due.
CREATE INDEX crons_due ON crons (next_run_date) WHERE enabled AND next_run_date IS NOT NULL;
CREATE INDEX crons_assistant ON crons (assistant_id);
CREATE INDEX crons_thread ON crons (thread_id) WHERE thread_id IS NOT NULL;
CREATE INDEX crons_metadata ON crons USING GIN (metadata jsonb_path_ops) WITH (fastupdate = off);
