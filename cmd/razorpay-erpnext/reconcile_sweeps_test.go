package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// invoiceOf returns the Sales Invoice the single submitted receipt of payment id allocates to.
func (e *rzpEnv) invoiceOf(id string) string {
	e.t.Helper()
	sub, _ := e.entries(id)
	if len(sub) != 1 {
		e.t.Fatalf("payment %s: %d submitted entries, want 1\n%s", id, len(sub), e.logs.String())
	}
	refs := rows(sub[0], "references")
	if len(refs) != 1 {
		e.t.Fatalf("payment %s: references %v", id, refs)
	}
	return fmt.Sprint(refs[0]["reference_name"])
}

// A processed refund whose webhooks were all lost is queued as reconcile:<refund id> and
// booked by the refund engine against the credit note (one Pay entry, negative allocation); a
// failed refund, lost the same way, is never queued; a second run queues nothing.
func TestReconcileBooksLostRefundOnce(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newRzpEnv(t, driver, "", nil)
		pay := e.addPayment(1, 118000, time.Now().Add(-2*time.Hour), false)
		e.settle()
		inv := e.invoiceOf(pay)
		cn, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: inv,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1180.00"}}})
		if err != nil {
			t.Fatal(err)
		}
		const processed, failed = "rfnd_T3stReconRf001", "rfnd_T3stReconRf002"
		if _, err := e.sim.CreateRefund(razorpay.Refund{ID: processed, PaymentID: pay, Amount: 20000}, razorpaysim.RefundOptions{Lose: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.sim.CreateRefund(razorpay.Refund{ID: failed, PaymentID: pay, Amount: 30000}, razorpaysim.RefundOptions{Lose: true, Final: "failed"}); err != nil {
			t.Fatal(err)
		}
		path := e.configFile()

		rep := e.reconcile(path, exitOK)
		if rep.Refunds.Scanned != 1 || rep.Refunds.Queued != 1 || rep.Refunds.Booked != 1 || rep.Refunds.Parked != 0 {
			t.Fatalf("refunds %+v: want the processed refund scanned, queued and booked\nparked %+v\n%s", rep.Refunds, rep.Parked, e.logs.String())
		}
		var queued *reconcile.Item
		for i := range rep.Queued {
			if rep.Queued[i].ID == processed {
				queued = &rep.Queued[i]
			}
		}
		if queued == nil || queued.Kind != "refund" || queued.EventID != "reconcile:"+processed || queued.Status != string(connector.StatusDone) {
			t.Errorf("queued %+v: want %s as a done reconcile row", rep.Queued, processed)
		}
		sub, other := e.entries(processed)
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("refund %s: %d submitted, %d other entries; want one", processed, len(sub), len(other))
		}
		pe := sub[0]
		refs := rows(pe, "references")
		if pe["payment_type"] != "Pay" || len(refs) != 1 || refs[0]["reference_name"] != cn {
			t.Errorf("refund entry %v with references %v: want a Pay entry against the credit note %s", pe["payment_type"], refs, cn)
		} else {
			wantAmount(t, "refund allocation", refs[0]["allocated_amount"], -20000)
		}
		if sub, other := e.entries(failed); len(sub)+len(other) != 0 {
			t.Errorf("the failed refund %s has Payment Entries", failed)
		}
		if rows, err := e.d.db.FindEvents(context.Background(), failed); err != nil || len(rows) != 0 {
			t.Errorf("the failed refund was queued: %+v (%v)", rows, err)
		}

		again := e.reconcile(path, exitOK)
		if again.Refunds.Queued != 0 || again.Refunds.AlreadyBooked != 1 {
			t.Errorf("second run refunds %+v: want 0 queued, 1 already booked", again.Refunds)
		}
		if sub, _ := e.entries(processed); len(sub) != 1 {
			t.Errorf("refund %s: %d submitted entries after the second run", processed, len(sub))
		}
	})
}

