package store

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

var _ connector.RetentionStore = (*DB)(nil)

// purgeable are the statuses whose rows need nothing more, so their raw body may go: booked
// (done), a duplicate of a booked row, skipped (not ours to book) and dismissed by a person.
// Pending and processing rows still have to be booked, and parked and dead rows wait for a
// person, who may replay them, which needs the body.
// They are the statuses connector.ActionPurge accepts.
var purgeable = statusArgs(connector.Accepts(connector.ActionPurge))

// PurgeRawBodies sets raw_body to NULL on rows received before cutoff whose status is finished
// and needs nothing more (done, duplicate, skipped, dismissed) and that still hold a body; the
// rest of the row stays (DESIGN.md §7 retention.raw_bodies). Pending, processing, parked and
// dead rows keep their body however old. It returns how many rows changed.
func (d *DB) PurgeRawBodies(ctx context.Context, cutoff time.Time) (int, error) {
	args := append([]any{d.arg(d.now()), d.arg(cutoff)}, purgeable...)
	n, err := d.exec(ctx, "purge raw bodies",
		`UPDATE inbox SET raw_body = NULL, updated_at = ?
		WHERE received_at < ? AND raw_body IS NOT NULL AND status IN (`+placeholders(len(purgeable))+`)`, args...)
	return int(n), err
}

// OldestPending returns received_at of the oldest row that is pending or processing.
func (d *DB) OldestPending(ctx context.Context) (time.Time, bool, error) {
	var t nullTime
	err := d.db.GetContext(ctx, &t, `SELECT MIN(received_at) FROM inbox WHERE status IN (?, ?)`,
		connector.StatusPending, connector.StatusProcessing)
	if err != nil {
		return time.Time{}, false, d.unavailable("oldest pending event", err)
	}
	if t.Time == nil {
		return time.Time{}, false, nil
	}
	return *t.Time, true, nil
}

// LastReconcileSuccess returns the latest finished_at of reconcile_runs with an empty error.
func (d *DB) LastReconcileSuccess(ctx context.Context) (time.Time, bool, error) {
	var t nullTime
	err := d.db.GetContext(ctx, &t, `SELECT MAX(finished_at) FROM reconcile_runs WHERE finished_at IS NOT NULL AND error = ''`)
	if err != nil {
		return time.Time{}, false, d.unavailable("last reconcile success", err)
	}
	if t.Time == nil {
		return time.Time{}, false, nil
	}
	return *t.Time, true, nil
}
