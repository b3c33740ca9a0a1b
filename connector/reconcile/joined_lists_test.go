package reconcile_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// The paid-twice audit's lists join Payment Entry Reference: on a real site an
// unqualified order_by answers 500 1052 (erpnext-recorded-connector/R01), as the strict
// simulator does. Each of its call sites — the recent entries, and every chunk of the invoices
// and Payment Requests they pay — is sent qualified and answered 200, and a double payment in
// the second chunk is still found.
func TestPaidTwiceAuditChunksAreQualifiedOnAStrictSite(t *testing.T) {
	e := newReconcileEnv(t, nil)
	today := e.now.In(ist(t)).Format("2006-01-02")
	if err := e.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	receipt := func(ref, invoice string, refs []map[string]any) {
		if _, err := e.site.Insert(frappe.DoctypePaymentEntry, map[string]any{"payment_type": "Receive", "company": erpnextsim.DefaultCompany,
			"party_type": "Customer", "party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing, "mode_of_payment": "Razorpay",
			"paid_amount": "100", "received_amount": "100", "reference_no": ref, "reference_date": today, "posting_date": today, "docstatus": 1,
			"references": refs}); err != nil {
			t.Fatalf("entry %s for %s: %v", ref, invoice, err)
		}
	}
	row := func(invoice string) []map[string]any {
		return []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": invoice, "allocated_amount": "100"}}
	}
	var last string
	for i := 0; i < 103; i++ { // more than one chunk (100 names) of invoices
		inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "100.00"}}})
		if err != nil {
			t.Fatal(err)
		}
		last = inv
		if i < 102 {
			receipt(fmt.Sprintf("pay_T3stChunk%05d", i), inv, row(inv))
		}
	}
	// The last invoice (in the second chunk) is paid by two entries saved at once, which both
	// pass ERPNext's check against a stale outstanding (spec/erpnext.md §3.7).
	erp, err := frappe.New(frappe.Config{URL: e.cfg.ERPNext.URL, APIKey: erpKey, APISecret: erpSecret})
	if err != nil {
		t.Fatal(err)
	}
	e.site.CommitTogether(2, testtime.Bound)
	errs := make(chan error, 2)
	for _, ref := range []string{"pay_T3stChunkLast1", "UTR-T3ST-CHUNK-02"} {
		go func(ref string) {
			errs <- erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"payment_type": "Receive", "company": erpnextsim.DefaultCompany,
				"party_type": "Customer", "party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing, "mode_of_payment": "Razorpay",
				"paid_amount": 100, "received_amount": 100, "reference_no": ref, "reference_date": today, "posting_date": today, "docstatus": 1,
				"references": row(last)}, nil)
		}(ref)
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	pr := ""
	if inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "100.00"}}}); err != nil {
		t.Fatal(err)
	} else if pr, err = e.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{}); err != nil {
		t.Fatal(err)
	} else {
		r := row(inv)
		r[0]["payment_request"] = pr
		receipt("pay_T3stChunkPrq01", inv, r)
	}
	n := len(e.site.Requests())
	rep := e.reconcile(e.connector(), reconcile.Request{})
	found := false
	for _, an := range rep.Anomalies {
		found = found || an.Kind == reconcile.AnomalyInvoicePaidTwice && an.Documents[0] == last
	}
	if !found || len(rep.Warnings) != 0 {
		t.Errorf("anomalies %+v, warnings %q: want %s (in the second chunk) paid twice and no skipped audit", rep.Anomalies, rep.Warnings, last)
	}
	kinds := map[string]int{}
	for _, r := range e.site.Requests()[n:] {
		q := r.Query.Get("filters") + r.Query.Get("fields")
		if r.Method != "GET" || r.Path != "/api/resource/Payment Entry" || !strings.Contains(q, "Payment Entry Reference") {
			continue
		}
		if ob := r.Query.Get("order_by"); ob != "`tabPayment Entry`.`creation` asc" || r.Status != 200 {
			t.Errorf("joined list %s sent order_by %q, answered %d", q, ob, r.Status)
		}
		switch f := r.Query.Get("filters"); {
		case strings.Contains(f, `"reference_name","in"`):
			kinds["invoice chunks"]++
		case strings.Contains(f, `"payment_request","in"`):
			kinds["Payment Request chunks"]++
		case strings.Contains(f, `"reference_no","in"`):
			kinds["Payment Request reference_no chunks"]++
		default:
			kinds["recent entries"]++
		}
	}
	want := map[string]int{"recent entries": 1, "invoice chunks": 2, "Payment Request chunks": 1, "Payment Request reference_no chunks": 1}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("joined lists sent %v, want %v", kinds, want)
	}
}
