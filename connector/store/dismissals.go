package store

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// The dismissals (table dismissals): a person's decision that a row's payment is never booked,
// with who, why and when. A dismissal is inserted in the transaction that moves its row to
// dismissed (SetEventStatusBy) and lifted, never deleted, when a person replays or rebooks the
// row or another receipt event of the payment: lifted_by and lifted_at say who and when, and the
// row stays as the record of both decisions. Whether a payment is dismissed is read here, never
// from the text of inbox.last_error.

// maxDismissalReason bounds the reason of a dismissal, in bytes (as a row's LastError).
const maxDismissalReason = maxLastError

// recordDismissal is the dismissals' part of a person's status change of row id from from to
// status (h the history entry, At set): a dismissal (HistoryDismissed) inserts the row's
// dismissal; a move to any status but dismissed lifts the row's dismissals that hold.
func (d *DB) recordDismissal(ctx context.Context, tx *txn, id int64, from, status connector.Status, h connector.HistoryEntry) error {
	switch {
	case status == connector.StatusDismissed && from != connector.StatusDismissed && h.Action == connector.HistoryDismissed:
		_, err := tx.ExecContext(ctx, `INSERT INTO dismissals (inbox_id, event_id, event, business_key, actor, reason, at)
			SELECT id, event_id, event, business_key, ?, ?, ? FROM inbox WHERE id = ?`,
			truncateBytes(h.Actor, maxHistoryActor), truncateBytes(h.Detail, maxDismissalReason), d.arg(h.At), id)
		return err
	case status != connector.StatusDismissed:
		_, err := tx.ExecContext(ctx, `UPDATE dismissals SET lifted_by = ?, lifted_at = ? WHERE inbox_id = ? AND lifted_at IS NULL`,
			truncateBytes(h.Actor, maxHistoryActor), d.arg(h.At), id)
		return err
	}
	return nil
}

// liftRowDismissals lifts the dismissals of row id that hold, for a change of its status that no
// person's history entry records (SetEventStatus, SetEventStatusFrom): lifted_by names action.
func (d *DB) liftRowDismissals(ctx context.Context, id int64, action connector.Action, now time.Time) error {
	_, err := d.exec(ctx, fmt.Sprintf("lift the dismissals of event %d", id),
		`UPDATE dismissals SET lifted_by = ?, lifted_at = ? WHERE inbox_id = ? AND lifted_at IS NULL`, string(action), d.arg(now), id)
	return err
}

// dismissalRow is a dismissals row as every driver returns it.
type dismissalRow struct {
	ID          int64    `db:"id"`
	InboxID     int64    `db:"inbox_id"`
	EventID     string   `db:"event_id"`
	Event       string   `db:"event"`
	BusinessKey string   `db:"business_key"`
	Actor       string   `db:"actor"`
	Reason      string   `db:"reason"`
	At          dbTime   `db:"at"`
	LiftedBy    string   `db:"lifted_by"`
	LiftedAt    nullTime `db:"lifted_at"`
}

// Dismissals returns the dismissals of businessKey, held and lifted, ordered by the row
// dismissed and then by dismissal; none for an empty key.
func (d *DB) Dismissals(ctx context.Context, businessKey string) ([]connector.Dismissal, error) {
	if businessKey == "" {
		return nil, nil
	}
	var rows []dismissalRow
	err := d.selectContext(ctx, &rows, `SELECT id, inbox_id, event_id, event, business_key, actor, reason, at, lifted_by, lifted_at
		FROM dismissals WHERE business_key = ? ORDER BY inbox_id, id`, businessKey)
	if err != nil {
		return nil, d.unavailable("dismissals of "+businessKey, err)
	}
	out := make([]connector.Dismissal, 0, len(rows))
	for _, r := range rows {
		out = append(out, connector.Dismissal{ID: r.ID, InboxID: r.InboxID, EventID: r.EventID, Event: r.Event,
			BusinessKey: r.BusinessKey, Actor: r.Actor, Reason: r.Reason, At: r.At.Time, LiftedBy: r.LiftedBy, LiftedAt: r.LiftedAt.Time})
	}
	return out, nil
}

// LiftDismissal lifts dismissal dm (lifted_by by, lifted_at now) and, while its row is still
// dismissed, sets the row's last_error to reason by the lifecycle's lift (dismissed →
// dismissed), in one transaction. A row that is no longer dismissed keeps its text; a dismissal
// lifted already is left as it is.
func (d *DB) LiftDismissal(ctx context.Context, dm connector.Dismissal, by, reason string, now time.Time) error {
	query, args, err := d.statusUpdate(dm.InboxID, connector.StatusDismissed, connector.StatusDismissed, connector.ActionLift, reason, now)
	if err != nil {
		return err
	}
	err = retry(ctx, func() error {
		tx, err := d.db.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // no-op after Commit
		res, err := tx.ExecContext(ctx, `UPDATE dismissals SET lifted_by = ?, lifted_at = ? WHERE id = ? AND lifted_at IS NULL`,
			truncateBytes(by, maxHistoryActor), d.arg(now), dm.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // lifted already: the row's text says so
		}
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return d.unavailable(fmt.Sprintf("lift dismissal %d of event %d", dm.ID, dm.InboxID), err)
	}
	return nil
}
