package store

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// reconcileRunRow is a reconcile_runs row as both drivers return it.
type reconcileRunRow struct {
	ID            int64    `db:"id"`
	WindowFrom    dbTime   `db:"window_from"`
	WindowTo      dbTime   `db:"window_to"`
	Scanned       int      `db:"scanned"`
	Queued        int      `db:"queued"`
	SetlQueued    int      `db:"settlements_queued"`
	Booked        int      `db:"booked"`
	AlreadyBooked int      `db:"already_booked"`
	Parked        int      `db:"parked"`
	StartedAt     dbTime   `db:"started_at"`
	FinishedAt    nullTime `db:"finished_at"`
	Error         string   `db:"error"`
}

const reconcileRunColumns = `id, window_from, window_to, scanned, queued, settlements_queued, booked, already_booked, parked,
	started_at, finished_at, error`

// StartReconcileRun inserts a run record with r's window and StartedAt (now when zero), zero
// counts and no FinishedAt, and sets r.ID. Times are stored in UTC at microsecond precision.
func (d *DB) StartReconcileRun(ctx context.Context, r *connector.ReconcileRun) error {
	if r.StartedAt.IsZero() {
		r.StartedAt = d.now()
	}
	r.WindowFrom, r.WindowTo, r.StartedAt = utc(r.WindowFrom), utc(r.WindowTo), utc(r.StartedAt)
	query := `INSERT INTO reconcile_runs (window_from, window_to,
	scanned, booked, already_booked, parked, started_at, finished_at, error) VALUES (?, ?, 0, 0, 0, 0, ?, NULL, '')`
	args := []any{d.arg(r.WindowFrom), d.arg(r.WindowTo), d.arg(r.StartedAt)}
	if d.dl.insertedIDReturned() {
		return d.returning(ctx, "start reconcile run", &r.ID, query+` RETURNING id`, args...)
	}
	res, err := d.execResult(ctx, "start reconcile run", query, args...)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return d.unavailable("start reconcile run: read id", err)
	}
	r.ID = id
	return nil
}

// FinishReconcileRun writes r's counts, FinishedAt (now when nil), Error ("" for a run that
// succeeded) and Report (NULL when nil) to the run r.ID; connector.ErrNotFound when no such run exists.
func (d *DB) FinishReconcileRun(ctx context.Context, r connector.ReconcileRun) error {
	finished := d.now()
	if r.FinishedAt != nil {
		finished = *r.FinishedAt
	}
	n, err := d.exec(ctx, fmt.Sprintf("finish reconcile run %d", r.ID),
		`UPDATE reconcile_runs SET scanned = ?, queued = ?, settlements_queued = ?, booked = ?, already_booked = ?, parked = ?,
		finished_at = ?, error = ?, report = ? WHERE id = ?`, r.Scanned, r.Queued, r.SettlementsQueued, r.Booked, r.AlreadyBooked, r.Parked, d.arg(finished),
		truncateBytes(r.Error, maxLastError), reportArg(r.Report), r.ID)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("reconcile run %d: %w", r.ID, connector.ErrNotFound)
	}
	return nil
}

// ListReconcileRuns returns the latest limit runs (all when limit ≤ 0), newest first.
func (d *DB) ListReconcileRuns(ctx context.Context, limit int) ([]connector.ReconcileRun, error) {
	query := `SELECT ` + reconcileRunColumns + ` FROM reconcile_runs ORDER BY started_at DESC, id DESC`
	var args []any
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	var rows []reconcileRunRow
	if err := d.db.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, d.unavailable("list reconcile runs", err)
	}
	out := make([]connector.ReconcileRun, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.run())
	}
	return out, nil
}

// run is the row as a connector.ReconcileRun (without its report).
func (r reconcileRunRow) run() connector.ReconcileRun {
	return connector.ReconcileRun{
		ID: r.ID, WindowFrom: r.WindowFrom.Time, WindowTo: r.WindowTo.Time, Scanned: r.Scanned,
		Queued: r.Queued, SettlementsQueued: r.SetlQueued, Booked: r.Booked, AlreadyBooked: r.AlreadyBooked, Parked: r.Parked,
		StartedAt: r.StartedAt.Time, FinishedAt: r.FinishedAt.Time, Error: r.Error,
	}
}

// ListBookings returns the rows in state booked created at or after since, oldest first.
func (d *DB) ListBookings(ctx context.Context, since time.Time) ([]connector.Booking, error) {
	var rows []bookingRow
	err := d.db.SelectContext(ctx, &rows, `SELECT `+bookingColumns+` FROM bookings
	WHERE state = ? AND created_at >= ? ORDER BY created_at, business_key`, connector.BookingBooked, d.arg(since))
	if err != nil {
		return nil, d.unavailable("list bookings", err)
	}
	out := make([]connector.Booking, 0, len(rows))
	for i := range rows {
		out = append(out, *rows[i].booking())
	}
	return out, nil
}
