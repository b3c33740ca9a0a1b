package connector

import (
	"context"
	"math/rand/v2"
	"time"
)

// locker takes the lock row of the ERPNext document a booking is made against, before decide
// reads that document again (DESIGN.md §4 step 6): the worker's claim takes it (writeClaim);
// Explain, which writes nothing, takes none (dryRun).
type locker interface {
	// lockDocument takes the lock row name ("invoice:ACC-SINV-…") for what ("Sales Invoice
	// ACC-SINV-…", for the reason a waiter reads); a waitError when another holds it.
	lockDocument(ctx context.Context, name, what string) error
}

// dryRun is the locker of Explain: nothing is locked, nothing written.
type dryRun struct{}

func (dryRun) lockDocument(context.Context, string, string) error { return nil }

// lockDocument is the one document lock (DESIGN.md §4 step 3): a row in locks, owned by the
// claim, expiring with the write fence, so it covers every process and survives a dropped
// connection. Held by another, the job waits 1–3 s (jittered) without spending an attempt.
func (w *writeClaim) lockDocument(ctx context.Context, name, what string) error {
	c := w.c
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, name, w.owner, now, now.Add(c.writeFence()))
	if err != nil {
		return failed("lock "+name, err)
	}
	if !ok {
		return waitUntil(now.Add(time.Second+time.Duration(rand.Int64N(int64(2*time.Second)))), "waiting for the lock on %s", what)
	}
	w.lock = name
	return nil
}

// unlock releases the document lock, if one is held.
func (w *writeClaim) unlock(ctx context.Context) {
	if w.lock == "" {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = w.c.store.ReleaseLock(rctx, w.lock, w.owner)
	w.lock = ""
}
