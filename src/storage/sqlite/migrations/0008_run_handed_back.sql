-- 0008_run_handed_back: how many of a run's attempts its worker handed back on purpose (the
-- database went away mid-run, or the worker was shutting down). Each attempt still takes a new
-- number, the fencing token of its writes, but only attempts lost without a word (a lapsed lease)
-- count against BG_JOB_MAX_ATTEMPTS: a flapping network must not end a healthy run in error.
ALTER TABLE runs ADD COLUMN handed_back INTEGER NOT NULL DEFAULT 0;
