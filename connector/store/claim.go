package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// ClaimNextEvent leases the next due event to owner until now+lease, sets it processing and
// returns it; nil, nil when nothing is due. Due means a processing row whose lease ended before
// now (its worker died; these are taken first, oldest lease first) or else a pending row with
// NextAttemptAt <= now (by NextAttemptAt, then id). Attempts is not changed: CompleteEvent
// counts attempts.
//
// It is one short transaction: on MariaDB a SELECT … FOR UPDATE SKIP LOCKED read in index
// order, so concurrent claimers in any process lock and skip only the rows they claim, then
// an UPDATE; on SQLite an immediate transaction, which holds the single write lock.
func (d *DB) ClaimNextEvent(ctx context.Context, owner string, now time.Time, lease time.Duration) (*connector.InboxEvent, error) {
	if owner == "" || len(owner) > maxOwner {
		return nil, fmt.Errorf("store: claim event: owner must be 1 to %d characters", maxOwner)
	}
	if lease <= 0 {
		return nil, fmt.Errorf("store: claim event: lease %v is not positive", lease)
	}
	var claimed *connector.InboxEvent
	err := retry(ctx, func() error {
		var err error
		claimed, err = d.claimNext(ctx, owner, now, now.Add(lease))
		return err
	})
	if err != nil {
		return nil, d.unavailable("claim event for "+owner, err)
	}
	return claimed, nil
}

func (d *DB) claimNext(ctx context.Context, owner string, now, until time.Time) (*connector.InboxEvent, error) {
	tx, err := d.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit

	id, err := d.pickDue(ctx, tx, now)
	if err != nil || id == 0 {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE inbox SET status = ?, lease_owner = ?, lease_until = ?, updated_at = ? WHERE id = ?`,
		connector.StatusProcessing, owner, d.arg(until), d.arg(now), id); err != nil {
		return nil, err
	}
	var r eventRow
	if err := tx.GetContext(ctx, &r, `SELECT `+eventColumns+` FROM inbox WHERE id = ?`, id); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return r.event(), nil
}

// pickDue returns the id of the next due row, locked for this transaction, or 0. Each query
// reads one index (inbox_lease, inbox_due) in its ORDER BY order, so MariaDB stops at the
// first row it can lock instead of locking every due row and sorting.
func (d *DB) pickDue(ctx context.Context, tx *sqlx.Tx, now time.Time) (int64, error) {
	lock := ""
	if d.mysql() {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	queries := []string{
		`SELECT id FROM inbox WHERE status = ? AND lease_until < ? ORDER BY lease_until, id LIMIT 1` + lock,
		`SELECT id FROM inbox WHERE status = ? AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 1` + lock,
	}
	statuses := []connector.Status{connector.StatusProcessing, connector.StatusPending}
	for i, q := range queries {
		var id int64
		err := tx.GetContext(ctx, &id, q, statuses[i], d.arg(now))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		return id, err
	}
	return 0, nil
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
// LastError, ResultDoctype and ResultName as given (all replaced), Attempts+1 when
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
		`UPDATE inbox SET status = ?, attempts = attempts + ?, next_attempt_at = COALESCE(?, next_attempt_at),
		lease_owner = '', lease_until = NULL, last_error = ?, result_doctype = ?, result_name = ?, updated_at = ?
		WHERE id = ? AND status = ? AND lease_owner = ?`,
		o.Status, attempt, next, truncateBytes(o.LastError, maxLastError), o.ResultDoctype, o.ResultName,
		d.arg(now), id, connector.StatusProcessing, owner)
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
