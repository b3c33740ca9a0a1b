-- WakeWaiters and Waiters find the rows waiting for one thing.
CREATE INDEX IF NOT EXISTS inbox_wait_for ON inbox (wait_for)
