-- report: the run's report as `reconcile --json` prints it (settlement lines left out, long
-- lists cut), written when the run finishes; NULL while it runs and for runs before this column.
ALTER TABLE reconcile_runs ADD COLUMN IF NOT EXISTS report TEXT NULL
