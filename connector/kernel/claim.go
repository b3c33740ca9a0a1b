package kernel

import (
	"context"
	"errors"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Claim is a business-key claim (a bookings row in flight, DESIGN.md §4 step 3) held by
// one job, with the write discipline every job follows: take a slot of
// erpnext.max_concurrency, lock the document it books against, fence before writing, keep the
// claim and the lock after an ambiguous write, release both otherwise.
type Claim struct {
	c     *Kernel
	ev    *connector.InboxEvent
	Owner string
	b     connector.Booking // business key, kind, amount and currency of the claim
	lock  string            // the document lock row held ("" when none), see LockDocument
	// keep is set when an ambiguous write leaves the claim (and document lock) in place until
	// the fence passes, so the next attempt's lookup finds a late commit.
	keep bool
	// booked is set once the claim's key is recorded booked (record): its row is no longer in
	// flight, so release has nothing to delete, and record has woken its waiters already.
	booked bool
}

// Claim takes b.BusinessKey for owner in one statement: it inserts an in_flight row, or takes
// over one whose fence has passed. The first fence covers the reads before the write (each
// bounded by erpnext.timeout ≤ server_timeout): a worker that dies holds the key until it
// passes. It returns the claim, or (when another holds the key or it is booked or void) the
// row as it stands.
func (c *Kernel) Claim(ctx context.Context, ev *connector.InboxEvent, owner string, b connector.Booking) (*Claim, *connector.Booking, error) {
	now := c.now()
	b.Owner, b.FenceUntil, b.CreatedAt = owner, now.Add(c.WriteFence()), now
	row, claimed, err := c.store.ClaimBooking(ctx, b, now)
	if err != nil {
		return nil, nil, connector.Failed("claim "+b.BusinessKey, err)
	}
	if !claimed {
		return nil, &row, nil
	}
	return &Claim{c: c, ev: ev, Owner: owner, b: b}, nil, nil
}

// WriteFence is how long a claim holds after a write is sent: server_timeout + margin.
func (c *Kernel) WriteFence() time.Duration {
	return c.fenceAfter
}

// Hold runs job with a slot of erpnext.max_concurrency, then releases the lock and the claim
// unless the job kept them. Shutdown while waiting for a slot waits, spending no attempt.
func (w *Claim) Hold(ctx context.Context, job func(context.Context) (connector.Result, error)) (connector.Result, error) {
	c := w.c
	select {
	case c.erpSem <- struct{}{}:
	case <-ctx.Done():
		w.release(ctx)
		return connector.Result{}, connector.WaitUntil(c.now(), "interrupted before %s was booked (shutdown)", w.b.BusinessKey)
	}
	res, err := job(ctx)
	<-c.erpSem
	if !w.keep {
		w.unlock(ctx)
		w.release(ctx)
	}
	return res, err
}

// release deletes the claim and wakes the jobs waiting for it: they book the key now
// (DESIGN.md §4 step 7). A claim recorded booked costs nothing: the DELETE (of an in_flight row
// of this owner) would match no row, since a booked row is never in flight again and owners are
// never reused, and record woke the waiters when it booked the key.
func (w *Claim) release(ctx context.Context) {
	if w.booked {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.c.store.ReleaseBooking(rctx, w.b.BusinessKey, w.Owner); err != nil {
		w.c.log.Warn().Err(err).Str(connector.LogKeyField(w.b.Kind), w.b.BusinessKey).Msg("release booking claim")
		return
	}
	w.c.WakeWaiters(rctx, connector.WaitBooking(w.b.BusinessKey))
}

// fence moves the claim's fence (and the document lock's, when one is held) to send time +
// server_timeout + margin just before a write: nobody posts for this key until the site can no
// longer commit it (DESIGN.md §4 step 7). An error means: do not write.
func (w *Claim) fence(ctx context.Context) error {
	c := w.c
	now := c.now()
	until := now.Add(c.WriteFence())
	if err := c.store.SetBookingFence(ctx, w.b.BusinessKey, w.Owner, until); err != nil {
		if errors.Is(err, connector.ErrLeaseLost) {
			return connector.WaitUntil(now, "claim on %s lost before the write; starting again", w.b.BusinessKey)
		}
		return connector.Failed("fence "+w.b.BusinessKey, err)
	}
	if w.lock == "" {
		return nil
	}
	held, err := c.store.AcquireLock(ctx, w.lock, w.Owner, now, until)
	if err != nil {
		return connector.Failed("extend "+w.lock, err)
	}
	if !held {
		return connector.WaitUntil(now, "lock %s lost before the write; starting again", w.lock)
	}
	return nil
}

// ClaimAndBook is steps 3–7 of DESIGN.md §4 for one business key, the same for every job: claim b for
// ev; when the claim is taken, decide under it, apply the plan and hand the result to after
// (nil for none) while the claim is still held; when another worker holds b or it is booked,
// apply the plan HeldPlan gives for the row as it stands. Errors are the claim's, decide's or
// the apply's, unchanged.
func (c *Kernel) ClaimAndBook(ctx context.Context, ev *connector.InboxEvent, e *razorpay.Event, owner string, b connector.Booking,
	decide func(context.Context, *Claim) (*connector.Plan, error),
	after func(context.Context, *Claim, connector.Result) connector.Result) (connector.Result, error) {
	w, held, err := c.Claim(ctx, ev, owner, b)
	if err != nil {
		return connector.Result{}, err
	}
	if w == nil {
		pl, err := c.HeldPlan(ctx, e, *held)
		return c.ApplyOrFail(ctx, ev, pl, err)
	}
	return w.Hold(ctx, func(ctx context.Context) (connector.Result, error) {
		pl, err := decide(ctx, w)
		if err != nil {
			return connector.Result{}, err
		}
		res, err := c.Apply(ctx, ev, w, pl)
		if err != nil || after == nil {
			return res, err
		}
		return after(ctx, w, res), nil
	})
}
