-- ListEvents: newest first, optionally since a time.
CREATE INDEX IF NOT EXISTS inbox_received ON inbox (received_at)
