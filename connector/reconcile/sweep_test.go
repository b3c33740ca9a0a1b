package reconcile_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

func (e *reconcileEnv) invoice(rate string) string {
	e.t.Helper()
	if err := e.site.AddCustomer("Test Customer"); err != nil && !strings.Contains(err.Error(), "exists") {
		e.t.Fatal(err)
	}
	name, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}})
	if err != nil {
		e.t.Fatal(err)
	}
	return name
}

// The run drains what it queued with the worker's code and reports how each row ended:
// lost payments booked or parked, a lost refund booked after its payment's receipt.
func TestReconcileDrainsWhatItQueued(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.cfg.Workers = 1 // in queue order: the receipt, then its refund
	e.cfg.Reconcile.DrainTimeout = connector.Duration(30 * time.Second)
	inv := e.invoice("500.00")
	e.payment(payID(1), "", e.now.Add(-2*time.Hour), razorpay.Notes{"invoice": inv})
	if _, err := e.sim.CreatePayment(razorpay.Payment{ID: payID(2), Amount: 50000, Currency: "INR", Method: "upi",
		CreatedAt: e.now.Add(-time.Hour).Unix()}, razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
		t.Fatal(err) // names no invoice anywhere: parks
	}
	if _, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: inv,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "100.00"}}}); err != nil {
		t.Fatal(err)
	}
	rf, err := e.sim.CreateRefund(razorpay.Refund{PaymentID: payID(1), Amount: 10000, CreatedAt: e.now.Add(-30 * time.Minute).Unix()}, razorpaysim.RefundOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	rep := e.reconcile(e.connector(), reconcile.Request{Drain: true, Progress: func(p reconcile.Progress) { phases = append(phases, p.Phase) }})
	if p := rep.Payments; p.Scanned != 2 || p.Queued != 2 || p.Booked != 1 || p.Parked != 1 {
		t.Errorf("payments %+v: want 2 queued, 1 booked, 1 parked", p)
	}
	if r := rep.Refunds; r.Scanned != 1 || r.Queued != 1 || r.Booked != 1 {
		t.Errorf("refunds %+v: want the refund queued and booked", r)
	}
	if len(rep.Parked) != 1 || rep.Parked[0].ID != payID(2) || !strings.Contains(rep.Parked[0].Reason, "no invoice matched") || !rep.NeedsAttention {
		t.Errorf("parked %+v", rep.Parked)
	}
	for _, it := range rep.Queued {
		if it.ID == rf.ID && (it.Status != string(connector.StatusDone) || !strings.HasPrefix(it.Result, "Payment Entry ")) {
			t.Errorf("refund item %+v", it)
		}
	}
	runs, err := e.db.ListReconcileRuns(context.Background(), 1)
	if err != nil || len(runs) != 1 || runs[0].Queued != 3 || runs[0].Booked != 2 || runs[0].Parked != 1 || runs[0].Error != "" {
		t.Errorf("run record %+v %v: want 3 queued, 2 booked (receipt and refund), 1 parked: the report's own figures", runs, err)
	}
	if !strings.Contains(strings.Join(phases, ","), "booking") {
		t.Errorf("progress phases %v lack the drain", phases)
	}
}

