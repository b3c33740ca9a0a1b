package connector

import (
	"time"
)

// Waits that end when something else happens (DESIGN.md §4 step 7: "the waiter runs again as
// soon as the holder lets go"). A job that waits for another worker's claim or lock row, or a
// refund that waits (or parks) for its payment's receipt, or a settlement that waits for its
// payments and refunds, names what it waits for in its outcome (Outcome.WaitFor). Whoever ends
// the wait — the holder releasing its claim or lock, the receipt or refund being booked —
// wakes those rows through the store, so a waiter on another replica
// is woken too; this process's idle workers are woken at once, other replicas' within their
// worker.poll. Until then a waiter sleeps, and it re-polls at most every HolderRecheck: a wake
// lost to a crash between the release and the wake-up costs that much, no more. A waiter looks
// again once its outcome is written (recheckWait, worker.go), in case the holder let go before.

// HolderRecheck bounds how long a waiter for another worker's claim or lock row sleeps without
// being woken. Only the holder's ambiguous write (its fence) or its crash keeps a waiter waiting
// longer than the holder's own work; each re-poll is a few statements of the store.
const HolderRecheck = 30 * time.Second

// What a row waits for (Outcome.WaitFor): another worker's claim or lock row, a payment's
// receipt booked (a refund, a settlement), a refund booked (a settlement).
func WaitBooking(key string) Wait     { return Wait{WaitOnBooking, key} }
func WaitLock(name string) Wait       { return Wait{WaitOnLock, name} }
func WaitReceipt(payment string) Wait { return Wait{WaitOnReceipt, payment} }
func WaitRefund(refund string) Wait   { return Wait{WaitOnRefund, refund} }

// WaitBooked is what waits for the booking of key of kind (KindReceipt or KindRefund) to be
// recorded: the kernel's record wakes it.
func WaitBooked(kind, key string) Wait {
	if kind == KindRefund {
		return WaitRefund(key)
	}
	return WaitReceipt(key)
}
