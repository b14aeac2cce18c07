-- 0005_webhooks: the run-completion webhook outbox. A row is written in the transaction that
-- finishes its run; delivery loops on any process claim due rows under a lease (FOR UPDATE SKIP
-- LOCKED) and record every attempt.

CREATE TABLE webhook_deliveries (
  -- Sent as the webhook-id header, unchanged across retries.
  delivery_id TEXT PRIMARY KEY,
  -- No foreign key: the run may be deleted (rollback, temporary thread) while its webhook is pending.
  run_id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- The body as of the run's end, without webhook_sent_at (stamped per attempt).
  payload JSONB NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- A pending delivery is not attempted before this time (retry backoff).
  next_attempt_at TIMESTAMPTZ NOT NULL,
  -- Set while an attempt is under way; a lease that ran out makes the delivery claimable again.
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_run ON webhook_deliveries (run_id);
