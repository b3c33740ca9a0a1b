package worker

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Run starts cfg.Workers workers and blocks until ctx is cancelled and they have stopped.
func (c *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := 0; i < c.workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c.work(ctx, i)
		}(i)
	}
	wg.Wait()
}

// Drain makes every worker stop claiming events; an event already claimed is finished and its
// outcome written, then Run returns. Cancelling Run's context instead also interrupts the
// events in progress (their outcome is still written, as a retry, so nothing stays leased).
// Safe to call more than once.
func (c *Worker) Drain() { c.drainOnce.Do(func() { close(c.draining) }) }

func (c *Worker) drained() bool {
	select {
	case <-c.draining:
		return true
	default:
		return false
	}
}

// work is worker's loop: claim and process the next due event, or wait for one (worker.poll,
// a webhook's Wake). While work is paused nobody claims.
func (c *Worker) work(ctx context.Context, worker int) {
	poll := c.cfg.Poll.D()
	for ctx.Err() == nil && !c.drained() {
		if recheck, hold := c.holding(c.now()); hold {
			// At most a poll at a time: the recheck is due by the connector's clock, which
			// need not move with the timer's (an injected clock jumps; a suspended VM's wall
			// clock jumps on resume), so the worker looks at it again every poll.
			c.sleepPaused(ctx, min(recheck.Sub(c.now()), poll))
			continue
		}
		c.probePauses(ctx)
		did, err := c.ProcessNext(ctx, worker)
		if err != nil && ctx.Err() == nil {
			c.log.Warn().Err(err).Int("worker", worker).Msg("worker: store error")
		}
		if did {
			continue
		}
		t := time.NewTimer(poll + time.Duration(mrand.Int64N(int64(poll)/4+1)))
		select {
		case <-ctx.Done():
		case <-c.draining:
		case <-c.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// sleepPaused waits d while work is paused, or until ctx ends or Drain is called (shutdown does
// not wait for the recheck). A webhook's Wake does not end it: the pause holds new events too.
func (c *Worker) sleepPaused(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-c.draining:
	case <-t.C:
	}
}

// ProcessNext claims the next due event, processes it and writes its outcome. It returns false
// when nothing was due.
func (c *Worker) ProcessNext(ctx context.Context, worker int) (bool, error) {
	owner := c.owner("w" + strconv.Itoa(worker))
	now := c.now()
	ev, err := c.store.ClaimNextEvent(ctx, owner, now, c.cfg.Lease.D())
	if err != nil || ev == nil {
		return false, err
	}
	started := c.now()
	stopHeartbeat := c.heartbeat(ctx, ev.ID, owner)
	res, jobErr := c.process(ctx, ev, owner)
	stopHeartbeat()
	o := c.settle(ev, res, jobErr)
	// The outcome is written even when ctx was cancelled mid-way (shutdown): use a fresh context.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err = c.store.CompleteEvent(wctx, ev.ID, owner, c.now(), o)
	c.logOutcome(ev, o, res.Invoice, started, err)
	if errors.Is(err, connector.ErrLeaseLost) {
		// Another worker holds the event now (this one stalled past its lease); its outcome wins.
		return true, nil
	}
	c.observe(ev, o)
	if err != nil {
		return true, fmt.Errorf("complete event %s: %w", ev.EventID, err)
	}
	if !o.WaitFor.IsZero() && ctx.Err() == nil {
		c.recheckWait(ctx, o.WaitFor)
	}
	if o.Status == connector.StatusParked {
		c.afterPark(ctx, ev, o)
	}
	return true, nil
}

// heartbeat keeps the event's lease alive while this worker processes it, so a slow ERPNext
// never lets another worker take a live worker's event; only a crashed or stalled process
// loses its lease. The returned function stops it and waits for it.
func (c *Worker) heartbeat(ctx context.Context, id int64, owner string) func() {
	lease := c.cfg.Lease.D()
	if c.cfg.NoHeartbeat || lease <= 0 {
		return func() {}
	}
	return connector.Repeat(ctx, lease/3, func(ctx context.Context) bool {
		return !errors.Is(c.store.ExtendLease(ctx, id, owner, c.now().Add(lease)), connector.ErrLeaseLost)
	})
}

// logOutcome logs the outcome o of ev; invoice is the invoice of the booking the job recorded
// ("" when none: outcomeInvoice then finds one).
func (c *Worker) logOutcome(ev *connector.InboxEvent, o connector.Outcome, invoice string, started time.Time, err error) {
	l := c.log.Info()
	switch o.Status {
	case connector.StatusParked, connector.StatusDead:
		l = c.log.Warn()
	}
	if errors.Is(err, connector.ErrLeaseLost) {
		l = c.log.Info().Str("note", "lease lost: another worker took the event; this outcome is dropped")
	} else if err != nil {
		l = c.log.Warn().Err(err)
	}
	l = l.Str("event_id", ev.EventID).Str("event", ev.Event).Str(connector.LogKeyField(connector.RouteOf(ev.Event).Kind()), ev.BusinessKey).
		Int("attempt", ev.Attempts+1).Str("status", string(o.Status)).Int64("took_ms", c.now().Sub(started).Milliseconds())
	if o.ResultName != "" {
		l = l.Str(connector.LogResultField(o.ResultDoctype), o.ResultName)
	}
	if inv := c.outcomeInvoice(ev, o, invoice); inv != "" {
		l = l.Str("invoice", inv)
	}
	if o.LastError != "" {
		l = l.Str("reason", o.LastError)
	}
	if o.Status == connector.StatusPending {
		l = l.Time("next_attempt_at", o.NextAttemptAt)
	}
	l.Msg("event outcome")
}

// recheckWait closes the race between a waiter and its holder: the holder may have let go
// after the waiter saw it hold but before the waiter's outcome named what it waits for, when
// the holder's wake-up found nobody. So once its outcome is written, a waiter looks again and,
// when the wait is over already, wakes itself (and any other waiter of the same thing).
func (c *Worker) recheckWait(ctx context.Context, waitFor connector.Wait) {
	over, err := c.waitOver(ctx, waitFor)
	if err != nil {
		c.log.Warn().Err(err).Stringer("wait_for", waitFor).Msg("recheck wait")
		return
	}
	if over {
		c.booker.WakeWaiters(ctx, waitFor)
	}
}

// waitOver reports whether what waitFor names has ended: a claim no longer in flight (or past
// its fence), a lock row no longer held, a receipt or refund booked.
func (c *Worker) waitOver(ctx context.Context, waitFor connector.Wait) (bool, error) {
	now := c.now()
	switch waitFor.Kind {
	case connector.WaitOnBooking, connector.WaitOnReceipt, connector.WaitOnRefund:
		b, err := c.store.GetBooking(ctx, waitFor.Key)
		if errors.Is(err, connector.ErrNotFound) {
			return waitFor.Kind == connector.WaitOnBooking, nil
		}
		if err != nil {
			return false, err
		}
		if waitFor.Kind != connector.WaitOnBooking {
			return b.State == connector.BookingBooked, nil
		}
		return b.State != connector.BookingInFlight || b.FenceUntil.Before(now), nil
	case connector.WaitOnLock:
		held, err := c.store.LockHeld(ctx, waitFor.Key, now)
		return !held, err
	}
	return false, nil // WaitReconcile: a reconcile run ends it
}
