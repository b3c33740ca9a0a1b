package connector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// writeClaim is a business-key claim (a bookings row in flight, DESIGN.md §4 step 3) held for
// one booking job, with the write discipline every job follows: take a slot of
// erpnext.max_concurrency, fence before writing, keep the claim and lock after an ambiguous
// write, release them otherwise.
type writeClaim struct {
	c        *Connector
	ev       *InboxEvent
	key      string // payment or refund id
	owner    string
	kind     string // KindReceipt or KindRefund
	amount   int64  // minor units of currency
	currency string
	// keep is set when an ambiguous write leaves the claim (and document lock) in place until
	// the fence passes, so the next attempt's lookup finds a late commit.
	keep bool
}

func (c *Connector) newClaim(ev *InboxEvent, key, owner, kind string, amount int64, currency string) *writeClaim {
	return &writeClaim{c: c, ev: ev, key: key, owner: owner, kind: kind, amount: amount, currency: currency}
}

// hold runs job with a slot of erpnext.max_concurrency, then releases the claim unless the job
// kept it. Shutdown while waiting for a slot is a retry that spends no attempt.
func (w *writeClaim) hold(ctx context.Context, job func(context.Context) Outcome) Outcome {
	c := w.c
	select {
	case c.erpSem <- struct{}{}:
	case <-ctx.Done():
		w.release(ctx)
		return c.waitUntil(c.now(), "interrupted before %s was booked (shutdown)", w.key)
	}
	o := job(ctx)
	<-c.erpSem
	if !w.keep {
		w.release(ctx)
	}
	return o
}

func (w *writeClaim) release(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.c.store.ReleaseBooking(rctx, w.key, w.owner); err != nil {
		w.c.log.Warn().Err(err).Str("payment_id", w.key).Msg("release booking claim")
	}
}

// fence moves the claim's fence (and the document lock, when lock is not "") to send time +
// server_timeout + margin just before a write: nobody posts for this key until the site can no
// longer commit it (DESIGN.md §4 step 7). ok=false: do not write; the outcome says why.
func (w *writeClaim) fence(ctx context.Context, lock string) (Outcome, bool) {
	c := w.c
	now := c.now()
	until := now.Add(c.writeFence())
	if err := c.store.SetBookingFence(ctx, w.key, w.owner, until); err != nil {
		if errors.Is(err, ErrLeaseLost) {
			return c.waitUntil(now, "claim on %s lost before the write; starting again", w.key), false
		}
		return c.retry(w.ev, 0, "fence %s: %v", w.key, err), false
	}
	if lock == "" {
		return Outcome{}, true
	}
	held, err := c.store.AcquireLock(ctx, lock, w.owner, now, until)
	if err != nil {
		return c.retry(w.ev, 0, "extend %s: %v", lock, err), false
	}
	if !held {
		return c.waitUntil(now, "lock %s lost before the write; starting again", lock), false
	}
	return Outcome{}, true
}

// writeFailed handles a failed POST/PUT: an ambiguous one keeps the claim until its fence; a
// 409 under erpnext.name_entries_by_payment_id means ERPNext's own key found the entry, which
// the lookup then records (never a second insert); anything else is failOutcome.
func (w *writeClaim) writeFailed(ctx context.Context, op string, err error) Outcome {
	c := w.c
	kind, _ := classify(err, true)
	switch kind {
	case failAmbiguous:
		w.keep = true
		b, gerr := c.store.GetBooking(ctx, w.key)
		next := c.now().Add(c.writeFence())
		if gerr == nil {
			next = b.FenceUntil
		}
		return Outcome{Status: StatusPending, CountAttempt: true, NextAttemptAt: next.Add(time.Second),
			LastError: fmt.Sprintf("%s: outcome unknown (%s); will look up reference_no %s after %s", op, reason(err), w.key, next.Format(time.RFC3339))}
	case failConflict:
		if c.cfg.ERPNext.NameEntriesByPaymentID {
			found, ferr := c.findByReference(ctx, w.key)
			if ferr == nil && found.submitted != "" {
				return c.recordBooked(ctx, w.ev, Booking{BusinessKey: w.key, Kind: w.kind, Doctype: frappe.DoctypePaymentEntry,
					Name: found.submitted, AmountMinor: w.amount, Currency: w.currency}, "409: already booked under its id")
			}
		}
	}
	return c.failOutcome(w.ev, op, err)
}
