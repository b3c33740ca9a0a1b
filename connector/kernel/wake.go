package kernel

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// HolderWait is when a waiter for a holder whose claim or lock lasts until fence runs again:
// at the fence or after HolderRecheck, whichever comes first, plus up to a second at random.
func (c *Kernel) HolderWait(fence time.Time) time.Time {
	until := c.now().Add(connector.HolderRecheck)
	if fence.Before(until) {
		until = fence
	}
	return until.Add(time.Duration(rand.Int64N(int64(time.Second))))
}

// WakeWaiters ends the waits for waitFor and more (Store.WakeWaiters, one statement) and wakes
// an idle worker of this process when some row became due. A failure is logged: the waiters
// re-poll anyway.
func (c *Kernel) WakeWaiters(ctx context.Context, waitFor connector.Wait, more ...connector.Wait) int {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	n, err := c.store.WakeWaiters(wctx, waitFor, c.now(), more...)
	if err != nil {
		c.log.Warn().Err(err).Stringer("wait_for", waitFor).Msg("wake waiters")
		return 0
	}
	if n > 0 {
		c.wakeIdle()
	}
	return n
}
