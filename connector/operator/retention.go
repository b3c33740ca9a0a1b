package operator

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"
)

// PurgeStore is the part of connector.RetentionStore retention uses.
type PurgeStore interface {
	// PurgeRawBodies clears the raw bodies of finished rows received before cutoff and returns
	// how many it cleared (connector.RetentionStore).
	PurgeRawBodies(ctx context.Context, cutoff time.Time) (int, error)
}

// Retention removes the raw webhook bodies (customers' emails and phones) of finished rows.
// Keep is retention.raw_bodies (zero keeps bodies forever); Purged, when set, is told how many
// bodies each successful purge removed (the core's metrics: wire.Core.Retention); Now
// defaults to time.Now.
type Retention struct {
	Store  PurgeStore
	Keep   time.Duration
	Now    func() time.Time
	Log    zerolog.Logger
	Purged func(n int)
}

// PurgeRawBodies removes the raw webhook bodies of finished rows (done, duplicate, skipped,
// dismissed) received more than Keep ago; the rows and their outcomes stay, so `events list`
// and `events show` keep working, but such a row can no longer be replayed. Parked and dead
// rows keep their bodies: a person still has to act on them. A zero Keep keeps bodies forever.
// It returns how many bodies were removed.
func (r Retention) PurgeRawBodies(ctx context.Context) (int, error) {
	if r.Keep <= 0 {
		return 0, nil
	}
	if r.Store == nil {
		return 0, errors.New("retention: the store cannot purge raw bodies")
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	n, err := r.Store.PurgeRawBodies(ctx, now().Add(-r.Keep))
	if err != nil {
		return 0, err
	}
	if r.Purged != nil {
		r.Purged(n)
	}
	if n > 0 {
		r.Log.Info().Int("purged", n).Dur("older_than", r.Keep).Msg("retention: raw webhook bodies removed")
	}
	return n, nil
}

// Run purges at start and then every interval (an hour when not positive) until ctx ends (the
// serve command runs it next to the workers; every replica may, the UPDATE is idempotent).
func (r Retention) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = time.Hour
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := r.PurgeRawBodies(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn().Err(err).Msg("retention: purge failed; will retry")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
