package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var claimCases = []contractCase{
	{"ClaimTakesDueEventsInOrder", func(t *testing.T, b backend) {
		db := b.fresh(t)
		var due []*connector.InboxEvent
		for i, offset := range []time.Duration{2 * time.Minute, time.Minute, 3 * time.Minute, time.Minute} {
			e := newEvent("acc_1", fmt.Sprintf("evt_%d", i), "", t0)
			e.NextAttemptAt = t0.Add(offset)
			due = append(due, mustInsert(t, db, e))
		}
		if ev, err := db.ClaimNextEvent(ctx, "w1", t0, time.Minute); err != nil || ev != nil {
			t.Fatalf("claim before anything is due = %v, %v; want nil, nil", ev, err)
		}
		now := t0.Add(2 * time.Minute)
		for _, want := range []*connector.InboxEvent{due[1], due[3], due[0]} { // by due time, then id
			ev := mustClaim(t, db, "w1", now, 90*time.Second)
			if ev.ID != want.ID {
				t.Fatalf("claimed %s; want %s", ev.EventID, want.EventID)
			}
			if ev.Status != connector.StatusProcessing || ev.LeaseOwner != "w1" || ev.LeaseUntil == nil || ev.Attempts != 0 {
				t.Fatalf("claimed row = %+v", ev)
			}
			wantTime(t, "LeaseUntil", *ev.LeaseUntil, now.Add(90*time.Second))
		}
		if ev, err := db.ClaimNextEvent(ctx, "w1", now, time.Minute); err != nil || ev != nil {
			t.Fatalf("claim with only a future event left = %v, %v; want nil, nil", ev, err)
		}
		if ev := mustClaim(t, db, "w1", t0.Add(3*time.Minute), time.Minute); ev.ID != due[2].ID {
			t.Fatalf("claimed %s at its due time; want %s", ev.EventID, due[2].EventID)
		}
	}},
	{"FinalRowsAreNeverClaimed", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for i, status := range []connector.Status{connector.StatusDone, connector.StatusParked, connector.StatusDead,
			connector.StatusSkipped, connector.StatusDismissed, connector.StatusDuplicate} {
			e := newEvent("acc_1", fmt.Sprintf("evt_%d", i), "", t0)
			e.Status = status
			mustInsert(t, db, e)
		}
		if ev, err := db.ClaimNextEvent(ctx, "w1", t0.Add(time.Hour), time.Minute); err != nil || ev != nil {
			t.Fatalf("ClaimNextEvent = %v, %v; want nil, nil", ev, err)
		}
	}},
	{"ExpiredLeaseIsReclaimedByAnotherOwner", func(t *testing.T, b backend) {
		db := b.fresh(t)
		e := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
		mustClaim(t, db, "w1", t0, time.Minute)
		if ev, err := db.ClaimNextEvent(ctx, "w2", t0.Add(time.Minute), time.Minute); err != nil || ev != nil {
			t.Fatalf("claim at lease end = %v, %v; want nil (the lease is live until it passes)", ev, err)
		}
		ev := mustClaim(t, db, "w2", t0.Add(61*time.Second), time.Minute)
		if ev.ID != e.ID || ev.LeaseOwner != "w2" {
			t.Fatalf("reclaimed row = %+v", ev)
		}
		stale := connector.Outcome{Status: connector.StatusDone, ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-1"}
		wantErr(t, "stale CompleteEvent", db.CompleteEvent(ctx, e.ID, "w1", t0.Add(2*time.Minute), stale), connector.ErrLeaseLost)
		wantErr(t, "stale ExtendLease", db.ExtendLease(ctx, e.ID, "w1", t0.Add(time.Hour)), connector.ErrLeaseLost)
		if got := mustGet(t, db, e.ID); got.Status != connector.StatusProcessing || got.LeaseOwner != "w2" {
			t.Fatalf("stale calls changed the row: %+v", got)
		}
		wantNoErr(t, "CompleteEvent by the new owner", db.CompleteEvent(ctx, e.ID, "w2", t0.Add(2*time.Minute), stale))
		wantErr(t, "second CompleteEvent", db.CompleteEvent(ctx, e.ID, "w2", t0.Add(2*time.Minute), stale), connector.ErrLeaseLost)
	}},
	{"ExtendLeaseKeepsTheEvent", func(t *testing.T, b backend) {
		db := b.fresh(t)
		e := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
		mustClaim(t, db, "w1", t0, time.Minute)
		until := t0.Add(10 * time.Minute)
		wantNoErr(t, "ExtendLease", db.ExtendLease(ctx, e.ID, "w1", until))
		wantNoErr(t, "ExtendLease to the same time", db.ExtendLease(ctx, e.ID, "w1", until))
		if got := mustGet(t, db, e.ID); got.LeaseUntil == nil || !got.LeaseUntil.Equal(until) {
			t.Fatalf("LeaseUntil = %v; want %v", got.LeaseUntil, until)
		}
		if ev, err := db.ClaimNextEvent(ctx, "w2", t0.Add(5*time.Minute), time.Minute); err != nil || ev != nil {
			t.Fatalf("claim inside the extended lease = %v, %v; want nil", ev, err)
		}
		wantErr(t, "ExtendLease by another owner", db.ExtendLease(ctx, e.ID, "w2", until), connector.ErrLeaseLost)
		err := db.ExtendLease(ctx, 424242, "w1", until)
		wantErr(t, "ExtendLease of a missing event", err, connector.ErrLeaseLost)
		wantErr(t, "ExtendLease of a missing event", err, connector.ErrNotFound)
	}},
	{"CompleteEventWritesOutcomeAndCountsAttempts", func(t *testing.T, b backend) {
		db := b.fresh(t)
		e := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))

		mustClaim(t, db, "w1", t0, time.Minute)
		retryAt := t0.Add(30 * time.Second)
		wantNoErr(t, "retry", db.CompleteEvent(ctx, e.ID, "w1", t0.Add(time.Second), connector.Outcome{
			Status: connector.StatusPending, LastError: "502 Bad Gateway", NextAttemptAt: retryAt, CountAttempt: true}))
		got := mustGet(t, db, e.ID)
		if got.Status != connector.StatusPending || got.Attempts != 1 || got.LastError != "502 Bad Gateway" ||
			got.LeaseOwner != "" || got.LeaseUntil != nil {
			t.Fatalf("after retry outcome: %+v", got)
		}
		wantTime(t, "NextAttemptAt", got.NextAttemptAt, retryAt)
		wantTime(t, "UpdatedAt", got.UpdatedAt, t0.Add(time.Second))
		if ev, _ := db.ClaimNextEvent(ctx, "w1", retryAt.Add(-time.Microsecond), time.Minute); ev != nil {
			t.Fatal("claimed before NextAttemptAt")
		}

		mustClaim(t, db, "w1", retryAt, time.Minute)
		wantNoErr(t, "wait", db.CompleteEvent(ctx, e.ID, "w1", retryAt, connector.Outcome{
			Status: connector.StatusPending, LastError: "invoice locked", CountAttempt: false}))
		got = mustGet(t, db, e.ID)
		if got.Attempts != 1 {
			t.Fatalf("Attempts after a wait = %d; want 1", got.Attempts)
		}
		wantTime(t, "NextAttemptAt with zero outcome time", got.NextAttemptAt, retryAt)

		mustClaim(t, db, "w1", retryAt, time.Minute)
		wantNoErr(t, "done", db.CompleteEvent(ctx, e.ID, "w1", retryAt.Add(time.Second), connector.Outcome{
			Status: connector.StatusDone, ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-2026-00001", CountAttempt: true}))
		got = mustGet(t, db, e.ID)
		if got.Status != connector.StatusDone || got.Attempts != 2 || got.LastError != "" ||
			got.ResultDoctype != "Payment Entry" || got.ResultName != "ACC-PAY-2026-00001" {
			t.Fatalf("after done: %+v", got)
		}
		wantTime(t, "NextAttemptAt kept by a final outcome", got.NextAttemptAt, retryAt)

		if err := db.CompleteEvent(ctx, e.ID, "w1", t0, connector.Outcome{Status: connector.StatusProcessing}); err == nil {
			t.Fatal("CompleteEvent(processing) succeeded; want an error")
		}
		err := db.CompleteEvent(ctx, 424242, "w1", t0, connector.Outcome{Status: connector.StatusDone})
		wantErr(t, "CompleteEvent of a missing event", err, connector.ErrLeaseLost)
		wantErr(t, "CompleteEvent of a missing event", err, connector.ErrNotFound)
	}},
	{"ConcurrentClaimersClaimEachEventOnce", func(t *testing.T, b backend) {
		dsn := b.newDatabase(t)
		replicas := []*store.DB{b.open(t, dsn), b.open(t, dsn)}
		wantNoErr(t, "Migrate", replicas[0].Migrate(ctx))
		const events, workers = 200, 8
		for i := 0; i < events; i++ {
			mustInsert(t, replicas[0], newEvent("acc_1", fmt.Sprintf("evt_%03d", i), fmt.Sprintf("pay_%03d", i), t0))
		}
		var (
			mu      sync.Mutex
			claimed = map[int64]string{}
			wg      sync.WaitGroup
			errs    = make(chan error, workers)
		)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(db *store.DB, owner string) {
				defer wg.Done()
				for {
					ev, err := db.ClaimNextEvent(ctx, owner, t0, time.Hour)
					if err != nil {
						errs <- err
						return
					}
					if ev == nil {
						return
					}
					mu.Lock()
					if prev, dup := claimed[ev.ID]; dup {
						mu.Unlock()
						errs <- fmt.Errorf("event %d claimed by %s and %s", ev.ID, prev, owner)
						return
					}
					claimed[ev.ID] = owner
					mu.Unlock()
				}
			}(replicas[w%2], fmt.Sprintf("w%d", w))
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(claimed) != events {
			t.Fatalf("%d events claimed; want %d", len(claimed), events)
		}
		counts, err := replicas[1].CountByStatus(ctx)
		if err != nil || counts[connector.StatusProcessing] != events {
			t.Fatalf("CountByStatus = %v, %v; want %d processing", counts, err, events)
		}
	}},
}
