-- ClaimNextEvent: pending rows in due order.
CREATE INDEX IF NOT EXISTS inbox_due ON inbox (status, next_attempt_at)
