package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var raceCases = []contractCase{
	{"ClaimsHaveOneWinnerPerRowAcrossHandles", func(t *testing.T, b backend) {
		dsn := b.newDatabase(t)
		handles := []*store.DB{b.open(t, dsn), b.open(t, dsn), b.open(t, dsn)}
		wantNoErr(t, "Migrate", handles[0].Migrate(ctx))
		rep := claimRace(t, handles, 12, 16, 3)
		wantOneWinner(t, "inbox events", rep.Events)
		wantOneWinner(t, "bookings", rep.Bookings)
		wantOneWinner(t, "locks", rep.Locks)
		var lost uint64
		for _, h := range handles {
			_, l := h.ClaimRetries()
			lost += l
		}
		if lost == 0 {
			t.Errorf("no claimer ever lost a candidate to another: the race did not happen")
		}
		t.Logf("events %v; bookings %v; locks %v; candidates lost %d", rep.Events, rep.Bookings, rep.Locks, lost)
	}},
	{"ClaimOfARowTakenMeanwhileIsLost", func(t *testing.T, b backend) {
		// What a multi-writer Galera cluster does: between this worker
		// finding a due row and claiming it, a worker on another node claims it, and no lock
		// here shows it. The claim must then match nothing: one winner, and the loser moves
		// on to the next due row. An unconditional UPDATE after the SELECT hands both of them
		// the first row.
		dsn := b.newDatabase(t)
		here, there := b.open(t, dsn), b.open(t, dsn)
		wantNoErr(t, "Migrate", here.Migrate(ctx))
		first := mustInsert(t, here, newEvent("acc_1", "evt_1", "pay_1", t0))
		second := mustInsert(t, here, newEvent("acc_1", "evt_2", "pay_2", t0.Add(time.Second)))
		var theirs *connector.InboxEvent
		store.SetBeforeClaim(here, func(id int64) {
			if theirs == nil && id == first.ID {
				theirs = mustClaim(t, there, "other-node", t0.Add(time.Minute), time.Hour)
			}
		})
		mine := mustClaim(t, here, "this-node", t0.Add(time.Minute), time.Hour)
		if theirs == nil || theirs.ID != first.ID || mine.ID != second.ID {
			t.Fatalf("other node claimed %v, this node %s; want %s there and %s here", theirs, mine.EventID, first.EventID, second.EventID)
		}
		if got := mustGet(t, there, first.ID); got.LeaseOwner != "other-node" {
			t.Fatalf("%s is leased to %q; want the node that claimed it first", first.EventID, got.LeaseOwner)
		}
		if _, lost := here.ClaimRetries(); lost != 1 {
			t.Fatalf("ClaimRetries: %d lost candidates; want 1", lost)
		}
	}},
	{"SetEventStatusFromChangesOnlyTheStatusDecidedOn", func(t *testing.T, b backend) {
		// A person reads a parked row and dismisses it; meanwhile a replay booked it. The
		// dismiss must not land on the done row (its payment is booked), whichever node
		// of a cluster each write goes to: the expected status is part of the UPDATE.
		dsn := b.newDatabase(t)
		person, worker := b.open(t, dsn), b.open(t, dsn)
		wantNoErr(t, "Migrate", person.Migrate(ctx))
		e := newEvent("acc_1", "evt_1", "pay_1", t0)
		e.Status, e.LastError = connector.StatusParked, "no invoice matched"
		mustInsert(t, person, e)
		seen := mustGet(t, person, e.ID)

		wantNoErr(t, "replay", worker.SetEventStatusFrom(ctx, e.ID, connector.StatusParked, connector.StatusPending, "replayed", t0))
		ev := mustClaim(t, worker, "w1", t0, time.Minute)
		wantNoErr(t, "book", worker.CompleteEvent(ctx, ev.ID, "w1", t0.Add(time.Second), connector.Outcome{
			Status: connector.StatusDone, ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-2026-00001"}))

		err := person.SetEventStatusFrom(ctx, e.ID, seen.Status, connector.StatusDismissed, "paid in cash", t0.Add(time.Minute))
		wantErr(t, "dismiss of a row booked meanwhile", err, store.ErrChanged)
		if got := mustGet(t, person, e.ID); got.Status != connector.StatusDone || got.ResultName != "ACC-PAY-2026-00001" {
			t.Fatalf("row after the refused dismiss: %+v; want still done", got)
		}

		mustInsert(t, person, newEvent("acc_1", "evt_2", "pay_2", t0))
		busy := mustClaim(t, worker, "w3", t0.Add(2*time.Hour), time.Hour)
		err = person.SetEventStatusFrom(ctx, busy.ID, connector.StatusProcessing, connector.StatusDismissed, "x", t0.Add(2*time.Hour))
		wantErr(t, "dismiss under a live lease", err, store.ErrBusy)
		wantErr(t, "missing row", person.SetEventStatusFrom(ctx, 424242, connector.StatusParked, connector.StatusPending, "", t0), connector.ErrNotFound)
	}},
}