// Late authorisation: Razorpay reported the payment failed (that webhook arrived), then
// authorised and captured it (those webhooks were lost). The payment.failed row for the payment
// id must not stop the sweep: the captured payment is queued and booked once.
func TestReconcileBooksLateAuthorisation(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newRzpEnv(t, driver, "", nil)
		inv := e.newInvoice("Test Customer", "700.00")
		const id = "pay_T3stLateAuth001"
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: id, Amount: 70000, Currency: "INR", Method: "upi",
			CreatedAt: time.Now().Add(-time.Hour).Unix(), Notes: razorpay.Notes{"invoice": inv}},
			razorpaysim.PaymentOptions{Lose: true, Receipt: inv, LateAuthorisation: true}); err != nil {
			t.Fatal(err)
		}
		delivered := 0
		for _, ev := range e.sim.State().Events {
			if ev.Event == "payment.failed" {
				if code, resp := e.deliver(e.d, ev.ID, []byte(ev.Body)); code != 200 {
					t.Fatalf("payment.failed: %d %s", code, resp)
				}
				delivered++
			}
		}
		if delivered != 1 {
			t.Fatalf("delivered %d payment.failed events, want 1", delivered)
		}
		e.waitIdle(e.d)
		before, err := e.d.db.FindEvents(context.Background(), id)
		if err != nil || len(before) != 1 || before[0].Event != "payment.failed" {
			t.Fatalf("rows before reconcile %+v (%v): want the payment.failed row", before, err)
		}

		rep := e.reconcile(e.configFile(), exitOK)
		if rep.Payments.Queued != 1 || rep.Payments.Booked != 1 || len(rep.Queued) != 1 || rep.Queued[0].ID != id {
			t.Fatalf("payments %+v, queued %+v: want the late-authorised payment queued and booked", rep.Payments, rep.Queued)
		}
		sub, other := e.entries(id)
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("payment %s: %d submitted, %d other entries; want one", id, len(sub), len(other))
		}
		after, _ := e.d.db.FindEvents(context.Background(), id)
		if len(after) != 2 {
			t.Errorf("rows after %+v: want payment.failed and reconcile:%s", after, id)
		}
		if again := e.reconcile(e.configFile(), exitOK); again.Payments.Queued != 0 {
			t.Errorf("second run queued %d", again.Payments.Queued)
		}
	})
}

