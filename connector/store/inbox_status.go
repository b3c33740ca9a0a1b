package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// SetEventStatus moves the row id to status for a person (events replay|dismiss) and clears
// its lease. StatusPending replays: NextAttemptAt now and Attempts 0. Any other final status
// (dismissed, done, parked, dead, skipped, duplicate) is set as is. A non-empty reason replaces
// LastError; an empty one keeps it. A move to any status but dismissed lifts the row's
// dismissals that hold (lifted_by the lifecycle action). StatusProcessing is refused (it needs a lease);
// connector.ErrNotFound when the row does not exist.
//
// A row that is processing under a lease still live at now (lease_until >= now) is left alone
// and an error wrapping ErrBusy and connector.ErrLeaseLost is returned: the worker holding it
// would otherwise lose its outcome (CompleteEvent fails with ErrLeaseLost), perhaps a booking
// it has just made. A processing row whose lease has ended (its worker died) may be changed.
// The check is part of the UPDATE, so it holds against a worker claiming the row meanwhile.
func (d *DB) SetEventStatus(ctx context.Context, id int64, status connector.Status, reason string, now time.Time) error {
	return d.setEventStatus(ctx, id, "", status, reason, now)
}

// SetEventStatusFrom is SetEventStatus for a decision a person made on the row as it was read:
// it changes the row only while its status is still from, in the same single UPDATE, so a
// replay or dismiss never lands on a row a worker finished meanwhile (a dismissed row whose
// payment was just booked), on one server or on any node of a Galera cluster. When the status
// moved on, nothing changes and the error wraps ErrChanged (and names the status now);
// ErrBusy and connector.ErrNotFound as for SetEventStatus.
func (d *DB) SetEventStatusFrom(ctx context.Context, id int64, from, status connector.Status, reason string, now time.Time) error {
	if from == "" {
		return fmt.Errorf("store: set event %d status: empty expected status", id)
	}
	return d.setEventStatus(ctx, id, from, status, reason, now)
}

// setEventStatus is SetEventStatus, also conditional on the current status when from is set.
func (d *DB) setEventStatus(ctx context.Context, id int64, from, status connector.Status, reason string, now time.Time) error {
	action := connector.ActionCorrect
	if from != "" {
		action = connector.ActionOf(from, status)
	}
	query, args, err := d.statusUpdate(id, from, status, action, reason, now)
	if err != nil {
		return err
	}
	n, err := d.exec(ctx, fmt.Sprintf("set event %d status %s", id, status), query, args...)
	if err != nil {
		return err
	}
	if n > 0 {
		if status == connector.StatusDismissed {
			return nil
		}
		return d.liftRowDismissals(ctx, id, action, now)
	}
	return d.statusUnchanged(ctx, id, from, status, now)
}

// statusUpdate is the one UPDATE of setEventStatus and its arguments: action (written to
// last_action) moves the row to status, from one of the statuses connector.Transitions lets
// action move to status (and from from, when set).
func (d *DB) statusUpdate(id int64, from, status connector.Status, action connector.Action, reason string, now time.Time) (string, []any, error) {
	if status == connector.StatusProcessing || !knownStatus(status) {
		return "", nil, fmt.Errorf("store: set event %d status: cannot set status %q", id, status)
	}
	froms := connector.FromOf(action, status)
	if len(froms) == 0 {
		return "", nil, fmt.Errorf("%w: set event %d status %s by %s", ErrTransition, id, status, action)
	}
	set := []string{"status = ?", "last_action = ?", "lease_owner = ''", "lease_until = NULL", "updated_at = ?"}
	args := []any{status, action, d.arg(now)}
	if status == connector.StatusPending {
		set = append(set, "next_attempt_at = ?", "attempts = 0")
		args = append(args, d.arg(now))
	}
	if reason != "" {
		set = append(set, "last_error = ?")
		args = append(args, truncateBytes(reason, maxLastError))
	}
	where := `id = ? AND NOT (status = ? AND lease_until IS NOT NULL AND lease_until >= ?) AND status IN (` +
		placeholders(len(froms)) + `)`
	args = append(args, id, connector.StatusProcessing, d.arg(now))
	for _, f := range froms {
		args = append(args, f)
	}
	if from != "" {
		where += ` AND status = ?`
		args = append(args, from)
	}
	return `UPDATE inbox SET ` + strings.Join(set, ", ") + ` WHERE ` + where, args, nil
}

// statusUnchanged says why statusUpdate changed no row: connector.ErrNotFound, a live lease
// (ErrBusy, connector.ErrLeaseLost) or a status other than from (ErrChanged).
func (d *DB) statusUnchanged(ctx context.Context, id int64, from, status connector.Status, now time.Time) error {
	var row struct {
		Status     connector.Status `db:"status"`
		LeaseOwner string           `db:"lease_owner"`
		LeaseUntil nullTime         `db:"lease_until"`
	}
	err := d.db.GetContext(ctx, &row, `SELECT status, lease_owner, lease_until FROM inbox WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("event %d: %w", id, connector.ErrNotFound)
	}
	if err != nil {
		return d.unavailable(fmt.Sprintf("set event %d status %s", id, status), err)
	}
	live := row.Status == connector.StatusProcessing && row.LeaseUntil.Time != nil && !row.LeaseUntil.Time.Before(utc(now))
	if live || from == "" {
		return fmt.Errorf("event %d: %w (leased to %s: %w)", id, ErrBusy, row.LeaseOwner, connector.ErrLeaseLost)
	}
	if row.Status == from {
		return fmt.Errorf("%w: event %d: %s → %s", ErrTransition, id, from, status)
	}
	return fmt.Errorf("event %d: %w: it is %s now, not %s", id, ErrChanged, row.Status, from)
}

// markable are the statuses connector.ActionMark moves to duplicate (parked, pending, dead).
var markable = statusArgs(connector.FromOf(connector.ActionMark, connector.StatusDuplicate))

// statusArgs is ss as query arguments.
func statusArgs(ss []connector.Status) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// MarkDuplicates turns the parked, pending and dead rows of businessKey, other than exceptID,
// into StatusDuplicate with LastError "duplicate of <result>" (result names the booked
// document, e.g. "Payment Entry ACC-PAY-2026-00001"). Rows being processed or already final
// are left alone. It returns how many rows changed; 0 for an empty businessKey.
func (d *DB) MarkDuplicates(ctx context.Context, businessKey string, exceptID int64, result string, now time.Time) (int, error) {
	if businessKey == "" {
		return 0, nil
	}
	n, err := d.exec(ctx, "mark duplicates of "+businessKey,
		`UPDATE inbox SET status = ?, last_action = ?, last_error = ?, updated_at = ?
		WHERE business_key = ? AND id <> ? AND status IN (`+placeholders(len(markable))+`) AND event <> ?`,
		append(append([]any{connector.StatusDuplicate, connector.ActionMark, truncateBytes("duplicate of "+result, maxLastError),
			d.arg(now), businessKey, exceptID}, markable...), connector.EventRefundFailed)...)
	return int(n), err
}
