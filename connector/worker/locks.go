package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// LockStore is the part of the store a held lock row uses (connector.Store's AcquireLock and
// ReleaseLock).
type LockStore interface {
	AcquireLock(ctx context.Context, name, owner string, now, expiresAt time.Time) (bool, error)
	ReleaseLock(ctx context.Context, name, owner string) error
}

// Locks holds lock rows for a process — reconcile's, one run at a time over all processes —
// kept alive as a worker keeps its lease: the same ticker (connector.Repeat), the same store.
// It is the worker's because it is I/O on the store, which the domain root does not do.
type Locks struct {
	Store LockStore
	Now   func() time.Time
	Log   zerolog.Logger
}

// Hold takes the named lock row for owner and keeps extending it (every ttl/4) until the
// returned function is called, which releases it. connector.ErrLockHeld when another owner
// holds it. When another owner takes the row over later (this process stalled past ttl), lost
// is called once and extending stops.
func (l Locks) Hold(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (release func(), err error) {
	now := l.Now()
	ok, err := l.Store.AcquireLock(ctx, name, owner, now, now.Add(ttl))
	if err != nil {
		return nil, fmt.Errorf("take lock %s: %w", name, err)
	}
	if !ok {
		return nil, connector.ErrLockHeld
	}
	stop := connector.Repeat(context.WithoutCancel(ctx), ttl/4, func(ctx context.Context) bool {
		now := l.Now()
		if held, err := l.Store.AcquireLock(ctx, name, owner, now, now.Add(ttl)); err == nil && !held {
			l.Log.Warn().Str("lock", name).Msg("lock taken over by another process; stopping")
			lost()
			return false
		}
		return true
	})
	return func() {
		stop()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := l.Store.ReleaseLock(rctx, name, owner); err != nil {
			l.Log.Warn().Err(err).Str("lock", name).Msg("release lock")
		}
	}, nil
}
