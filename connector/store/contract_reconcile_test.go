package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// The reconcile cases join the contract suite (run on SQLite and MariaDB).
func init() { bookingCases = append(bookingCases, reconcileCases...) }

var reconcileCases = []contractCase{
	{"ReconcileRunIsRecordedThenFinished", func(t *testing.T, b backend) {
		db := b.fresh(t)
		first := connector.ReconcileRun{WindowFrom: t0.Add(-48 * time.Hour), WindowTo: t0, StartedAt: t0}
		wantNoErr(t, "StartReconcileRun", db.StartReconcileRun(ctx, &first))
		second := connector.ReconcileRun{WindowFrom: t0, WindowTo: t0.Add(time.Hour), StartedAt: t0.Add(time.Hour)}
		wantNoErr(t, "StartReconcileRun", db.StartReconcileRun(ctx, &second))
		if first.ID == 0 || second.ID == first.ID {
			t.Fatalf("ids %d, %d: want two distinct ids", first.ID, second.ID)
		}
		runs, err := db.ListReconcileRuns(ctx, 0)
		wantNoErr(t, "ListReconcileRuns", err)
		if len(runs) != 2 || runs[0].ID != second.ID || runs[1].FinishedAt != nil || runs[1].Error != "" {
			t.Fatalf("runs %+v: want newest first, unfinished", runs)
		}
		wantTime(t, "window_from", runs[1].WindowFrom, first.WindowFrom)
		done := t0.Add(time.Minute)
		first.Scanned, first.Queued, first.SettlementsQueued, first.Booked, first.AlreadyBooked, first.Parked, first.FinishedAt = 150, 42, 2, 40, 110, 1, &done
		wantNoErr(t, "FinishReconcileRun", db.FinishReconcileRun(ctx, first))
		second.Error = "list payments: razorpay API: 500"
		wantNoErr(t, "FinishReconcileRun", db.FinishReconcileRun(ctx, second))
		runs, err = db.ListReconcileRuns(ctx, 1)
		wantNoErr(t, "ListReconcileRuns", err)
		if len(runs) != 1 || runs[0].Error != second.Error || runs[0].FinishedAt == nil {
			t.Fatalf("latest run %+v: want the failed second run, finished", runs)
		}
		runs, _ = db.ListReconcileRuns(ctx, 0)
		got := runs[1]
		if got.Scanned != 150 || got.Queued != 42 || got.SettlementsQueued != 2 || got.Booked != 40 || got.AlreadyBooked != 110 || got.Parked != 1 || got.Error != "" {
			t.Fatalf("first run %+v", got)
		}
		wantTime(t, "finished_at", *got.FinishedAt, done)
		wantErr(t, "FinishReconcileRun of a missing run", db.FinishReconcileRun(ctx, connector.ReconcileRun{ID: 9999}), connector.ErrNotFound)
	}},
	{"ListBookingsReturnsBookedSince", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claim := func(key string, at time.Time) {
			t.Helper()
			_, ok, err := db.ClaimBooking(ctx, connector.Booking{BusinessKey: key, Kind: connector.KindReceipt, Owner: "w1",
				FenceUntil: at.Add(time.Minute), CreatedAt: at}, at)
			if err != nil || !ok {
				t.Fatalf("claim %s: %v %v", key, ok, err)
			}
		}
		claim("pay_Old", t0.Add(-time.Hour))
		claim("pay_New", t0.Add(time.Minute))
		claim("pay_InFlight", t0.Add(2*time.Minute))
		for _, k := range []string{"pay_Old", "pay_New"} {
			wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, connector.Booking{BusinessKey: k, Doctype: "Payment Entry", Name: "PE-" + k}, t0.Add(3*time.Minute)))
		}
		got, err := db.ListBookings(ctx, t0)
		wantNoErr(t, "ListBookings", err)
		if len(got) != 1 || got[0].BusinessKey != "pay_New" || got[0].Name != "PE-pay_New" || got[0].State != connector.BookingBooked {
			t.Fatalf("bookings %+v: want only the booked row created since t0", got)
		}
	}},
}
