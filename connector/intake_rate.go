package connector

import (
	"sync/atomic"
	"time"
)

// Booking yields to intake during a burst (issue 13). Against an instant ERPNext a booking job
// is CPU work — the daemon's, the database's — on the cores that also acknowledge webhooks.
// Measured on the 2-core development machine at 1,000 webhooks/s (cmd/benchmark (3)): four
// booking jobs at once put the acknowledgement p99 at 12–52 ms, one at 5.4 ms. The
// acknowledgement is the deadline that matters (Razorpay waits 5 s, retries, and disables a
// webhook that keeps failing); a booking can wait out the burst. So while more than
// worker.intake_first_above webhooks arrived in the last second, only worker 0 claims new
// events; the others finish what they hold and wait (Connector.work). Against a real ERPNext a
// booking mostly waits on the site, and bursts are rare: a flash sale, or Razorpay delivering a
// backlog after an outage — exactly when the acknowledgements must stay fast.

// intakeBuckets × intakeBucket is the window intakeRate counts over: one second.
const (
	intakeBuckets = 10
	intakeBucket  = 100 * time.Millisecond
)

// intakeRate counts the webhooks the intake received (signature verified, duplicates too: they
// cost the same) over the last second of the connector's clock, in ten buckets of 100 ms. add
// is two or three atomic operations and allocates nothing, so the intake stays cheap. The
// count is approximate by design: a webhook counted just as its bucket is reused for a new
// 100 ms may be lost, which only makes the window read a little low.
type intakeRate struct {
	buckets [intakeBuckets]struct {
		epoch atomic.Int64 // the 100 ms period (UnixNano / intakeBucket) the count belongs to
		n     atomic.Int64
	}
}

// add counts one webhook received at now.
func (r *intakeRate) add(now time.Time) {
	e := now.UnixNano() / int64(intakeBucket)
	b := &r.buckets[uint64(e)%intakeBuckets]
	if old := b.epoch.Load(); old != e && b.epoch.CompareAndSwap(old, e) {
		b.n.Store(0)
	}
	b.n.Add(1)
}

// count is the number of webhooks received in the second up to now: the current 100 ms and the
// nine before it.
func (r *intakeRate) count(now time.Time) int64 {
	e := now.UnixNano() / int64(intakeBucket)
	var n int64
	for i := range r.buckets {
		b := &r.buckets[i]
		if d := e - b.epoch.Load(); d >= 0 && d < intakeBuckets {
			n += b.n.Load()
		}
	}
	return n
}

// intakeFirst reports whether the intake is in a burst: more than worker.intake_first_above
// webhooks in the last second (never when the setting is 0).
func (c *Connector) intakeFirst() bool {
	limit := c.cfg.Worker.IntakeFirstAbove
	return limit > 0 && c.intake.count(c.now()) > int64(limit)
}

// yieldRecheck bounds how long a yielding worker waits before it looks at the intake again.
const yieldRecheck = 100 * time.Millisecond
