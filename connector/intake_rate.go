package connector

import (
	"sync/atomic"
	"time"
)

// The intake's rate (issue 13): how many verified webhooks reached Receive in the last second,
// on the connector's clock. While it is above worker.intake_first_above only worker 0 claims
// events (worker.go): booking against a fast ERPNext is CPU-bound, and on a small machine every
// booking job in flight competes with the webhook acknowledgements, whose deadline (Razorpay's
// 5 s, a webhook disabled after repeated failures) matters more than a booking's.

const (
	rateBucket    = 100 * time.Millisecond // one bucket of the window
	rateBuckets   = 10                     // rateBuckets × rateBucket = the one-second window
	rateCountBits = 24                     // a bucket's count, saturating at 16,777,215 (167 million/s)
	rateCountMax  = 1<<rateCountBits - 1
	rateSlotMask  = 1<<(64-rateCountBits) - 1 // a bucket's slot: its 100 ms of time since 1970, 40 bits
)

// intakeRate counts events in a sliding one-second window: a ring of rateBuckets buckets of
// rateBucket each, a bucket one uint64 holding its slot (the time divided by rateBucket) in the
// high 40 bits and its count in the low 24. add costs one load and one compare-and-swap when
// nobody else adds at the same instant: no lock, no allocation. An event counts from when it
// is added until its bucket leaves the window, 0.9 to 1 s later (the window is the current
// bucket and the nine before it). The zero value is an empty window.
type intakeRate struct {
	buckets [rateBuckets]atomic.Uint64
}

// rateSlot is the window slot of t: the 100 ms interval since the Unix epoch t falls in,
// modulo 2^40 (a slot number wraps after 3,484 years; ages are computed modulo the same).
func rateSlot(t time.Time) uint64 {
	return uint64(t.UnixNano()/int64(rateBucket)) & rateSlotMask
}

// add counts one event at now. A bucket that holds an older slot (a second or more ago) is
// reset to this one; an event older than what its bucket holds already (a clock that moved
// back by a second or more, or a caller that stalled that long between reading the clock and
// counting) is dropped: it would be out of the window anyway.
func (r *intakeRate) add(now time.Time) {
	slot := rateSlot(now)
	b := &r.buckets[slot%rateBuckets]
	for {
		old := b.Load()
		next := slot<<rateCountBits | 1
		switch held := old >> rateCountBits; {
		case held == slot && old&rateCountMax == rateCountMax:
			return // saturated
		case held == slot:
			next = old + 1
		case (held-slot)&rateSlotMask < 1<<39:
			return // the bucket holds a later slot: this event is out of its window
		}
		if b.CompareAndSwap(old, next) {
			return
		}
	}
}

// lastSecond is the number of events added in the window that ends at now: the bucket of now
// and the nine before it. Buckets of slots after now's (a clock moved back) are not counted.
func (r *intakeRate) lastSecond(now time.Time) int {
	slot := rateSlot(now)
	n := 0
	for i := range r.buckets {
		v := r.buckets[i].Load()
		if age := (slot - v>>rateCountBits) & rateSlotMask; age < rateBuckets {
			n += int(v & rateCountMax)
		}
	}
	return n
}

// above reports whether more than limit events were added in the window ending at now; never
// when limit is 0 or less (worker.intake_first_above 0 turns yielding off).
func (r *intakeRate) above(now time.Time, limit int) bool {
	return limit > 0 && r.lastSecond(now) > limit
}
