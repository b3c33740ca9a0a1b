-- FindEvents looks rows up by event id alone (the admin does not type the account id).
CREATE INDEX IF NOT EXISTS inbox_event_id ON inbox (event_id)
