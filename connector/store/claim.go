package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// ClaimNextEvent leases the next due event to owner until now+lease, sets it processing and
// returns it; nil, nil when nothing is due. Due means a processing row whose lease ended before
// now (its worker died; these are taken first, oldest lease first) or else a pending row with
// NextAttemptAt <= now (by NextAttemptAt, then id). Attempts is not changed: CompleteEvent
// counts attempts.
//
// The claim itself is one conditional statement per candidate (DESIGN.md §10):
// UPDATE … WHERE id = ? AND (pending and due, or processing with its lease ended), kept only when
// it matched the row. Candidates are found by one plain SELECT reading both indexes in their
// order (inbox_lease, then inbox_due: dueCandidatesQuery); a claimer that loses a candidate to
// another one tries the next. No row lock is
// held between reading and writing, so the claim is exact on single-server MariaDB, on SQLite
// and on a multi-writer Galera cluster, where a SELECT … FOR UPDATE on one node does not stop
// a worker on another node from updating the same row. Deadlock victims
// and Galera certification failures (both error 1213, the statement changed nothing) are
// retried and counted, as are lost candidates: see ClaimRetries.
func (d *DB) ClaimNextEvent(ctx context.Context, owner string, now time.Time, lease time.Duration) (*connector.InboxEvent, error) {
	if owner == "" || len(owner) > maxOwner {
		return nil, fmt.Errorf("store: claim event: owner must be 1 to %d characters", maxOwner)
	}
	if lease <= 0 {
		return nil, fmt.Errorf("store: claim event: lease %v is not positive", lease)
	}
	claimed, err := d.claimNext(ctx, owner, utc(now), utc(now.Add(lease)))
	if err != nil {
		return nil, d.unavailable("claim event for "+owner, err)
	}
	return claimed, nil
}

// Candidates read per SELECT, and SELECT rounds before a claimer that keeps losing every
// candidate to others gives up for this call (it reports nothing due; the worker polls again).
const (
	claimCandidates = 8
	claimRounds     = 32
)

func (d *DB) claimNext(ctx context.Context, owner string, now, until time.Time) (*connector.InboxEvent, error) {
	for round := 0; round < claimRounds; round++ {
		ids, err := d.dueCandidates(ctx, now)
		if err != nil || len(ids) == 0 {
			return nil, err
		}
		for _, id := range ids {
			if d.beforeClaim != nil {
				d.beforeClaim(id)
			}
			won, err := d.claimRow(ctx, id, owner, now, until)
			if err != nil {
				return nil, err
			}
			if !won {
				d.claimStats.lost.Add(1)
				continue
			}
			ev, err := d.claimedRow(ctx, id, owner, until)
			if err != nil || ev != nil {
				return ev, err
			}
			d.claimStats.lost.Add(1) // taken over in between: only after our lease ended
		}
	}
	return nil, nil
}

// dueCandidatesQuery finds the due rows in one statement: the expired leases (pri 0, by
// lease_until, id, through inbox_lease) before the due pending rows (pri 1, by next_attempt_at,
// id, through inbox_due). Each arm is a derived table with its own ORDER BY and LIMIT, so it
// reads only the first rows of its index range (MariaDB does not merge a derived table that has
// a LIMIT, and SQLite's compound SELECT cannot otherwise limit one arm); the outer ORDER BY
// sorts at most twice claimCandidates rows.
const dueCandidatesQuery = `SELECT id, pri, at FROM (
	SELECT id, 0 AS pri, lease_until AS at FROM inbox WHERE status = ? AND lease_until < ? ORDER BY lease_until, id LIMIT ?
) AS expired
UNION ALL
SELECT id, pri, at FROM (
	SELECT id, 1 AS pri, next_attempt_at AS at FROM inbox WHERE status = ? AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
) AS due
ORDER BY pri, at, id LIMIT ?`

// dueCandidate is a row of dueCandidatesQuery.
type dueCandidate struct {
	ID  int64  `db:"id"`
	Pri int    `db:"pri"`
	At  dbTime `db:"at"`
}

// dueCandidates returns up to claimCandidates ids of due rows, expired leases first, in one
// statement that locks nothing (dueCandidatesQuery).
func (d *DB) dueCandidates(ctx context.Context, now time.Time) ([]int64, error) {
	var rows []dueCandidate
	err := d.retryClaim(ctx, func() error {
		rows = rows[:0]
		return d.db.SelectContext(ctx, &rows, d.dl.dueCandidatesQuery(),
			connector.StatusProcessing, d.arg(now), claimCandidates,
			connector.StatusPending, d.arg(now), claimCandidates, claimCandidates)
	})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids, nil
}

