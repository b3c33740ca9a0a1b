-- last_action: the connector.Action that made the row's current status (claim, complete, replay,
-- …), written by the same UPDATE as the status; the lifecycle guard (triggers the store installs
-- at Migrate from connector.Transitions) refuses a status change whose action does not make it.
-- '' on rows whose status no action has changed yet.
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS last_action TEXT COLLATE "C" NOT NULL DEFAULT ''
