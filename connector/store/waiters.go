package store

import (
	"context"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Waits that end when something else happens (issue 10 defect 2): a row whose outcome named
// what it waits for (connector.Outcome.WaitFor, the wait_for column) is woken by whoever ends
// the wait — the worker releasing a claim or a lock row, a receipt being booked, a reconcile
// run — through the store, so a waiter on one replica is woken by a holder on another.

// wakeable are the statuses connector.ActionWake moves to pending (pending, parked, dead).
var wakeable = statusArgs(connector.FromOf(connector.ActionWake, connector.StatusPending))

// WakeWaiters ends the wait of every row whose wait_for is waitFor or one of more, in one UPDATE
// (safe on any Galera node: it changes only rows still waiting when it runs). A pending row becomes due at
// now unless it is due earlier; a parked or dead row goes back to pending, due now, with its
// attempts and last_error kept (the next outcome replaces the reason). wait_for is cleared.
// Rows processing or in any other status are left alone. It returns how many rows changed; 0
// for an empty waitFor (empty values in more are ignored).
func (d *DB) WakeWaiters(ctx context.Context, waitFor string, now time.Time, more ...string) (int, error) {
	if waitFor == "" {
		return 0, nil
	}
	waits := []any{waitFor}
	for _, w := range more {
		if w != "" && w != waitFor {
			waits = append(waits, w)
		}
	}
	// next_attempt_at is assigned before status: MariaDB evaluates SET left to right with the
	// values already assigned, so the CASE must still see the row's own status.
	n, err := d.exec(ctx, "wake waiters for "+waitFor,
		`UPDATE inbox SET
		next_attempt_at = CASE WHEN status = ? AND next_attempt_at < ? THEN next_attempt_at ELSE ? END,
		status = ?, last_action = ?, wait_for = '', updated_at = ?
		WHERE wait_for IN (`+placeholders(len(waits))+`) AND status IN (`+placeholders(len(wakeable))+`)`,
		append(append([]any{connector.StatusPending, d.arg(now), d.arg(now), connector.StatusPending, connector.ActionWake, d.arg(now)},
			waits...), wakeable...)...)
	return int(n), err
}

// Waiters returns the rows whose wait_for is waitFor and whose status is one of statuses (any
// status when none is given), oldest first (received_at, then id); empty for an empty waitFor.
func (d *DB) Waiters(ctx context.Context, waitFor string, statuses ...connector.Status) ([]connector.InboxEvent, error) {
	if waitFor == "" {
		return []connector.InboxEvent{}, nil
	}
	query := `SELECT ` + eventColumns + ` FROM inbox WHERE wait_for = ?`
	args := []any{waitFor}
	if len(statuses) > 0 {
		query += ` AND status IN (?` + strings.Repeat(", ?", len(statuses)-1) + `)`
		for _, s := range statuses {
			args = append(args, s)
		}
	}
	return d.selectEvents(ctx, "list waiters for "+waitFor, query+` ORDER BY received_at, id`, args...)
}
