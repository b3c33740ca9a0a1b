package connector

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Repeat calls tick every interval in a goroutine until tick returns false or the returned
// stop function is called; stop waits for the goroutine to end.
func Repeat(ctx context.Context, interval time.Duration, tick func(context.Context) bool) (stop func()) {
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
	stop := Repeat(context.WithoutCancel(ctx), ttl/4, func(ctx context.Context) bool {
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