// authorizedAtCheckout is a payment of ERPNext's checkout for Payment Request pr, authorized
// three hours ago and never captured, whose Integration Request is left Authorized; its
// webhooks are lost.
func (e *rzpEnv) authorizedAtCheckout(id string, amount int64, pr string) {
	e.t.Helper()
	if _, err := e.sim.CreatePayment(razorpay.Payment{ID: id, Amount: amount, Currency: "INR", Method: "card", Status: "authorized",
		CreatedAt: time.Now().Add(-3 * time.Hour).Unix()}, razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.site.AddIntegrationRequest(erpnextsim.IntegrationRequestSpec{Service: "Razorpay", Status: "Authorized",
		ReferenceDoctype: "Payment Request", ReferenceDocname: pr,
		Data: map[string]any{"razorpay_payment_id": id, "reference_doctype": "Payment Request", "reference_docname": pr, "amount": amount}}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *rzpEnv) simStatus(id string) string {
	for _, p := range e.sim.State().Payments {
		if p.ID == id {
			return p.Status
		}
	}
	e.t.Fatalf("payment %s not in the simulator", id)
	return ""
}

// reconcile.capture_authorized: a checkout payment still authorized past
// reconcile.authorized_age is captured through the Razorpay API and booked through its Payment
// Request; a dry run only says it would capture.
func TestReconcileCapturesAuthorizedWhenConfigured(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", func(c *connector.Config) {
		c.ERPNext.APIKey, c.ERPNext.APISecret = sysManager.Key, sysManager.Secret
		c.Reconcile.IntegrationRequests = true
		c.Reconcile.CaptureAuthorized = true
		c.Reconcile.AuthorizedAge = connector.Duration(time.Hour)
	}, withSystemManager)
	e.secret["ERP_KEY"], e.secret["ERP_SECRET"] = sysManager.Key, sysManager.Secret
	// The capture's own webhooks are refused by the daemon (a broken endpoint, the case
	// reconcile exists for), so the booking here is the reconciler's.
	e.sim.SetFaults(razorpaysim.Faults{WrongSecret: true})
	pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "pay_T3stIRCapture1"
	e.authorizedAtCheckout(id, 1200000, pr)
	path := e.configFile()

	dry := e.reconcile(path, exitParked, "--dry-run")
	if len(dry.Authorized) != 1 || dry.Authorized[0].ID != id || !strings.HasPrefix(dry.Authorized[0].Reason, "would capture") {
		t.Errorf("dry run authorized %+v: want %s reported as would capture", dry.Authorized, id)
	}
	if s := e.simStatus(id); s != "authorized" {
		t.Fatalf("a dry run captured the payment: %s", s)
	}

	rep := e.reconcile(path, exitOK)
	ir := rep.IntegrationRequests
	if ir.Captured != 1 || ir.Queued != 1 || ir.Booked != 1 || len(rep.Authorized) != 0 {
		t.Fatalf("integration requests %+v, authorized %+v: want the payment captured, queued and booked\n%s", ir, rep.Authorized, e.logs.String())
	}
	if s := e.simStatus(id); s != "captured" {
		t.Errorf("Razorpay says %s, want captured", s)
	}
	sub, other := e.entries(id)
	if len(sub) != 1 || len(other) != 0 {
		t.Fatalf("payment %s: %d submitted, %d other entries; want one", id, len(sub), len(other))
	}
	if doc, _ := e.site.Doc("Payment Request", pr); doc["status"] != "Paid" {
		t.Errorf("Payment Request %s status %v, want Paid", pr, doc["status"])
	}
	again := e.reconcile(path, exitOK)
	if again.IntegrationRequests.Captured != 0 || again.IntegrationRequests.Queued != 0 || again.IntegrationRequests.AlreadyBooked != 1 {
		t.Errorf("second run %+v: want nothing captured or queued, 1 already booked", again.IntegrationRequests)
	}
}

// Without reconcile.capture_authorized the same payment is only reported: exit 3, nothing
// captured, nothing booked.
func TestReconcileOnlyReportsAuthorizedByDefault(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", func(c *connector.Config) {
		c.ERPNext.APIKey, c.ERPNext.APISecret = sysManager.Key, sysManager.Secret
		c.Reconcile.IntegrationRequests = true
		c.Reconcile.AuthorizedAge = connector.Duration(time.Hour)
	}, withSystemManager)
	e.secret["ERP_KEY"], e.secret["ERP_SECRET"] = sysManager.Key, sysManager.Secret
	pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "pay_T3stIRReport01"
	e.authorizedAtCheckout(id, 1200000, pr)
	rep := e.reconcile(e.configFile(), exitParked)
	if len(rep.Authorized) != 1 || rep.IntegrationRequests.Captured != 0 || !strings.Contains(rep.Authorized[0].Reason, "capture_authorized") {
		t.Errorf("authorized %+v, counts %+v: want the payment reported with how to capture it", rep.Authorized, rep.IntegrationRequests)
	}
	if s := e.simStatus(id); s != "authorized" {
		t.Errorf("captured without reconcile.capture_authorized: %s", s)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 0 {
		t.Errorf("%d Payment Entries, want none", n)
	}
}

