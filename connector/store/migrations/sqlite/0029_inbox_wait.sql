-- WakeWaiters and Waiters find the rows waiting for one thing.
CREATE INDEX IF NOT EXISTS inbox_wait ON inbox (wait_key, wait_kind)
