package connector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// drainWorkerBase numbers the drain's workers apart from Run's in lease owners and logs.
const drainWorkerBase = 100

// DrainEvents runs the worker's own loop (ProcessNext, on erpnext.max_concurrency-bounded
// workers: cfg.Workers of them) until every inbox row in ids is final, or ctx ends. Workers may
// process other due rows on the way: this process is one more worker (DESIGN.md §4 step 3).
// Rows that other processes finish count too. It stops taking new events when done, and lets an
// event in progress finish unless ctx is cancelled. progress, when set, is called with the
// number of final rows. It returns ctx's error when ctx ended first, or a store error.
func (c *Connector) DrainEvents(ctx context.Context, ids []int64, progress func(done, total int)) error {
	if len(ids) == 0 {
		return nil
	}
	var stop atomic.Bool
	poll := min(c.cfg.Worker.Poll.D(), 200*time.Millisecond)
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	var wg sync.WaitGroup
	workers := max(c.cfg.Workers, 1)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for !stop.Load() && ctx.Err() == nil {
				if paused, _ := c.Paused(); paused {
					sleep(ctx, poll)
					continue
				}
				did, err := c.ProcessNext(ctx, drainWorkerBase+w)
				if err != nil && ctx.Err() == nil {
					c.log.Warn().Err(err).Int("worker", drainWorkerBase+w).Msg("reconcile drain: store error")
				}
				if !did {
					sleep(ctx, poll)
				}
			}
		}(i)
	}
	defer wg.Wait()
	defer stop.Store(true)
	last := -1
	for {
		done := 0
		for _, id := range ids {
			ev, err := c.store.GetEvent(ctx, id)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if errors.Is(err, ErrNotFound) {
					done++ // deleted by a person: nothing to wait for
					continue
				}
				return fmt.Errorf("drain: read event %d: %w", id, err)
			}
			if ev.Status.Final() {
				done++
			}
		}
		if progress != nil && done != last {
			progress(done, len(ids))
			last = done
		}
		if done == len(ids) {
			return nil
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// drain processes the rows this run queued, within reconcile.drain_timeout, then reads how each
// ended and counts it: booked (done, or duplicate of a booking made meanwhile), parked or dead
// (with the reason), skipped (not booked by this version), or still pending.
func (r *reconcileRun) drain(ctx context.Context) error {
	var ids []int64
	for _, it := range r.rep.Queued {
		if it.rowID != 0 {
			ids = append(ids, it.rowID)
		}
	}
	timeout := r.c.cfg.Reconcile.DrainTimeout.D()
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	err := r.c.DrainEvents(dctx, ids, func(done, total int) { r.progress("booking", done, total) })
	cancel()
	if err != nil && ctx.Err() != nil {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		r.warn("drain stopped after %s; rows still pending are booked by the daemon's workers", timeout)
	} else if err != nil {
		return err
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer rcancel()
	for i := range r.rep.Queued {
		it := &r.rep.Queued[i]
		if it.rowID == 0 {
			continue
		}
		ev, err := r.c.store.GetEvent(rctx, it.rowID)
		if err != nil {
			return fmt.Errorf("drain: read event %s: %w", it.EventID, err)
		}
		it.Status, it.Reason, it.Result = string(ev.Status), ev.LastError, resultOf(ev)
		cnt := r.counts(it)
		switch ev.Status {
		case StatusDone, StatusDuplicate:
			cnt.Booked++
		case StatusParked, StatusDead:
			cnt.Parked++
			r.rep.Parked = append(r.rep.Parked, *it)
		case StatusSkipped, StatusDismissed:
			cnt.NotBooked++
			r.rep.NotBooked = append(r.rep.NotBooked, *it)
		default:
			cnt.Pending++
		}
	}
	return nil
}
