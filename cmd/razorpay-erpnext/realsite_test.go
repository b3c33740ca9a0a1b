package main

import (
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// The paths that never worked on a real Frappe 15.72.4 / ERPNext 15.71.1 site because their
// lists join a child table with an unqualified order_by
// (erpnext-recorded-connector/R01, R02). The simulator answers those lists 500 1052 as the
// real site does; these tests show each path runs end to end and that what the connector sent
// is the qualified list.

const qualifiedCreation = "`tabPayment Entry`.`creation` asc"

// joinedLists returns the Payment Entry lists in the site's request log whose filters or fields
// name Payment Entry Reference, and fails on any 500 the site answered.
func joinedLists(t *testing.T, site *erpnextsim.Site) []erpnextsim.RequestLog {
	t.Helper()
	var out []erpnextsim.RequestLog
	for _, r := range site.Requests() {
		if r.Status == 500 {
			t.Errorf("the site answered 500 to %s %s %v", r.Method, r.Path, r.Query)
		}
		if r.Method == "GET" && r.Path == "/api/resource/Payment Entry" &&
			strings.Contains(r.Query.Get("filters")+r.Query.Get("fields"), "Payment Entry Reference") {
			out = append(out, r)
		}
	}
	return out
}

// TestRealSitePaymentRequestPaymentBooks: a payment naming an ERPNext Payment Request books,
// linked to the request, and the Payment Request lookup (checkoutEntries) was sent qualified.
func TestRealSitePaymentRequestPaymentBooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	d := e.start(e.config())
	e.deliver(d, "T3stEvRealPr01", envelope(t, "payment.captured", "payment",
		capture("pay_T3stRealPr0001", 1200000, map[string]any{"notes": map[string]any{"payment_request": pr}})))
	e.waitIdle(d)
	refs := rows(e.one("pay_T3stRealPr0001"), "references")
	if len(refs) != 1 || refs[0]["reference_name"] != e.invoice || refs[0]["payment_request"] != pr {
		t.Fatalf("references %v: want %s linked to %s", refs, e.invoice, pr)
	}
	lookups := 0
	for _, r := range joinedLists(t, e.site) {
		if strings.Contains(r.Query.Get("filters"), `"payment_request","=","`+pr+`"`) {
			lookups++
			if ob := r.Query.Get("order_by"); ob != qualifiedCreation || r.Status != 200 {
				t.Errorf("Payment Request lookup sent order_by %q, answered %d; want %q, 200", ob, r.Status, qualifiedCreation)
			}
		}
	}
	if lookups == 0 {
		t.Error("the connector never looked up the entries of the Payment Request")
	}
}

// TestRealSiteIntegrationRequestSweepBooks: a checkout payment found only through its
// Integration Request (read by a System Manager: Accounts User + Sales User may not, R13 / 45-*)
// books through its Payment Request on reconcile.
func TestRealSiteIntegrationRequestSweepBooks(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", func(c *connector.Config) {
		c.ERPNext.APIKey, c.ERPNext.APISecret = sysManager.Key, sysManager.Secret
		c.Reconcile.IntegrationRequests = true
	}, withSystemManager)
	e.secret["ERP_KEY"], e.secret["ERP_SECRET"] = sysManager.Key, sysManager.Secret
	pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "pay_T3stRealIR0001"
	if _, err := e.sim.CreatePayment(razorpay.Payment{ID: id, Amount: 1200000, Currency: "INR", Method: "card",
		CreatedAt: time.Now().Add(-time.Hour).Unix()}, razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.site.AddIntegrationRequest(erpnextsim.IntegrationRequestSpec{Service: "Razorpay", Status: "Authorized",
		ReferenceDoctype: "Payment Request", ReferenceDocname: pr,
		Data: map[string]any{"razorpay_payment_id": id, "reference_doctype": "Payment Request", "reference_docname": pr, "amount": 1200000}}); err != nil {
		t.Fatal(err)
	}
	e.settle()
	rep := e.reconcile(e.configFile(), exitOK)
	if rep.IntegrationRequests.Queued != 1 || len(rep.Warnings) != 0 {
		t.Fatalf("integration requests %+v, warnings %q: want the payment queued", rep.IntegrationRequests, rep.Warnings)
	}
	e.waitIdle(e.d)
	refs := rows(e.one(id), "references")
	if len(refs) != 1 || refs[0]["payment_request"] != pr {
		t.Fatalf("references %v: want the row linked to %s", refs, pr)
	}
	if s := e.doc("Payment Request", pr)["status"]; s != "Paid" {
		t.Errorf("Payment Request %v, want Paid", s)
	}
	for _, r := range joinedLists(t, e.site) {
		if ob := r.Query.Get("order_by"); ob != qualifiedCreation {
			t.Errorf("joined list sent order_by %q, want %q", ob, qualifiedCreation)
		}
	}
}

// TestRealSitePaidTwiceAuditReports: the paid-twice audit runs (its joined lists answer 200) and
// reports a Payment Request booked twice: by ERPNext's checkout under reference_no = its name
// and by an entry linking it in a reference row.
func TestRealSitePaidTwiceAuditReports(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", nil)
	requested := e.newInvoice("Test Customer", "800.00")
	pr, err := e.site.AddPaymentRequest(requested, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	checkout, err := e.receive(pr, 800, nil)
	if err != nil {
		t.Fatal(err)
	}
	linked, err := e.receive("pay_T3stRealTwice1", 800, invoiceRow(requested, 800, pr))
	if err != nil {
		t.Fatal(err)
	}
	rep := e.reconcile(e.configFile(), exitParked)
	var found []reconcile.Anomaly
	for _, a := range rep.Anomalies {
		if a.Kind == reconcile.AnomalyPaymentRequestPaidTwice {
			found = append(found, a)
		}
	}
	if len(found) != 1 || !strings.Contains(strings.Join(found[0].Documents, ","), checkout) || !strings.Contains(strings.Join(found[0].Documents, ","), linked) {
		t.Fatalf("anomalies %+v: want %s paid twice by %s and %s", rep.Anomalies, pr, checkout, linked)
	}
	audits := 0
	for _, r := range joinedLists(t, e.site) {
		if strings.Contains(r.Query.Get("fields"), "ref_payment_request") {
			audits++
			if ob := r.Query.Get("order_by"); ob != qualifiedCreation || r.Status != 200 {
				t.Errorf("audit list sent order_by %q, answered %d; want %q, 200", ob, r.Status, qualifiedCreation)
			}
		}
	}
	if audits == 0 {
		t.Error("the audit sent no joined list")
	}
}
