package connector

// WaitKind is what kind of thing a row waits for (Wait.Kind; the inbox's wait_kind column).
type WaitKind string

// The kinds of wait. Each names what ends it, and so who wakes the row (Store.WakeWaiters).
const (
	WaitOnBooking   WaitKind = "booking"   // another worker's claim on the business key Key: its release or booking
	WaitOnLock      WaitKind = "lock"      // another worker's lock row Key: its release
	WaitOnReceipt   WaitKind = "receipt"   // the receipt of payment Key booked (a refund, a settlement)
	WaitOnRefund    WaitKind = "refund"    // refund Key booked (a settlement)
	WaitOnReconcile WaitKind = "reconcile" // the next reconcile run (a dead row whose last failure was transient); Key ""
)

// Wait is what a row waits for (Outcome.WaitFor, InboxEvent.WaitFor), stored as two columns
// (wait_kind, wait_key) and never parsed from text. The zero Wait waits for nothing.
type Wait struct {
	Kind WaitKind
	Key  string // a business key, lock name, payment or refund id; "" for WaitOnReconcile
}

// IsZero reports whether w waits for nothing.
func (w Wait) IsZero() bool { return w == Wait{} }

// String is w for logs and messages: "kind:key", "reconcile", "" for none.
func (w Wait) String() string {
	if w.Key == "" {
		return string(w.Kind)
	}
	return string(w.Kind) + ":" + w.Key
}

// WaitReconcile is the wait of a dead row whose last failure was transient (a 5xx, a timeout,
// a connection failure, the store): the next reconcile run sends it back to pending.
var WaitReconcile = Wait{Kind: WaitOnReconcile}
