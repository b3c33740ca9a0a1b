package connector

import (
	"context"
	"errors"
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

// ErrLockHeld is returned by a held lock row (worker.Locks.Hold, reconcile.Deps.HoldLock) when
// another owner holds it.
var ErrLockHeld = errors.New("lock row held by another owner")
