-- settlements_queued: settlements the run queued (counted apart from payments and refunds).
ALTER TABLE reconcile_runs ADD COLUMN IF NOT EXISTS settlements_queued INTEGER NOT NULL DEFAULT 0
