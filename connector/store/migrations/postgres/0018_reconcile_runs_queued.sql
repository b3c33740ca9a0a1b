-- queued: what the run queued (inbox rows it added for payments, refunds and Integration
-- Requests); booked is what it then booked itself (a run by hand), 0 for a scheduled run, which
-- leaves booking to the workers. Runs recorded before this column have 0 here.
ALTER TABLE reconcile_runs ADD COLUMN IF NOT EXISTS queued INTEGER NOT NULL DEFAULT 0
