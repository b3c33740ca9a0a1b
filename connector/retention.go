package connector

import (
	"context"
	"errors"
	"time"
)

// PurgeRawBodies removes the raw webhook bodies (customers' emails and phones) of finished rows
// (done, duplicate, skipped, dismissed) received more than retention.raw_bodies ago; the rows
// and their outcomes stay, so `events list` and `events show` keep working, but such a row can
// no longer be replayed. Parked and dead rows keep their bodies: a person still has to act on
// them. A zero retention keeps bodies forever. It returns how many bodies were removed.
func (c *Connector) PurgeRawBodies(ctx context.Context) (int, error) {
	keep := c.cfg.Retention.RawBodies.D()
	if keep <= 0 {
		return 0, nil
	}
	rs, ok := c.store.(RetentionStore)
	if !ok {
		return 0, errors.New("retention: the store cannot purge raw bodies")
	}
	n, err := rs.PurgeRawBodies(ctx, c.now().Add(-keep))
	if err != nil {
		return 0, err
	}
	c.metrics.purged.Add(float64(n))
	c.metrics.mu.Lock()
	c.metrics.lastPurgeAt = c.now()
	c.metrics.mu.Unlock()
	if n > 0 {
		c.log.Info().Int("purged", n).Dur("older_than", keep).Msg("retention: raw webhook bodies removed")
	}
	return n, nil
}

// RunRetention purges at start and then every interval until ctx ends (the serve command runs
// it next to the workers; every replica may, the UPDATE is idempotent).
func (c *Connector) RunRetention(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = time.Hour
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := c.PurgeRawBodies(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn().Err(err).Msg("retention: purge failed; will retry")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
