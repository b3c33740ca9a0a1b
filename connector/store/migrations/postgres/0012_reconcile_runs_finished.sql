-- LastReconcileSuccess (every /metrics scrape): the latest finished run.
CREATE INDEX IF NOT EXISTS reconcile_runs_finished ON reconcile_runs (finished_at)
