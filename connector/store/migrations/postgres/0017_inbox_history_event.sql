-- EventHistory: one event's entries in order.
CREATE INDEX IF NOT EXISTS inbox_history_event ON inbox_history (inbox_id, id)
