package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Waits that end when something else happens: a row whose outcome named what it waits for
// (connector.Outcome.WaitFor, the wait_kind and wait_key columns) is woken by whoever ends the
// wait — the worker releasing a claim or a lock row, a receipt being booked, a reconcile run —
// through the store, so a waiter on one replica is woken by a holder on another.

// wakeable are the statuses connector.ActionWake moves to pending (pending, parked, dead).
var wakeable = statusArgs(connector.FromOf(connector.ActionWake, connector.StatusPending))

// waitMatch is the condition and arguments of the rows waiting for one of waits, one
// (wait_key, wait_kind) pair each, the zero Wait and repeats left out.
func waitMatch(waits []connector.Wait) (string, []any) {
	var terms []string
	var args []any
	var kept []connector.Wait
	for _, w := range waits {
		if w.IsZero() || slices.Contains(kept, w) {
			continue
		}
		kept = append(kept, w)
		terms = append(terms, `(wait_key = ? AND wait_kind = ?)`)
		args = append(args, w.Key, string(w.Kind))
	}
	return `(` + strings.Join(terms, ` OR `) + `)`, args
}

// WakeWaiters ends the wait of every row that waits for waitFor or one of more, in one UPDATE
// (safe on any Galera node: it changes only rows still waiting when it runs). A pending row
// becomes due at now unless it is due earlier; a parked or dead row goes back to pending, due
// now, with its attempts and last_error kept (the next outcome replaces the reason). The wait
// is cleared. Rows processing or in any other status are left alone. It returns how many rows
// changed; 0 for the zero Wait (zero values in more are ignored).
func (d *DB) WakeWaiters(ctx context.Context, waitFor connector.Wait, now time.Time, more ...connector.Wait) (int, error) {
	if waitFor.IsZero() {
		return 0, nil
	}
	match, waitArgs := waitMatch(append([]connector.Wait{waitFor}, more...))
	// next_attempt_at is assigned before status: MariaDB evaluates SET left to right with the
	// values already assigned, so the CASE must still see the row's own status.
	n, err := d.exec(ctx, "wake waiters for "+waitFor.String(),
		`UPDATE inbox SET
		next_attempt_at = CASE WHEN status = ? AND next_attempt_at < ? THEN next_attempt_at ELSE ? END,
		status = ?, last_action = ?, wait_kind = '', wait_key = '', updated_at = ?
		WHERE `+match+` AND status IN (`+placeholders(len(wakeable))+`)`,
		append(append([]any{connector.StatusPending, d.arg(now), d.arg(now), connector.StatusPending, connector.ActionWake, d.arg(now)},
			waitArgs...), wakeable...)...)
	return int(n), err
}

// Waiters returns the rows that wait for waitFor and whose status is one of statuses (any
// status when none is given), oldest first (received_at, then id); empty for the zero Wait.
func (d *DB) Waiters(ctx context.Context, waitFor connector.Wait, statuses ...connector.Status) ([]connector.InboxEvent, error) {
	if waitFor.IsZero() {
		return []connector.InboxEvent{}, nil
	}
	query := `SELECT ` + eventColumns + ` FROM inbox WHERE wait_key = ? AND wait_kind = ?`
	args := []any{waitFor.Key, string(waitFor.Kind)}
	if len(statuses) > 0 {
		query += ` AND status IN (?` + strings.Repeat(", ?", len(statuses)-1) + `)`
		for _, s := range statuses {
			args = append(args, s)
		}
	}
	return d.selectEvents(ctx, "list waiters for "+waitFor.String(), query+` ORDER BY received_at, id`, args...)
}
