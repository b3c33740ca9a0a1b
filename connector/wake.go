package connector

import (
	"context"
	"math/rand/v2"
	"time"
)

// Waits that end when something else happens (DESIGN.md §4 step 7: "the waiter runs again as
// soon as the holder lets go"). A job that waits for another worker's claim or lock row, or a
// refund that waits (or parks) for its payment's receipt, or a settlement that waits for its
// payments and refunds, names what it waits for in its outcome (Outcome.WaitFor). Whoever ends
// the wait — the holder releasing its claim or lock, the receipt or refund being booked —
// wakes those rows through the store, so a waiter on another replica
// is woken too; this process's idle workers are woken at once, other replicas' within their
// worker.poll. Until then a waiter sleeps, and it re-polls at most every holderRecheck: a wake
// lost to a crash between the release and the wake-up costs that much, no more. A waiter looks
// again once its outcome is written (recheckWait, worker.go), in case the holder let go before.

// holderRecheck bounds how long a waiter for another worker's claim or lock row sleeps without
// being woken. Only the holder's ambiguous write (its fence) or its crash keeps a waiter waiting
// longer than the holder's own work; each re-poll is a few statements of the store.
const holderRecheck = 30 * time.Second

// What a row waits for: another worker's claim or lock row, a payment's receipt booked (a
// refund, a settlement), a refund booked (a settlement).
func waitBooking(key string) Wait     { return Wait{WaitOnBooking, key} }
func waitLock(name string) Wait       { return Wait{WaitOnLock, name} }
func waitReceipt(payment string) Wait { return Wait{WaitOnReceipt, payment} }
func waitRefund(refund string) Wait   { return Wait{WaitOnRefund, refund} }

// waitBooked is what waits for the booking of key of kind (KindReceipt or KindRefund) to be
// recorded: record wakes it (apply.go).
func waitBooked(kind, key string) Wait {
	if kind == KindRefund {
		return waitRefund(key)
	}
	return waitReceipt(key)
}

// holderWait is when a waiter for a holder whose claim or lock lasts until fence runs again:
// at the fence or after holderRecheck, whichever comes first, plus up to a second at random.
func (c *Connector) holderWait(fence time.Time) time.Time {
	until := c.now().Add(holderRecheck)
	if fence.Before(until) {
		until = fence
	}
	return until.Add(time.Duration(rand.Int64N(int64(time.Second))))
}

// wakeWaiters ends the waits for waitFor and more (Store.WakeWaiters, one statement) and wakes
// an idle worker of this process when some row became due. A failure is logged: the waiters
// re-poll anyway.
func (c *Connector) wakeWaiters(ctx context.Context, waitFor Wait, more ...Wait) int {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	n, err := c.store.WakeWaiters(wctx, waitFor, c.now(), more...)
	if err != nil {
		c.log.Warn().Err(err).Stringer("wait_for", waitFor).Msg("wake waiters")
		return 0
	}
	if n > 0 {
		c.Wake()
	}
	return n
}