// claimRow is the claim: one UPDATE whose WHERE repeats what makes the row due, so it matches
// (RowsAffected 1) for exactly one claimer however many race for the row.
func (d *DB) claimRow(ctx context.Context, id int64, owner string, now, until time.Time) (bool, error) {
	var n int64
	err := d.retryClaim(ctx, func() error {
		// last_action is assigned before status: MariaDB evaluates SET left to right with the
		// values already assigned, so the CASE must still see the row's own status.
		res, err := d.execContext(ctx, `UPDATE inbox SET last_action = CASE WHEN status = ? THEN ? ELSE ? END,
		status = ?, lease_owner = ?, lease_until = ?, updated_at = ?
		WHERE id = ? AND ((status = ? AND next_attempt_at <= ?) OR (status = ? AND lease_until < ?))`,
			connector.StatusProcessing, connector.ActionTakeover, connector.ActionClaim,
			connector.StatusProcessing, owner, d.arg(until), d.arg(now),
			id, connector.StatusPending, d.arg(now), connector.StatusProcessing, d.arg(now))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

// claimedRow reads back the row owner has just claimed; nil when it is no longer leased to
// owner until `until` (a later claimer took it over after that lease ended).
func (d *DB) claimedRow(ctx context.Context, id int64, owner string, until time.Time) (*connector.InboxEvent, error) {
	var r eventRow
	err := d.retryClaim(ctx, func() error {
		return d.db.GetContext(ctx, &r, `SELECT `+eventColumns+` FROM inbox WHERE id = ?`, id)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ev := r.event()
	if ev.Status != connector.StatusProcessing || ev.LeaseOwner != owner || ev.LeaseUntil == nil || !ev.LeaseUntil.Equal(until) {
		return nil, nil
	}
	return ev, nil
}

// ClaimRetries counts, since the store was opened, what made ClaimNextEvent try again:
// conflicts are statements the database refused because they lost a race with another writer
// (MariaDB deadlock victims and Galera certification failures, both error 1213; SQLite busy),
// repeated after a short pause; lost are candidates another claimer took first (the
// conditional UPDATE matched no row), after which the next candidate is tried. Neither is an
// error: with replicas writing to several Galera nodes, conflicts rise with contention.
func (d *DB) ClaimRetries() (conflicts, lost uint64) {
	return d.claimStats.conflicts.Load(), d.claimStats.lost.Load()
}

// claimCounters are the live counters behind ClaimRetries.
type claimCounters struct {
	conflicts, lost atomic.Uint64
}

// retryClaim is retry for the claim's statements, counting every repeated statement.
func (d *DB) retryClaim(ctx context.Context, fn func() error) error {
	return retryCounted(ctx, &d.claimStats.conflicts, fn)
}

// ExtendLease moves the lease of event id held by owner to until. It returns an error wrapping
// connector.ErrLeaseLost when the row is not processing under owner (another worker took it
// over, or it was completed or replayed), also wrapping connector.ErrNotFound when the row does
// not exist. A lease that has ended but was not taken over is still owner's.
func (d *DB) ExtendLease(ctx context.Context, id int64, owner string, until time.Time) error {
	n, err := d.exec(ctx, fmt.Sprintf("extend lease of event %d", id),
		`UPDATE inbox SET lease_until = ? WHERE id = ? AND status = ? AND lease_owner = ?`,
		d.arg(until), id, connector.StatusProcessing, owner)
	if err != nil {
		return err
	}
	if n == 0 {
		return d.leaseLost(ctx, id, owner)
	}
	return nil
}

// CompleteEvent writes outcome o for event id held by owner and clears the lease: status,
// LastError, ResultDoctype, ResultName and WaitFor as given (all replaced), Attempts+1 when
// o.CountAttempt, and for StatusPending NextAttemptAt = o.NextAttemptAt (now when zero); other
// statuses keep NextAttemptAt. o.Status may be any status but processing. ErrLeaseLost (and
// ErrNotFound) as for ExtendLease.
func (d *DB) CompleteEvent(ctx context.Context, id int64, owner string, now time.Time, o connector.Outcome) error {
	if o.Status == connector.StatusProcessing || !knownStatus(o.Status) {
		return fmt.Errorf("store: complete event %d: cannot complete with status %q", id, o.Status)
	}
	var next any // NULL keeps next_attempt_at
	if o.Status == connector.StatusPending {
		at := o.NextAttemptAt
		if at.IsZero() {
			at = now
		}
		next = d.arg(at)
	}
	attempt := 0
	if o.CountAttempt {
		attempt = 1
	}
	n, err := d.exec(ctx, fmt.Sprintf("complete event %d as %s", id, o.Status),
		`UPDATE inbox SET status = ?, last_action = ?, attempts = attempts + ?, next_attempt_at = COALESCE(?, next_attempt_at),
		lease_owner = '', lease_until = NULL, last_error = ?, result_doctype = ?, result_name = ?, updated_at = ?,
		wait_kind = ?, wait_key = ?
		WHERE id = ? AND status = ? AND lease_owner = ?`,
		o.Status, connector.ActionComplete, attempt, next, truncateBytes(o.LastError, maxLastError), o.ResultDoctype, o.ResultName,
		d.arg(now), truncateRunes(string(o.WaitFor.Kind), maxWaitKind), truncateRunes(o.WaitFor.Key, maxWaitKey), id,
		connector.StatusProcessing, owner)
	if err != nil {
		return err
	}
	if n == 0 {
		return d.leaseLost(ctx, id, owner)
	}
	return nil
}

// leaseLost builds the error for a lease update that matched no row.
func (d *DB) leaseLost(ctx context.Context, id int64, owner string) error {
	if _, err := d.GetEvent(ctx, id); errors.Is(err, connector.ErrNotFound) {
		return fmt.Errorf("%w: event %d: %w", connector.ErrLeaseLost, id, connector.ErrNotFound)
	} else if err != nil {
		return err
	}
	return fmt.Errorf("%w: event %d is no longer leased to %s", connector.ErrLeaseLost, id, owner)
}
