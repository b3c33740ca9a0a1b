package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var waitColumnCases = []contractCase{
	{"MigrationSplitsTheWaitsStoredAsText", waitMigrationCase},
	{"AWaitKeepsAKeyWithAColon", func(t *testing.T, b backend) {
		db := b.fresh(t)
		mustInsert(t, db, newEvent("acc_1", "E1", "pay_1", t0))
		lock := connector.Wait{Kind: connector.WaitOnLock, Key: "invoice:ACC-SINV-2026-00001"}
		got := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: t0.Add(time.Hour), WaitFor: lock})
		if got.WaitFor != lock {
			t.Fatalf("stored wait %+v; want %+v", got.WaitFor, lock)
		}
		// The same key under another kind is another wait.
		if n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnBooking, Key: lock.Key}, t0); n != 0 || err != nil {
			t.Fatalf("WakeWaiters of another kind = %d, %v; want 0", n, err)
		}
		if n, err := db.WakeWaiters(ctx, lock, t0); n != 1 || err != nil {
			t.Fatalf("WakeWaiters(%s) = %d, %v; want 1", lock, n, err)
		}
	}},
}

// waitMigrationCase fills a store as the release that kept waits as "kind:key" text in
// inbox.wait_for left it, and migrates it: every wait is split into its kind and key, and the
// woken and listed rows are the same.
func waitMigrationCase(t *testing.T, b backend) {
	db := b.open(t, b.newDatabase(t))
	wantNoErr(t, "migrate to 0025", store.MigrateTo(ctx, db, "0025_dismissals_from_inbox"))
	stored := map[string]connector.Wait{
		"receipt:pay_1":              {Kind: connector.WaitOnReceipt, Key: "pay_1"},
		"booking:pay_2":              {Kind: connector.WaitOnBooking, Key: "pay_2"},
		"lock:invoice:ACC-SINV-0001": {Kind: connector.WaitOnLock, Key: "invoice:ACC-SINV-0001"},
		"refund:rfnd_1":              {Kind: connector.WaitOnRefund, Key: "rfnd_1"},
		"reconcile":                  connector.WaitReconcile,
		"":                           {},
	}
	ids := map[string]int64{}
	for text := range stored {
		e := mustInsert(t, db, newEvent("acc_1", "E-"+text, "pay_"+text, t0))
		wantNoErr(t, "set wait_for "+text, rawExec(db, `UPDATE inbox SET status = ?, wait_for = ? WHERE id = ?`,
			connector.StatusParked, text, e.ID))
		ids[text] = e.ID
	}
	wantNoErr(t, "Migrate", db.Migrate(ctx))
	for text, want := range stored {
		if got := mustGet(t, db, ids[text]).WaitFor; got != want {
			t.Errorf("wait_for %q became %+v; want %+v", text, got, want)
		}
	}
	if rows, err := db.Waiters(ctx, connector.WaitReconcile, connector.StatusParked); err != nil || len(rows) != 1 || rows[0].ID != ids["reconcile"] {
		t.Errorf("Waiters(reconcile) = %+v, %v; want the one row", rows, err)
	}
	lock := stored["lock:invoice:ACC-SINV-0001"]
	if n, err := db.WakeWaiters(ctx, lock, t0.Add(time.Minute), stored["receipt:pay_1"]); n != 2 || err != nil {
		t.Fatalf("WakeWaiters = %d, %v; want the lock's and the receipt's waiter", n, err)
	}
	if got := mustGet(t, db, ids["booking:pay_2"]); got.Status != connector.StatusParked || got.WaitFor != stored["booking:pay_2"] {
		t.Errorf("a wait not named was ended: %+v", got)
	}
}
