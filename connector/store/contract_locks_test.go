package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// acquire calls AcquireLock and fails unless the answer is want.
func acquire(t *testing.T, db *store.DB, name, owner string, now, expires time.Time, want bool) {
	t.Helper()
	got, err := db.AcquireLock(ctx, name, owner, now, expires)
	if err != nil || got != want {
		t.Fatalf("AcquireLock(%s, %s, %v) = %v, %v; want %v", name, owner, now, got, err, want)
	}
}

const invoiceLock = "invoice:ACC-SINV-2026-00001"

var lockCases = []contractCase{
	{"LockIsExclusiveUntilItExpires", func(t *testing.T, b backend) {
		db := b.fresh(t)
		acquire(t, db, invoiceLock, "w1", t0, t0.Add(time.Minute), true)
		acquire(t, db, invoiceLock, "w2", t0.Add(30*time.Second), t0.Add(2*time.Minute), false)
		acquire(t, db, invoiceLock, "w2", t0.Add(time.Minute), t0.Add(2*time.Minute), false) // live up to expires_at
		acquire(t, db, invoiceLock, "w2", t0.Add(time.Minute+time.Microsecond), t0.Add(2*time.Minute), true)
		acquire(t, db, invoiceLock, "w1", t0.Add(90*time.Second), t0.Add(3*time.Minute), false)
		acquire(t, db, "invoice:ACC-SINV-2026-00002", "w1", t0, t0.Add(time.Minute), true)
	}},
	{"ReacquiringOnesOwnLockExtendsIt", func(t *testing.T, b backend) {
		db := b.fresh(t)
		acquire(t, db, invoiceLock, "w1", t0, t0.Add(time.Minute), true)
		acquire(t, db, invoiceLock, "w1", t0.Add(30*time.Second), t0.Add(10*time.Minute), true)
		acquire(t, db, invoiceLock, "w1", t0.Add(30*time.Second), t0.Add(10*time.Minute), true) // unchanged row
		acquire(t, db, invoiceLock, "w2", t0.Add(5*time.Minute), t0.Add(20*time.Minute), false)
		acquire(t, db, invoiceLock, "w1", t0.Add(time.Hour), t0.Add(2*time.Hour), true) // own expired lock
	}},
	{"ReleaseLockByNonOwnerIsANoOp", func(t *testing.T, b backend) {
		db := b.fresh(t)
		acquire(t, db, invoiceLock, "w1", t0, t0.Add(time.Minute), true)
		wantNoErr(t, "ReleaseLock by w2", db.ReleaseLock(ctx, invoiceLock, "w2"))
		acquire(t, db, invoiceLock, "w2", t0, t0.Add(time.Minute), false)
		wantNoErr(t, "ReleaseLock by w1", db.ReleaseLock(ctx, invoiceLock, "w1"))
		acquire(t, db, invoiceLock, "w2", t0, t0.Add(time.Minute), true)
		wantNoErr(t, "ReleaseLock of a missing lock", db.ReleaseLock(ctx, "invoice:none", "w1"))
	}},
	{"LockNamesDifferingOnlyInCaseAreDistinct", func(t *testing.T, b backend) {
		db := b.fresh(t)
		acquire(t, db, "invoice:SINV-A", "w1", t0, t0.Add(time.Minute), true)
		acquire(t, db, "invoice:sinv-a", "w2", t0, t0.Add(time.Minute), true)
		acquire(t, db, "invoice:SINV-A", "W1", t0, t0.Add(time.Minute), false)
	}},
	{"ConcurrentAcquireLockHasOneWinner", func(t *testing.T, b backend) {
		dsn := b.newDatabase(t)
		replicas := []*store.DB{b.open(t, dsn), b.open(t, dsn)}
		wantNoErr(t, "Migrate", replicas[0].Migrate(ctx))
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			won  int
			errs = make(chan error, 10)
		)
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func(db *store.DB, owner string) {
				defer wg.Done()
				ok, err := db.AcquireLock(ctx, "reconcile", owner, t0, t0.Add(time.Minute))
				if err != nil {
					errs <- err
					return
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}(replicas[i%2], fmt.Sprintf("w%d", i))
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if won != 1 {
			t.Fatalf("%d owners acquired the lock; want 1", won)
		}
	}},
}
