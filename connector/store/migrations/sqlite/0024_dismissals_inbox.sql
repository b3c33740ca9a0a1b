-- A replay or rebook of a row lifts the dismissals of that row.
CREATE INDEX IF NOT EXISTS dismissals_inbox ON dismissals (inbox_id)
