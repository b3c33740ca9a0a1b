-- ListEvents filtered by status, newest first.
CREATE INDEX IF NOT EXISTS inbox_status_received ON inbox (status, received_at)
