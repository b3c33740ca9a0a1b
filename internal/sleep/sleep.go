// Package sleep waits a duration unless a context ends first: the one context-aware sleep of
// the worker, reconcile, the API clients' shared pace, the simulators and the benchmark. It is a
// leaf and knows neither API.
package sleep

import (
	"context"
	"time"
)

// For waits d, or until ctx ends. It returns nil when d has passed and ctx.Err() when ctx ended
// first; a d of zero or less does not wait and returns ctx.Err() (nil while ctx is live).
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Until waits until the wall clock reads t, or until ctx ends, as For(ctx, time.Until(t)).
func Until(ctx context.Context, t time.Time) error {
	return For(ctx, time.Until(t))
}