// A drain that cannot finish within reconcile.drain_timeout leaves the rest to the daemon.
func TestReconcileDrainStopsAtItsTimeout(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.cfg.Reconcile.DrainTimeout = connector.Duration(300 * time.Millisecond)
	e.payment(payID(3), "", e.now.Add(-time.Hour), razorpay.Notes{"invoice": "ACC-SINV-2026-00001"})
	e.site.FailNext(100000, 500) // ERPNext keeps failing: the row is retried, never final
	rep := e.reconcile(e.connector(), reconcile.Request{Drain: true})
	if rep.Payments.Queued != 1 || rep.Payments.Pending != 1 {
		t.Errorf("payments %+v: want the row queued and still pending", rep.Payments)
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "drain stopped after 300ms; rows still pending are booked by the daemon's workers") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// With reconcile.capture_authorized an Integration Request's payment authorized too long is
// captured (never in a dry run, which says it would) and then queued.
func TestReconcileCapturesAuthorizedWhenConfigured(t *testing.T) {
	irs := []map[string]any{{"name": "a1b2c3d4e5", "status": "Authorized", "data": irData("pay_T3stIRAuthor02", "ACC-PRQ-2026-00001"),
		"reference_doctype": "Payment Request", "reference_docname": "ACC-PRQ-2026-00001"}}
	e := newReconcileEnv(t, integrationRequests(irs))
	e.cfg.Reconcile.IntegrationRequests, e.cfg.Reconcile.CaptureAuthorized = true, true
	e.payment("pay_T3stIRAuthor02", "authorized", e.now.Add(-3*time.Hour), nil)
	dry := e.reconcile(e.connector(), reconcile.Request{DryRun: true})
	if len(dry.Authorized) != 1 || !strings.HasPrefix(dry.Authorized[0].Reason, "would capture: authorized 3h0m0s ago") {
		t.Fatalf("dry run authorized %+v", dry.Authorized)
	}
	rep := e.reconcile(e.connector(), reconcile.Request{})
	if rep.IntegrationRequests.Captured != 1 || rep.IntegrationRequests.Queued != 1 || len(rep.Authorized) != 0 {
		t.Errorf("integration requests %+v, authorized %+v: want captured and queued", rep.IntegrationRequests, rep.Authorized)
	}
	for _, p := range e.sim.State().Payments {
		if p.ID == "pay_T3stIRAuthor02" && p.Status != "captured" {
			t.Errorf("payment %s", p.Status)
		}
	}
}

// The audit reports, changing nothing: two submitted entries under one reference_no, a booking
// whose entry was cancelled, an invoice paid beyond its total under two references.
func TestReconcileAuditReports(t *testing.T) {
	e := newReconcileEnv(t, nil)
	ctx := context.Background()
	erp, err := frappe.New(frappe.Config{URL: e.cfg.ERPNext.URL, APIKey: erpKey, APISecret: erpSecret})
	if err != nil {
		t.Fatal(err)
	}
	inv := e.invoice("1000.00")
	today := e.now.In(ist(t)).Format("2006-01-02")
	entry := func(ref string, amount float64) string {
		var pe frappe.PaymentEntry
		if err := erp.Insert(ctx, frappe.DoctypePaymentEntry, map[string]any{"payment_type": "Receive", "company": erpnextsim.DefaultCompany,
			"party_type": "Customer", "party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing, "mode_of_payment": "Razorpay",
			"paid_amount": amount, "received_amount": amount, "reference_no": ref, "reference_date": today, "posting_date": today, "docstatus": 1,
			"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": amount}},
		}, &pe); err != nil {
			t.Fatal(err)
		}
		return pe.Name
	}
	a := entry("pay_T3stAudit00001", 100)
	b := entry("pay_T3stAudit00001", 100)
	cancelled := entry("pay_T3stAudit00002", 100)
	if err := erp.Call(ctx, "frappe.client.cancel", map[string]any{"doctype": frappe.DoctypePaymentEntry, "name": cancelled}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.db.ClaimBooking(ctx, connector.Booking{BusinessKey: "pay_T3stAudit00002", Kind: connector.KindReceipt, Owner: "t", FenceUntil: e.now}, e.now); err != nil {
		t.Fatal(err)
	}
	if err := e.db.FinishBooking(ctx, connector.Booking{BusinessKey: "pay_T3stAudit00002", Doctype: frappe.DoctypePaymentEntry, Name: cancelled}, e.now); err != nil {
		t.Fatal(err)
	}
	// A settlement's Journal Entry cancelled in ERPNext, and one deleted.
	var je struct {
		Name string `json:"name"`
	}
	if err := erp.Insert(ctx, frappe.DoctypeJournalEntry, map[string]any{"voucher_type": "Journal Entry", "company": erpnextsim.DefaultCompany,
		"posting_date": today, "docstatus": 1, "accounts": []map[string]any{
			{"account": erpnextsim.DefaultBank, "debit_in_account_currency": 100},
			{"account": erpnextsim.CashAccount, "credit_in_account_currency": 100}}}, &je); err != nil {
		t.Fatal(err)
	}
	if err := erp.Call(ctx, "frappe.client.cancel", map[string]any{"doctype": frappe.DoctypeJournalEntry, "name": je.Name}, nil); err != nil {
		t.Fatal(err)
	}
	for _, kn := range [][2]string{{"setl_T3stAudit0001", je.Name}, {"setl_T3stAudit0002", "ACC-JV-2026-99999"}} {
		key, name := kn[0], kn[1]
		if _, _, err := e.db.ClaimBooking(ctx, connector.Booking{BusinessKey: key, Kind: connector.KindSettlement, Owner: "t", FenceUntil: e.now}, e.now); err != nil {
			t.Fatal(err)
		}
		if err := e.db.FinishBooking(ctx, connector.Booking{BusinessKey: key, Doctype: frappe.DoctypeJournalEntry, Name: name}, e.now); err != nil {
			t.Fatal(err)
		}
	}
	before := len(e.site.Docs(frappe.DoctypePaymentEntry))
	rep := e.reconcile(e.connector(), reconcile.Request{})
	kinds := map[string][]reconcile.Anomaly{}
	for _, an := range rep.Anomalies {
		kinds[an.Kind] = append(kinds[an.Kind], an)
	}
	if d := kinds[reconcile.AnomalyDuplicateReference]; len(d) != 1 || strings.Join(d[0].Documents, ",") != a+","+b {
		t.Errorf("duplicate reference_no %+v: want %s and %s", d, a, b)
	}
	// The message points at the usual cause: two stores booking into one ERPNext.
	if d := kinds[reconcile.AnomalyDuplicateReference]; len(d) == 1 && (!strings.Contains(d[0].Detail, "two connector stores booking into this ERPNext") ||
		!strings.Contains(d[0].Detail, "erpnext.name_entries_by_payment_id")) {
		t.Errorf("duplicate reference_no detail %q does not name the two-stores cause and the setting", d[0].Detail)
	}
	if c := kinds[reconcile.AnomalyBookingCancelled]; len(c) != 3 || c[0].Documents[0] != cancelled || !strings.Contains(c[0].Detail, "was cancelled in ERPNext") ||
		c[1].Documents[0] != je.Name || c[1].Detail != "Journal Entry "+je.Name+" booked for setl_T3stAudit0001 was cancelled in ERPNext; it is not re-booked automatically (replay the event after checking the money)" ||
		c[2].Documents[0] != "ACC-JV-2026-99999" || !strings.Contains(c[2].Detail, "Journal Entry ACC-JV-2026-99999 booked for setl_T3stAudit0002 was deleted in ERPNext") {
		t.Errorf("cancelled bookings %+v: want the Payment Entry, then the Journal Entry cancelled and the one deleted", c)
	}
	if after := len(e.site.Docs(frappe.DoctypePaymentEntry)); after != before || !rep.NeedsAttention {
		t.Errorf("the audit changed ERPNext (%d → %d) or needs no attention", before, after)
	}
	// Two entries under different references saved at once both pass ERPNext's check against
	// a stale outstanding (spec/erpnext.md §3.7): the invoice is paid twice.
	raced := e.invoice("1000.00")
	e.site.CommitTogether(2, testtime.Bound)
	errs := make(chan error, 2)
	for _, ref := range []string{"pay_T3stAudRace001", "UTR-T3ST-000001"} {
		go func(ref string) {
			errs <- erp.Insert(ctx, frappe.DoctypePaymentEntry, map[string]any{"payment_type": "Receive", "company": erpnextsim.DefaultCompany,
				"party_type": "Customer", "party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing, "mode_of_payment": "Razorpay",
				"paid_amount": 1000, "received_amount": 1000, "reference_no": ref, "reference_date": today, "posting_date": today, "docstatus": 1,
				"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": raced, "allocated_amount": 1000}},
			}, nil)
		}(ref)
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// ERPNext's checkout booked a Payment Request as an advance under its name, and the same
	// money was booked again against the invoice, linking the request.
	requested := e.invoice("800.00")
	pr, err := e.site.AddPaymentRequest(requested, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	pe := func(ref string, refs []map[string]any) {
		if err := erp.Insert(ctx, frappe.DoctypePaymentEntry, map[string]any{"payment_type": "Receive", "company": erpnextsim.DefaultCompany,
			"party_type": "Customer", "party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing, "mode_of_payment": "Razorpay",
			"paid_amount": 800, "received_amount": 800, "reference_no": ref, "reference_date": today, "posting_date": today, "docstatus": 1,
			"references": refs}, nil); err != nil {
			t.Fatal(err)
		}
	}
	pe(pr, []map[string]any{})
	pe("pay_T3stAudPrq0001", []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": requested, "allocated_amount": 800, "payment_request": pr}})
	rep = e.reconcile(e.connector(), reconcile.Request{})
	for _, an := range rep.Anomalies {
		if an.Kind == reconcile.AnomalyPaymentRequestPaidTwice && (an.Documents[0] != pr || len(an.Documents) != 3) {
			t.Errorf("Payment Request anomaly %+v", an)
		}
	}
	if n := countKind(rep.Anomalies, reconcile.AnomalyPaymentRequestPaidTwice); n != 1 {
		t.Errorf("anomalies %+v: want %s paid twice", rep.Anomalies, pr)
	}
	found := false
	for _, an := range rep.Anomalies {
		if an.Kind == reconcile.AnomalyInvoicePaidTwice && an.Documents[0] == raced && len(an.Documents) == 3 && strings.Contains(an.Detail, "(total 1000.00) was paid 2000.00") {
			found = true
		}
	}
	if !found {
		t.Errorf("anomalies %+v: want %s paid 2000.00 of 1000.00", rep.Anomalies, raced)
	}
}

// Razorpay's list answering 500 and 429 is retried; refused keys stop the run at once.
func TestReconcileRetriesRazorpayAndStopsOnRefusedKeys(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.payment(payID(4), "", e.now.Add(-time.Hour), nil)
	e.sim.SetFaults(razorpaysim.Faults{FailNext: []int{500, 429}})
	if rep := e.reconcile(e.connector(), reconcile.Request{DryRun: true}); rep.Payments.Queued != 1 {
		t.Errorf("after retries: %+v", rep.Payments)
	}
	e.sim.SetFaults(razorpaysim.Faults{})
	cfg := e.cfg
	rzp, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: cfg.Razorpay.APIURL, KeyID: rzpKey, KeySecret: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	erp, err := frappe.New(frappe.Config{URL: cfg.ERPNext.URL, APIKey: erpKey, APISecret: erpSecret})
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.New(wire.Options{Config: cfg, Store: e.db, ERP: erp, Razorpay: rzp, Log: zerolog.Nop(), Now: func() time.Time { return e.now }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = reconcile.Run(context.Background(), c.Reconcile(), reconcile.Request{})
	if f := connector.FailureOf(err); f == nil || f.Kind != connector.FailAuth || !strings.Contains(err.Error(), "Razorpay refused the API key") {
		t.Errorf("err %v, want the refused keys", err)
	}
	runs, _ := e.db.ListReconcileRuns(context.Background(), 1)
	if len(runs) != 1 || runs[0].FinishedAt == nil || runs[0].Error == "" {
		t.Errorf("run record %+v: want it finished with the error", runs)
	}
}

func TestReconcileRefusesWhatItCannotDo(t *testing.T) {
	e := newReconcileEnv(t, nil)
	c, err := wire.New(wire.Options{Config: e.cfg, Store: e.db, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reconcile.Run(context.Background(), c.Reconcile(), reconcile.Request{}); !errors.Is(err, reconcile.ErrNoRazorpayAPI) {
		t.Errorf("without the API: %v", err)
	}
	_, err = reconcile.Run(context.Background(), e.connector().Reconcile(), reconcile.Request{From: e.now, To: e.now.Add(-time.Hour)})
	if err == nil || !strings.Contains(err.Error(), "is not before its end") {
		t.Errorf("backwards window: %v", err)
	}
}

func ist(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func countKind(as []reconcile.Anomaly, kind string) int {
	n := 0
	for _, a := range as {
		if a.Kind == kind {
			n++
		}
	}
	return n
}
