package store

import (
	"context"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// This file holds the read of the reconcile report saved with its run (reconcile_runs.report),
// which the console shows: the same on every replica and after a restart.

// reportArg is a report as FinishReconcileRun binds it: NULL for none, else its JSON as text
// (reconcile_runs.report is a text column on every driver).
func reportArg(report []byte) any {
	if report == nil {
		return nil
	}
	return string(report)
}

// LastReconcileReport returns the latest run (by started_at, then id) that saved a report,
// with ReconcileRun.Report set to it; ok is false when no run has one (none finished yet, or
// every run predates the column). A run still running has no report, so the one before it is
// returned. Errors wrap connector.ErrStoreUnavailable.
func (d *DB) LastReconcileReport(ctx context.Context) (run connector.ReconcileRun, ok bool, err error) {
	var rows []struct {
		reconcileRunRow
		Report string `db:"report"`
	}
	err = d.db.SelectContext(ctx, &rows, `SELECT `+reconcileRunColumns+`, report FROM reconcile_runs
		WHERE report IS NOT NULL ORDER BY started_at DESC, id DESC LIMIT 1`)
	if err != nil {
		return run, false, d.unavailable("last reconcile report", err)
	}
	if len(rows) == 0 {
		return run, false, nil
	}
	run = rows[0].run()
	run.Report = []byte(rows[0].Report)
	return run, true, nil
}
