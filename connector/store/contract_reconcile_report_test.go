package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// The saved-report cases join the contract suite (run on every driver).
func init() { bookingCases = append(bookingCases, reconcileReportCases...) }

var reconcileReportCases = []contractCase{
	{"ReconcileReportIsSavedWithItsRun", func(t *testing.T, b backend) {
		db := b.fresh(t)
		if _, ok, err := db.LastReconcileReport(ctx); err != nil || ok {
			t.Fatalf("LastReconcileReport with no run = %v, %v; want none", ok, err)
		}
		first := connector.ReconcileRun{WindowFrom: t0.Add(-48 * time.Hour), WindowTo: t0, StartedAt: t0}
		wantNoErr(t, "StartReconcileRun", db.StartReconcileRun(ctx, &first))
		if _, ok, err := db.LastReconcileReport(ctx); err != nil || ok {
			t.Fatalf("LastReconcileReport while the only run runs = %v, %v; want none", ok, err)
		}
		// The report as text, byte for byte: JSON with a multi-byte rune and a quote.
		report := []byte(`{"run_id":1,"payments":{"scanned":3,"queued":1},"queued":[{"id":"pay_Lost0001","amount_minor":1200000,"currency":"INR"}],"warnings":["₹ \"cut\""]}`)
		done := t0.Add(time.Minute)
		first.Scanned, first.Queued, first.FinishedAt, first.Report = 3, 1, &done, report
		wantNoErr(t, "FinishReconcileRun", db.FinishReconcileRun(ctx, first))
		// A later run still running, and one finished before this column existed (no report),
		// do not hide it.
		second := connector.ReconcileRun{WindowFrom: t0, WindowTo: t0.Add(time.Hour), StartedAt: t0.Add(time.Hour)}
		wantNoErr(t, "StartReconcileRun", db.StartReconcileRun(ctx, &second))
		old := connector.ReconcileRun{WindowFrom: t0, WindowTo: t0.Add(time.Hour), StartedAt: t0.Add(30 * time.Minute)}
		wantNoErr(t, "StartReconcileRun", db.StartReconcileRun(ctx, &old))
		wantNoErr(t, "FinishReconcileRun", db.FinishReconcileRun(ctx, old))
		got, ok, err := db.LastReconcileReport(ctx)
		wantNoErr(t, "LastReconcileReport", err)
		if !ok || got.ID != first.ID || string(got.Report) != string(report) || got.Scanned != 3 || got.Queued != 1 || got.FinishedAt == nil {
			t.Fatalf("LastReconcileReport = %+v (report %s), %v; want run %d with its report", got, got.Report, ok, first.ID)
		}
		wantTime(t, "finished_at", *got.FinishedAt, done)
		// The later run finishes, failed part-way: its report (counts up to the failure) is the last.
		second.Error, second.Report = "list refunds: razorpay API: 500", []byte(`{"run_id":2}`)
		wantNoErr(t, "FinishReconcileRun", db.FinishReconcileRun(ctx, second))
		got, ok, err = db.LastReconcileReport(ctx)
		if err != nil || !ok || got.ID != second.ID || string(got.Report) != `{"run_id":2}` || got.Error != second.Error {
			t.Fatalf("LastReconcileReport = %+v, %v, %v; want the failed run %d", got, ok, err, second.ID)
		}
		runs, err := db.ListReconcileRuns(ctx, 0)
		wantNoErr(t, "ListReconcileRuns", err)
		for _, r := range runs {
			if r.Report != nil {
				t.Errorf("ListReconcileRuns run %d carries its report", r.ID)
			}
		}
	}},
}
