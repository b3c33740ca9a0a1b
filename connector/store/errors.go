package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

// ErrNotMigrated is returned by Ping when the database answers but some embedded migration has
// not been applied (run `razorpay-erpnext migrate`).
var ErrNotMigrated = errors.New("store: migrations not applied")

// ErrBusy is returned (wrapped, together with connector.ErrLeaseLost) by SetEventStatus when a
// worker holds the event under a live lease: overwriting the row would make the worker's
// CompleteEvent fail and drop its outcome, which may be a document already booked in ERPNext.
// The person (events replay|dismiss) should look again once the worker is done.
var ErrBusy = errors.New("event is being processed; try again")

// ErrChanged is returned (wrapped) by SetEventStatusFrom when the row's status is no longer the
// one the person decided on: a worker finished it, or someone else replayed or dismissed it.
// Read the row again before deciding.
var ErrChanged = connector.ErrStatusChanged

// Deadlock and busy retries for one store call: a handful of quick attempts; a database that
// stays busy longer is reported as unavailable.
const (
	retryAttempts = 6
	retryBackoff  = 5 * time.Millisecond
)

// unavailable wraps an unexpected database error as connector.ErrStoreUnavailable, naming the
// operation. The driver's message is kept as text (not wrapped) so callers cannot come to depend
// on driver types, and the DSN password is removed from it. Context errors stay inspectable
// with errors.Is.
func (d *DB) unavailable(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		ctxErr := context.Canceled
		if errors.Is(err, context.DeadlineExceeded) {
			ctxErr = context.DeadlineExceeded
		}
		return fmt.Errorf("%w: %s: %w", connector.ErrStoreUnavailable, op, ctxErr)
	}
	if isGuardRefusal(err) {
		return fmt.Errorf("%w: %s: %s", ErrTransition, op, redact.Secrets(err.Error(), d.secret))
	}
	return fmt.Errorf("%w: %s: %s", connector.ErrStoreUnavailable, op, redact.Secrets(err.Error(), d.secret))
}

// retry runs fn, again after a short pause while it fails with a transient error. fn must be
// safe to repeat: one statement, or a transaction that was rolled back.
func retry(ctx context.Context, fn func() error) error {
	return retryCounted(ctx, nil, fn)
}

// retryCounted is retry that adds one to repeats (when not nil) for every repeated call.
func retryCounted(ctx context.Context, repeats *atomic.Uint64, fn func() error) error {
	var err error
	for attempt := 0; attempt < retryAttempts; attempt++ {
		if err = fn(); err == nil || !isTransient(err) {
			return err
		}
		if repeats != nil && attempt+1 < retryAttempts {
			repeats.Add(1)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(retryBackoff << attempt):
		}
	}
	return err
}
