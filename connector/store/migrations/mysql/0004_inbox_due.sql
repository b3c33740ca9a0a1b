-- ClaimNextEvent: pending rows in due order, read in index order so SKIP LOCKED locks one row.
CREATE INDEX IF NOT EXISTS inbox_due ON inbox (status, next_attempt_at)
