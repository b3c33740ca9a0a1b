package connector

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// locker takes the lock row of the ERPNext document a booking is made against, before decide
// reads that document again (DESIGN.md §4 step 6): the worker's claim takes it (writeClaim);
// Explain, which writes nothing, takes none (dryRun).
type locker interface {
	// lockDocument takes the lock row name ("invoice:ACC-SINV-…") for what ("Sales Invoice
	// ACC-SINV-…", for the reason a waiter reads); a waitError when another holds it.
	lockDocument(ctx context.Context, name, what string) error
}

// dryRun is the locker of Explain: nothing is locked, nothing written.
type dryRun struct{}

func (dryRun) lockDocument(context.Context, string, string) error { return nil }

// lockDocument is the one document lock (DESIGN.md §4 step 3): a row in locks, owned by the
// claim, expiring with the write fence, so it covers every process and survives a dropped
// connection. Held by another, the job waits without spending an attempt until the holder
// releases it (unlock wakes the waiters, wake.go), re-polling at most every holderRecheck. A
// claim holds one lock: taking another (the payment named a Payment Request, or a name in
// another case than the site's) lets the first go.
func (w *writeClaim) lockDocument(ctx context.Context, name, what string) error {
	c := w.c
	if w.lock == name {
		return nil
	}
	w.unlock(ctx)
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, name, w.owner, now, now.Add(c.writeFence()))
	if err != nil {
		return failed("lock "+name, err)
	}
	if !ok {
		return &waitError{until: c.holderWait(now.Add(c.writeFence())), on: waitLock(name),
			reason: fmt.Sprintf("waiting for the lock on %s; runs again as soon as it is released", what)}
	}
	w.lock = name
	return nil
}

// unlock releases the document lock, if one is held, and wakes the jobs waiting for it.
func (w *writeClaim) unlock(ctx context.Context) {
	if w.lock == "" {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.c.store.ReleaseLock(rctx, w.lock, w.owner); err == nil {
		w.c.wakeWaiters(rctx, waitLock(w.lock))
	}
	w.lock = ""
}

// repeat calls tick every interval in a goroutine until tick returns false or the returned
// stop function is called; stop waits for the goroutine to end.
func repeat(ctx context.Context, interval time.Duration, tick func(context.Context) bool) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if !tick(ctx) {
					return
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// ErrLockHeld is returned by HoldLock when another owner holds the lock row.
var ErrLockHeld = errors.New("lock row held by another owner")

// HoldLock takes the named lock row for owner and keeps extending it (every ttl/4) until the
// returned function is called, which releases it. ErrLockHeld when another owner holds it.
// When another owner takes the row over later (this process stalled past ttl), lost is called
// once and extending stops.
func (c *Connector) HoldLock(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (release func(), err error) {
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, name, owner, now, now.Add(ttl))
	if err != nil {
		return nil, fmt.Errorf("take lock %s: %w", name, err)
	}
	if !ok {
		return nil, ErrLockHeld
	}
	stop := repeat(context.WithoutCancel(ctx), ttl/4, func(ctx context.Context) bool {
		now := c.now()
		if held, err := c.store.AcquireLock(ctx, name, owner, now, now.Add(ttl)); err == nil && !held {
			c.log.Warn().Str("lock", name).Msg("lock taken over by another process; stopping")
			lost()
			return false
		}
		return true
	})
	return func() {
		stop()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := c.store.ReleaseLock(rctx, name, owner); err != nil {
			c.log.Warn().Err(err).Str("lock", name).Msg("release lock")
		}
	}, nil
}
