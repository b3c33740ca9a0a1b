package kernel

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Locker takes the lock row of the ERPNext document a booking is made against, before decide
// reads that document again (DESIGN.md §4 step 6): the worker's claim takes it (Claim);
// Explain, which writes nothing, takes none (dryRun).
type Locker interface {
	// LockDocument takes the lock row name ("invoice:ACC-SINV-…") for what ("Sales Invoice
	// ACC-SINV-…", for the reason a waiter reads); a WaitError when another holds it.
	LockDocument(ctx context.Context, name, what string) error
}

var (
	_ Locker = (*Claim)(nil)
	_ Locker = DryRun{}
)

// DryRun is the locker of Explain: nothing is locked, nothing written.
type DryRun struct{}

func (DryRun) LockDocument(context.Context, string, string) error { return nil }

// LockDocument is the one document lock (DESIGN.md §4 step 3): a row in locks, owned by the
// claim, expiring with the write fence, so it covers every process and survives a dropped
// connection. Held by another, the job waits without spending an attempt until the holder
// releases it (unlock wakes the waiters, wake.go), re-polling at most every HolderRecheck. A
// claim holds one lock: taking another (the payment named a Payment Request, or a name in
// another case than the site's) lets the first go.
func (w *Claim) LockDocument(ctx context.Context, name, what string) error {
	c := w.c
	if w.lock == name {
		return nil
	}
	w.unlock(ctx)
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, name, w.Owner, now, now.Add(c.WriteFence()))
	if err != nil {
		return connector.Failed("lock "+name, err)
	}
	if !ok {
		return &connector.WaitError{Until: c.HolderWait(now.Add(c.WriteFence())), On: connector.WaitLock(name),
			Reason: fmt.Sprintf("waiting for the lock on %s; runs again as soon as it is released", what)}
	}
	w.lock = name
	return nil
}

// unlock releases the document lock, if one is held, and wakes the jobs waiting for it.
func (w *Claim) unlock(ctx context.Context) {
	if w.lock == "" {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.c.store.ReleaseLock(rctx, w.lock, w.Owner); err == nil {
		w.c.WakeWaiters(rctx, connector.WaitLock(w.lock))
	}
	w.lock = ""
}
