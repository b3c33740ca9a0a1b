package wire

import (
	"context"
	"time"
)

// Ready reports whether this process can take webhooks and work: the store answers with
// migrations applied and takes a write (a disk full or a read-only file answers reads but
// refuses writes, and a webhook is acknowledged only once stored), and work is not paused by a
// configuration fault. status is "ready", "store unavailable", "store not writable" or
// "paused" (with reason). The write is the lock row "readyz:<probe>", taken and released.
func (c *Core) Ready(ctx context.Context) (ok bool, status, reason string) {
	if err := c.store.Ping(ctx); err != nil {
		return false, "store unavailable", ""
	}
	now := c.now()
	name := "readyz:" + c.probe
	if _, err := c.store.AcquireLock(ctx, name, c.probe, now, now.Add(time.Minute)); err != nil {
		return false, "store not writable", ""
	}
	_ = c.store.ReleaseLock(ctx, name, c.probe)
	if paused, why := c.Paused(); paused {
		return false, "paused", why
	}
	return true, "ready", ""
}