// receive submits a Razorpay receipt entry of paid rupees for Test Customer under ref with the
// given reference rows, as a person or ERPNext's own checkout would.
func (e *rzpEnv) receive(ref string, paid int, references []map[string]any) (string, error) {
	var pe frappe.PaymentEntry
	err := e.client().Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "posting_date": istDate(time.Now()),
		"party_type": "Customer", "party": "Test Customer", "mode_of_payment": "Razorpay", "paid_to": erpnextsim.RazorpayClearing,
		"paid_amount": paid, "received_amount": paid, "reference_no": ref, "reference_date": istDate(time.Now()), "docstatus": 1,
		"references": references,
	}, &pe)
	return pe.Name, err
}

func invoiceRow(inv string, amount int, pr string) []map[string]any {
	row := map[string]any{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": amount}
	if pr != "" {
		row["payment_request"] = pr
	}
	return []map[string]any{row}
}

// The audit reports a Sales Invoice allocated beyond its total by two entries under different
// references (both saved at once: ERPNext checks a stale outstanding, spec/erpnext.md §3.7) and
// a Payment Request paid twice (ERPNext's checkout under reference_no = its name, another entry
// linking it in a reference row), not an invoice paid in two parts; it changes nothing.
func TestReconcileAuditReportsDocumentsPaidTwice(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", nil)
	raced := e.newInvoice("Test Customer", "1000.00")
	e.site.CommitTogether(2, testtime.Bound)
	errs := make(chan error, 2)
	for _, ref := range []string{"pay_T3stAuditRace01", "UTR-T3ST-000001"} {
		go func(ref string) {
			_, err := e.receive(ref, 1000, invoiceRow(raced, 1000, ""))
			errs <- err
		}(ref)
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("racing entries: %v", err)
		}
	}
	split := e.newInvoice("Test Customer", "1000.00")
	for _, ref := range []string{"pay_T3stAuditPart01", "pay_T3stAuditPart02"} {
		if _, err := e.receive(ref, 500, invoiceRow(split, 500, "")); err != nil {
			t.Fatal(err)
		}
	}
	requested := e.newInvoice("Test Customer", "800.00")
	pr, err := e.site.AddPaymentRequest(requested, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	checkout, err := e.receive(pr, 800, nil) // ERPNext's checkout: an advance under the request's name
	if err != nil {
		t.Fatal(err)
	}
	linked, err := e.receive("pay_T3stAuditPrq001", 800, invoiceRow(requested, 800, pr))
	if err != nil {
		t.Fatal(err)
	}
	before := len(e.site.Docs("Payment Entry"))

	rep := e.reconcile(e.configFile(), exitParked)
	byKind := map[string][]reconcile.Anomaly{}
	for _, a := range rep.Anomalies {
		byKind[a.Kind] = append(byKind[a.Kind], a)
	}
	if inv := byKind[reconcile.AnomalyInvoicePaidTwice]; len(inv) != 1 || inv[0].Documents[0] != raced || len(inv[0].Documents) != 3 ||
		!strings.Contains(inv[0].Detail, "total 1000.00") || !strings.Contains(inv[0].Detail, "paid 2000.00") {
		t.Errorf("invoice anomalies %+v: want %s, paid 2000.00 of 1000.00 by its two entries", inv, raced)
	}
	want := []string{pr, checkout, linked}
	sort.Strings(want[1:])
	if prq := byKind[reconcile.AnomalyPaymentRequestPaidTwice]; len(prq) != 1 || strings.Join(prq[0].Documents, ",") != strings.Join(want, ",") {
		t.Errorf("Payment Request anomalies %+v: want %v", prq, want)
	}
	if len(rep.Anomalies) != 2 {
		t.Errorf("anomalies %+v: want exactly the two (nothing for the invoice paid in parts)", rep.Anomalies)
	}
	if after := len(e.site.Docs("Payment Entry")); after != before {
		t.Errorf("the audit changed ERPNext: %d → %d entries", before, after)
	}
	counts, _ := e.d.db.CountByStatus(context.Background())
	for status, n := range counts {
		if n != 0 {
			t.Errorf("the audit queued rows: %d %s", n, status)
		}
	}
}
