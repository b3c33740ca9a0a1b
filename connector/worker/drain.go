package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sleep"
)

// Draining: the worker's own loop run until given rows are final, by a process that is not
// the daemon (reconcile --drain).

// drainWorkerBase numbers the drain's workers apart from Run's in lease owners and logs.
const drainWorkerBase = 100

// DrainEvents runs the worker's own loop (ProcessNext, on erpnext.max_concurrency-bounded
// workers: cfg.Workers of them) until every inbox row in ids is final, or ctx ends. Workers may
// process other due rows on the way: this process is one more worker (DESIGN.md §4 step 3).
// Rows that other processes finish count too. It stops taking new events when done, and lets an
// event in progress finish unless ctx is cancelled. progress, when set, is called with the
// number of final rows. It returns ctx's error when ctx ended first, or a store error.
func (c *Worker) DrainEvents(ctx context.Context, ids []int64, progress func(done, total int)) error {
	if len(ids) == 0 {
		return nil
	}
	var stop atomic.Bool
	poll := min(c.cfg.Poll.D(), 200*time.Millisecond)
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	var wg sync.WaitGroup
	workers := max(c.workers, 1)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for !stop.Load() && ctx.Err() == nil {
				if _, hold := c.holding(c.now()); hold {
					_ = sleep.For(ctx, poll) // the loop stops on ctx
					continue
				}
				did, err := c.ProcessNext(ctx, drainWorkerBase+w)
				if err != nil && ctx.Err() == nil {
					c.log.Warn().Err(err).Int("worker", drainWorkerBase+w).Msg("reconcile drain: store error")
				}
				if !did {
					_ = sleep.For(ctx, poll) // the loop stops on ctx
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
				if errors.Is(err, connector.ErrNotFound) {
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
