package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// complete claims the next event as owner at now and completes it with o.
func complete(t *testing.T, db *store.DB, owner string, now time.Time, o connector.Outcome) *connector.InboxEvent {
	t.Helper()
	ev := mustClaim(t, db, owner, now, time.Minute)
	wantNoErr(t, "CompleteEvent "+ev.EventID, db.CompleteEvent(ctx, ev.ID, owner, now, o))
	return mustGet(t, db, ev.ID)
}

var waiterCases = []contractCase{
	{"WakeWaitersEndsOnlyTheWaitsNamed", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for _, id := range []string{"E1", "E2", "E3", "E4", "E5"} {
			mustInsert(t, db, newEvent("acc_1", id, "pay_"+id, t0))
		}
		fence := t0.Add(2 * time.Minute)
		waiting := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: fence, WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}, LastError: "waiting"})
		if waiting.WaitFor != (connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}) || waiting.Attempts != 0 {
			t.Fatalf("completed row wait_for %q attempts %d", waiting.WaitFor, waiting.Attempts)
		}
		other := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: fence, WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_Y"}})
		parked := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusParked, WaitFor: connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_X"}, LastError: "receipt not booked"})
		dead := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusDead, CountAttempt: true, WaitFor: connector.WaitReconcile, LastError: "gave up"})
		soon := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: t0.Add(time.Second), WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}})

		now := t0.Add(10 * time.Second)
		n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}, now)
		if err != nil || n != 2 {
			t.Fatalf("WakeWaiters(booking:pay_X) = %d, %v; want the two rows waiting for it", n, err)
		}
		got := mustGet(t, db, waiting.ID)
		wantTime(t, "woken row's next_attempt_at", got.NextAttemptAt, now)
		if got.Status != connector.StatusPending || !got.WaitFor.IsZero() || got.LastError != "waiting" {
			t.Errorf("woken row %s wait_for %q reason %q", got.Status, got.WaitFor, got.LastError)
		}
		wantTime(t, "a row due earlier keeps its time", mustGet(t, db, soon.ID).NextAttemptAt, t0.Add(time.Second))
		if got := mustGet(t, db, other.ID); got.WaitFor != (connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_Y"}) || !got.NextAttemptAt.Equal(fence) {
			t.Errorf("another key's waiter changed: %+v", got)
		}
		if n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}, now); n != 0 || err != nil {
			t.Errorf("second WakeWaiters = %d, %v; want nothing left", n, err)
		}

		if n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_X"}, now); n != 1 || err != nil {
			t.Fatalf("WakeWaiters(receipt:pay_X) = %d, %v", n, err)
		}
		if got := mustGet(t, db, parked.ID); got.Status != connector.StatusPending || !got.WaitFor.IsZero() || !got.NextAttemptAt.Equal(now) {
			t.Errorf("parked waiter after its wake: %s wait_for %q next %v; want pending, due now", got.Status, got.WaitFor, got.NextAttemptAt)
		}
		if n, err := db.WakeWaiters(ctx, connector.WaitReconcile, now); n != 1 || err != nil {
			t.Fatalf("WakeWaiters(reconcile) = %d, %v", n, err)
		}
		if got := mustGet(t, db, dead.ID); got.Status != connector.StatusPending || got.Attempts != 1 || got.LastError != "gave up" {
			t.Errorf("dead row after its wake: %s attempts %d %q; want pending with its attempts and reason kept", got.Status, got.Attempts, got.LastError)
		}
		if n, err := db.WakeWaiters(ctx, connector.Wait{}, now); n != 0 || err != nil {
			t.Errorf("WakeWaiters(\"\") = %d, %v", n, err)
		}
	}},
	{"WakeWaitersLeavesRowsBeingProcessedAndFinalRows", func(t *testing.T, b backend) {
		db := b.fresh(t)
		mustInsert(t, db, newEvent("acc_1", "E1", "pay_1", t0))
		mustInsert(t, db, newEvent("acc_1", "E2", "pay_2", t0))
		done := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusDone, WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}})
		ev := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: t0, WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}})
		mustClaim(t, db, "w2", t0, time.Minute) // processing again, wait_for still set
		if n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}, t0.Add(time.Second)); n != 0 || err != nil {
			t.Errorf("WakeWaiters = %d, %v; want no row changed", n, err)
		}
		if got := mustGet(t, db, ev.ID); got.Status != connector.StatusProcessing || got.LeaseOwner != "w2" {
			t.Errorf("processing row changed: %+v", got)
		}
		if got := mustGet(t, db, done.ID); got.Status != connector.StatusDone {
			t.Errorf("done row changed: %+v", got)
		}
	}},
	{"WaitersListsTheRowsWaitingForOneThing", func(t *testing.T, b backend) {
		db := b.fresh(t)
		mustInsert(t, db, newEvent("acc_1", "E1", "pay_1", t0))
		mustInsert(t, db, newEvent("acc_1", "E2", "pay_2", t0.Add(time.Second)))
		mustInsert(t, db, newEvent("acc_1", "E3", "pay_3", t0.Add(2*time.Second)))
		complete(t, db, "w1", t0.Add(2*time.Second), connector.Outcome{Status: connector.StatusDead, WaitFor: connector.WaitReconcile})
		complete(t, db, "w1", t0.Add(2*time.Second), connector.Outcome{Status: connector.StatusDead})
		complete(t, db, "w1", t0.Add(2*time.Second), connector.Outcome{Status: connector.StatusPending, NextAttemptAt: t0.Add(time.Hour), WaitFor: connector.WaitReconcile})
		all, err := db.Waiters(ctx, connector.WaitReconcile)
		if err != nil || len(all) != 2 || all[0].EventID != "E1" || all[1].EventID != "E3" {
			t.Fatalf("Waiters = %+v, %v; want E1 then E3", all, err)
		}
		dead, err := db.Waiters(ctx, connector.WaitReconcile, connector.StatusDead, connector.StatusParked)
		if err != nil || len(dead) != 1 || dead[0].EventID != "E1" {
			t.Fatalf("dead Waiters = %+v, %v; want E1", dead, err)
		}
	}},
	{"LockHeldUntilItExpires", func(t *testing.T, b backend) {
		db := b.fresh(t)
		held := func(at time.Time, want bool) {
			t.Helper()
			if got, err := db.LockHeld(ctx, invoiceLock, at); got != want || err != nil {
				t.Fatalf("LockHeld(%v) = %v, %v; want %v", at, got, err, want)
			}
		}
		held(t0, false)
		acquire(t, db, invoiceLock, "w1", t0, t0.Add(time.Minute), true)
		held(t0, true)
		held(t0.Add(time.Minute), true) // live up to expires_at, as AcquireLock sees it
		held(t0.Add(time.Minute+time.Microsecond), false)
		wantNoErr(t, "ReleaseLock", db.ReleaseLock(ctx, invoiceLock, "w1"))
		held(t0, false)
	}},
}
