package reconcile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// A run saves its report with its run record: the counts and the items it lists, exactly as
// the run returned them (the console reads it back on any replica).
func TestReconcileRunSavesItsReport(t *testing.T) {
	e := newReconcileEnv(t, nil)
	inv := e.invoice("500.00")
	e.payment(payID(1), "", e.now.Add(-2*time.Hour), razorpay.Notes{"invoice": inv})
	if _, err := e.sim.CreatePayment(razorpay.Payment{ID: payID(2), Amount: 50000, Currency: "INR", Method: "upi",
		CreatedAt: e.now.Add(-time.Hour).Unix()}, razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
		t.Fatal(err) // names no invoice anywhere: parks
	}
	rep := e.reconcile(e.connector(), reconcile.Request{Drain: true})
	run, ok, err := e.db.LastReconcileReport(context.Background())
	if err != nil || !ok || run.ID != rep.RunID || run.Queued != 2 || run.Parked != 1 {
		t.Fatalf("last report's run %+v, %v, %v; want run %d, 2 queued, 1 parked", run, ok, err, rep.RunID)
	}
	var saved reconcile.Report
	if err := json.Unmarshal(run.Report, &saved); err != nil {
		t.Fatalf("saved report %s: %v", run.Report, err)
	}
	if saved.RunID != rep.RunID || saved.DryRun || !reflect.DeepEqual(saved.Payments, rep.Payments) || saved.Payments.Queued != 2 || saved.Payments.Booked != 1 {
		t.Errorf("saved payments %+v (run %d); want %+v (run %d)", saved.Payments, saved.RunID, rep.Payments, rep.RunID)
	}
	if len(saved.Parked) != 1 || saved.Parked[0].ID != payID(2) || saved.Parked[0].AmountMinor != 50000 || saved.Parked[0].Currency != "INR" ||
		!strings.Contains(saved.Parked[0].Reason, "no invoice matched") {
		t.Errorf("saved parked %+v", saved.Parked)
	}
	ids := map[string]int64{}
	for _, it := range saved.Queued {
		ids[it.ID] = it.AmountMinor
	}
	if want := map[string]int64{payID(1): 50000, payID(2): 50000}; !reflect.DeepEqual(ids, want) {
		t.Errorf("saved queued %v; want %v", ids, want)
	}
	if !saved.WindowFrom.Equal(rep.WindowFrom) || !saved.WindowTo.Equal(rep.WindowTo) || !saved.NeedsAttention {
		t.Errorf("saved window %s → %s, attention %v; want %s → %s, true", saved.WindowFrom, saved.WindowTo, saved.NeedsAttention, rep.WindowFrom, rep.WindowTo)
	}
}

// A dry run records nothing, so it saves no report.
func TestReconcileDryRunSavesNoReport(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.payment(payID(3), "", e.now.Add(-time.Hour), razorpay.Notes{"invoice": e.invoice("500.00")})
	e.reconcile(e.connector(), reconcile.Request{DryRun: true})
	if run, ok, err := e.db.LastReconcileReport(context.Background()); err != nil || ok {
		t.Fatalf("after a dry run: last report %+v, %v, %v; want none", run, ok, err)
	}
}

// The stored report keeps the first 500 items of each list, says what it left out, and drops
// the settlement lines; the report itself is left as it was.
func TestStoredReportCutsLongLists(t *testing.T) {
	rep := &reconcile.Report{RunID: 7, Payments: reconcile.SweepCounts{Scanned: 600, Queued: 600}, Warnings: []string{"first"},
		Settlements: []connector.SettlementLine{{}}}
	for i := 0; i < 600; i++ {
		rep.Queued = append(rep.Queued, reconcile.Item{Kind: "payment", ID: fmt.Sprintf("pay_Cut%07d", i), AmountMinor: int64(100 + i), Currency: "INR"})
	}
	rep.Parked = rep.Queued[:3]
	var saved reconcile.Report
	if err := json.Unmarshal(reconcile.StoredReport(rep), &saved); err != nil {
		t.Fatal(err)
	}
	if len(saved.Queued) != 500 || saved.Queued[499].ID != "pay_Cut0000499" || saved.Queued[499].AmountMinor != 599 || len(saved.Parked) != 3 {
		t.Fatalf("saved %d queued (last %+v), %d parked; want 500, 3", len(saved.Queued), saved.Queued[len(saved.Queued)-1], len(saved.Parked))
	}
	if saved.Payments.Queued != 600 || len(saved.Settlements) != 0 {
		t.Errorf("saved counts %+v, %d settlement lines; want 600 queued, none", saved.Payments, len(saved.Settlements))
	}
	if want := []string{"first", "the stored report keeps 500 of each list: left out [100 queued] (`reconcile --json` prints them all)"}; !reflect.DeepEqual(saved.Warnings, want) {
		t.Errorf("saved warnings %q; want %q", saved.Warnings, want)
	}
	if len(rep.Queued) != 600 || len(rep.Warnings) != 1 || len(rep.Settlements) != 1 {
		t.Errorf("the report changed: %d queued, %d warnings, %d settlement lines", len(rep.Queued), len(rep.Warnings), len(rep.Settlements))
	}
}
