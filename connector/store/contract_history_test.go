package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var historyCases = []contractCase{
	{"SetEventStatusByRecordsTheChangeWithIt", func(t *testing.T, b backend) {
		db := b.fresh(t)
		e := newEvent("acc_1", "evt_1", "pay_1", t0)
		e.Status, e.LastError = connector.StatusParked, "no invoice matched"
		mustInsert(t, db, e)
		h := connector.HistoryEntry{Actor: "Priya (console)", Action: connector.HistoryReplayed, Detail: "was parked: no invoice matched", Attempts: 1}
		wantNoErr(t, "replay", db.SetEventStatusBy(ctx, e.ID, connector.StatusParked, connector.StatusPending, "replayed by Priya", h, t0.Add(time.Minute)))
		if got := mustGet(t, db, e.ID); got.Status != connector.StatusPending || got.Attempts != 0 || got.LastError != "replayed by Priya" {
			t.Fatalf("row %+v", got)
		}
		// Refused changes (the status moved on, a live lease, no such row) record nothing.
		wantErr(t, "stale dismiss", db.SetEventStatusBy(ctx, e.ID, connector.StatusParked, connector.StatusDismissed, "x",
			connector.HistoryEntry{Actor: "Ravi", Action: connector.HistoryDismissed}, t0.Add(2*time.Minute)), store.ErrChanged)
		busy := mustClaim(t, db, "w1", t0.Add(3*time.Minute), time.Hour) // the replayed row, due now
		wantErr(t, "dismiss under a lease", db.SetEventStatusBy(ctx, busy.ID, connector.StatusProcessing, connector.StatusDismissed, "x",
			connector.HistoryEntry{Actor: "Ravi", Action: connector.HistoryDismissed}, t0.Add(4*time.Minute)), store.ErrBusy)
		wantErr(t, "missing row", db.SetEventStatusBy(ctx, 424242, connector.StatusParked, connector.StatusPending, "",
			connector.HistoryEntry{Actor: "Ravi"}, t0), connector.ErrNotFound)
		wantNoErr(t, "finish", db.CompleteEvent(ctx, busy.ID, "w1", t0.Add(5*time.Minute), connector.Outcome{Status: connector.StatusParked, LastError: "again"}))
		long := strings.Repeat("é", 3000) // 6000 bytes: kept to its bound, valid text
		wantNoErr(t, "dismiss", db.SetEventStatusBy(ctx, e.ID, connector.StatusParked, connector.StatusDismissed, "dismissed by Ravi",
			connector.HistoryEntry{Actor: "Ravi", Action: connector.HistoryDismissed, Detail: long, Attempts: 1}, t0.Add(6*time.Minute)))
		hist, err := db.EventHistory(ctx, e.ID)
		wantNoErr(t, "EventHistory", err)
		if len(hist) != 2 {
			t.Fatalf("history %+v; want the replay and the dismissal only", hist)
		}
		want := connector.HistoryEntry{EventID: e.ID, At: t0.Add(time.Minute), Actor: "Priya (console)", Action: connector.HistoryReplayed,
			From: connector.StatusParked, To: connector.StatusPending, Detail: "was parked: no invoice matched", Attempts: 1}
		if hist[0] != want {
			t.Errorf("first entry %+v; want %+v", hist[0], want)
		}
		d := hist[1]
		if d.Actor != "Ravi" || d.From != connector.StatusParked || d.To != connector.StatusDismissed || !d.At.Equal(t0.Add(6*time.Minute)) ||
			len(d.Detail) > 4000 || len(d.Detail) < 3990 || !strings.HasPrefix(d.Detail, "éé") || strings.ContainsRune(d.Detail, '\uFFFD') {
			t.Errorf("second entry %s %s→%s at %v, detail of %d bytes", d.Actor, d.From, d.To, d.At, len(d.Detail))
		}
		quiet := mustInsert(t, db, newEvent("acc_1", "evt_2", "pay_2", t0))
		if other, err := db.EventHistory(ctx, quiet.ID); err != nil || len(other) != 0 {
			t.Errorf("history of a row nobody acted on: %+v %v", other, err)
		}
	}},
}
