package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

func refundEntity(id, paymentID string, amount int64, status string) map[string]any {
	return map[string]any{"id": id, "entity": "refund", "amount": amount, "currency": "INR", "payment_id": paymentID,
		"notes": []any{}, "receipt": nil, "acquirer_data": map[string]any{"arn": nil}, "created_at": paymentTime.Unix() + 600,
		"batch_id": nil, "status": status, "speed_requested": "normal", "speed_processed": "normal"}
}

// refundWorld is a ₹1,180.00 invoice, its receipt pay_T3stRefund0001 and a full credit note.
type refundWorld struct {
	*env
	d          *daemon
	invoice    string
	creditNote string
}

func newRefundWorld(t *testing.T, driver string, withCreditNote bool, cfgf func(*connector.Config)) *refundWorld {
	e := newEnv(t, driver)
	w := &refundWorld{env: e, invoice: e.newInvoice("Test Customer", "1180.00")}
	cfg := e.config()
	if cfgf != nil {
		cfgf(&cfg)
	}
	w.d = e.start(cfg)
	return w.receiptThen(withCreditNote)
}

func (w *refundWorld) captureBody() []byte {
	return envelope(w.t, "payment.captured", "payment", capture("pay_T3stRefund0001", 118000, map[string]any{"notes": map[string]any{"invoice": w.invoice}}))
}

func (w *refundWorld) receiptThen(withCreditNote bool) *refundWorld {
	w.deliver(w.d, "T3stEvRfCap001", w.captureBody())
	w.waitIdle(w.d)
	w.one("pay_T3stRefund0001")
	if withCreditNote {
		w.addCreditNote()
	}
	return w
}

func (w *refundWorld) addCreditNote() {
	cn, err := w.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: w.invoice,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1180.00"}}})
	if err != nil {
		w.t.Fatal(err)
	}
	w.creditNote = cn
}

func (w *refundWorld) refund(eventID, event, id string, amount int64, status string) {
	w.t.Helper()
	payment := capture("pay_T3stRefund0001", 118000, map[string]any{"amount_refunded": amount, "refund_status": "partial", "notes": map[string]any{"invoice": w.invoice}})
	code, resp := w.deliver(w.d, eventID, envelope(w.t, event, "refund", refundEntity(id, "pay_T3stRefund0001", amount, status), "payment", payment))
	if code != 200 {
		w.t.Fatalf("refund webhook: %d %s", code, resp)
	}
	w.waitIdle(w.d)
}

func TestRefundsAgainstTheCreditNote(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		w := newRefundWorld(t, driver, true, nil)
		w.refund("T3stEvRfnd0001", "refund.processed", "rfnd_T3stPartial001", 20000, "processed")
		pe := w.one("rfnd_T3stPartial001")
		if pe["payment_type"] != "Pay" || pe["party"] != "Test Customer" || pe["paid_from"] != erpnextsim.RazorpayClearing {
			t.Errorf("refund entry %v %v from %v", pe["payment_type"], pe["party"], pe["paid_from"])
		}
		wantAmount(t, "refund paid_amount", pe["paid_amount"], 20000)
		refs := rows(pe, "references")
		if len(refs) != 1 || refs[0]["reference_name"] != w.creditNote {
			t.Fatalf("refund references %v, want the credit note %s", refs, w.creditNote)
		}
		wantAmount(t, "refund allocation", refs[0]["allocated_amount"], -20000)
		wantAmount(t, "credit note outstanding", w.doc("Sales Invoice", w.creditNote)["outstanding_amount"], -98000)

		// A second, partial refund books its own amount; refund.created for the first (already
		// processed) is a duplicate by refund id.
		w.refund("T3stEvRfnd0002", "refund.processed", "rfnd_T3stPartial002", 30000, "processed")
		w.refund("T3stEvRfnd0003", "refund.created", "rfnd_T3stPartial001", 20000, "processed")
		wantAmount(t, "second refund", w.one("rfnd_T3stPartial002")["paid_amount"], 30000)
		w.one("rfnd_T3stPartial001")
		wantAmount(t, "credit note outstanding", w.doc("Sales Invoice", w.creditNote)["outstanding_amount"], -68000)
		if s := w.doc("Sales Invoice", w.invoice)["status"]; s != "Paid" {
			t.Errorf("original invoice status %v, want it untouched (Paid)", s)
		}

		// refund.failed is final: the booked refund is cancelled and a later processed snapshot
		// never books it again.
		w.refund("T3stEvRfnd0004", "refund.failed", "rfnd_T3stPartial002", 30000, "failed")
		sub, other := w.entries("rfnd_T3stPartial002")
		if len(sub) != 0 || len(other) != 1 || fmt.Sprint(other[0]["docstatus"]) != "2" {
			t.Fatalf("after refund.failed: %d submitted, %v other; want the entry cancelled", len(sub), names(other))
		}
		wantAmount(t, "credit note outstanding after cancel", w.doc("Sales Invoice", w.creditNote)["outstanding_amount"], -98000)
		w.refund("T3stEvRfnd0005", "refund.processed", "rfnd_T3stPartial002", 30000, "processed")
		if sub, _ := w.entries("rfnd_T3stPartial002"); len(sub) != 0 {
			t.Fatalf("a processed snapshot after refund.failed booked the refund again")
		}
		if ev := w.statusOf("T3stEvRfnd0005"); ev.Status != connector.StatusSkipped || !strings.Contains(ev.LastError, "never booked") {
			t.Errorf("late snapshot: %s %q", ev.Status, ev.LastError)
		}
	})
}

func TestRefundWithoutCreditNote(t *testing.T) {
	t.Parallel()
	t.Run("ParksByDefault", func(t *testing.T) {
		w := newRefundWorld(t, "sqlite", false, nil)
		w.refund("T3stEvRfNoCn01", "refund.processed", "rfnd_T3stNoCredit01", 20000, "processed")
		ev := w.statusOf("rfnd_T3stNoCredit01")
		if ev.Status != connector.StatusParked || !strings.HasPrefix(ev.LastError, "no credit note") {
			t.Fatalf("%s %q", ev.Status, ev.LastError)
		}
		// The accountant creates the credit note; a replay books the refund.
		w.addCreditNote()
		if err := w.d.db.SetEventStatus(context.Background(), ev.ID, connector.StatusPending, "", time.Now()); err != nil {
			t.Fatal(err)
		}
		w.d.conn.Wake()
		w.waitIdle(w.d)
		wantAmount(t, "refund", w.one("rfnd_T3stNoCredit01")["paid_amount"], 20000)
	})
	t.Run("UnallocatedPayEntryWhenConfigured", func(t *testing.T) {
		w := newRefundWorld(t, "sqlite", false, func(c *connector.Config) { c.Mapping.Refunds.WithoutCreditNote = "unallocated" })
		w.refund("T3stEvRfNoCn02", "refund.processed", "rfnd_T3stNoCredit02", 20000, "processed")
		pe := w.one("rfnd_T3stNoCredit02")
		if pe["payment_type"] != "Pay" || len(rows(pe, "references")) != 0 || pe["paid_to"] != erpnextsim.DefaultReceivable {
			t.Errorf("entry %v refs %v to %v, want an unallocated Pay to the receivable", pe["payment_type"], rows(pe, "references"), pe["paid_to"])
		}
		wantAmount(t, "unallocated", pe["unallocated_amount"], 20000)
	})
}

// A refund that arrives before its payment's receipt waits and ends with receipt then refund:
// both arrival orders end in the same books.
func TestRefundBeforeCaptureEndsInTheSameBooks(t *testing.T) {
	t.Parallel()
	type books struct {
		receipt, refund, creditNote int64
	}
	read := func(w *refundWorld) books {
		return books{amountMinor(t, w.one("pay_T3stRefund0001")["paid_amount"]), amountMinor(t, w.one("rfnd_T3stEarly00001")["paid_amount"]),
			amountMinor(t, w.doc("Sales Invoice", w.creditNote)["outstanding_amount"])}
	}
	// Capture first.
	first := newRefundWorld(t, "sqlite", true, nil)
	first.refund("T3stEvEarly001", "refund.processed", "rfnd_T3stEarly00001", 50000, "processed")
	want := read(first)

	// Refund first.
	e := newEnv(t, "sqlite")
	w := &refundWorld{env: e, invoice: e.newInvoice("Test Customer", "1180.00")}
	w.addCreditNote()
	cfg := e.config()
	cfg.Worker.MaxAttempts = 40
	w.d = e.start(cfg)
	payment := capture("pay_T3stRefund0001", 118000, map[string]any{"notes": map[string]any{"invoice": w.invoice}})
	w.deliver(w.d, "T3stEvEarly002", envelope(t, "refund.processed", "refund", refundEntity("rfnd_T3stEarly00001", "pay_T3stRefund0001", 50000, "processed"), "payment", payment))
	if ev := w.waitReason("rfnd_T3stEarly00001", "waits for the receipt"); ev.Status == connector.StatusDone || ev.Status == connector.StatusDead {
		t.Fatalf("refund before its receipt: %s %q, want it waiting", ev.Status, ev.LastError)
	}
	w.deliver(w.d, "T3stEvEarly003", w.captureBody())
	w.waitIdle(w.d)
	if got := read(w); got != want {
		t.Errorf("refund-first books %+v, capture-first books %+v", got, want)
	}
}

func TestPaymentRequestCheckout(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*env, string, string) {
		e := newEnv(t, "sqlite")
		pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
		if err != nil {
			t.Fatal(err)
		}
		return e, e.invoice, pr
	}
	t.Run("BookedWithTheRequestLinked", func(t *testing.T) {
		e, inv, pr := setup(t)
		d := e.start(e.config())
		e.deliver(d, "T3stEvPr000001", envelope(t, "order.paid", "payment", capture("pay_T3stPrPay00001", 1200000, map[string]any{"order_id": "order_T3stPrOrder001"}),
			"order", map[string]any{"id": "order_T3stPrOrder001", "entity": "order", "amount": 1200000, "amount_paid": 1200000, "amount_due": 0,
				"currency": "INR", "receipt": pr, "status": "paid", "notes": []any{}}))
		e.waitIdle(d)
		pe := e.one("pay_T3stPrPay00001")
		refs := rows(pe, "references")
		if len(refs) != 1 || refs[0]["reference_name"] != inv || refs[0]["payment_request"] != pr {
			t.Fatalf("references %v: want the invoice row linked to %s", refs, pr)
		}
		if s := e.doc("Payment Request", pr)["status"]; s != "Paid" {
			t.Errorf("Payment Request status %v, want Paid", s)
		}
	})
	t.Run("AlreadyBookedByERPNext", func(t *testing.T) {
		e, inv, pr := setup(t)
		c := e.client()
		var made frappe.PaymentEntry
		err := c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
			"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
			"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 12000, "received_amount": 12000, "reference_no": pr,
			"reference_date": istDate(time.Now()), "posting_date": istDate(time.Now()), "mode_of_payment": "Razorpay",
			"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": 12000, "payment_request": pr}},
			"docstatus":  1,
		}, &made)
		if err != nil {
			t.Fatal(err)
		}
		d := e.start(e.config())
		e.deliver(d, "T3stEvPr000002", envelope(t, "payment.captured", "payment", capture("pay_T3stPrPay00002", 1200000, map[string]any{"notes": map[string]any{"payment_request": pr}})))
		e.deliver(d, "T3stEvPr000003", envelope(t, "payment.captured", "payment", capture("pay_T3stPrPay00003", 1200000, map[string]any{"notes": map[string]any{"payment_request": pr}})))
		e.waitIdle(d)
		if n := len(e.site.Docs("Payment Entry")); n != 1 {
			t.Fatalf("%d Payment Entries, want only ERPNext's own", n)
		}
		a, b := e.statusOf("pay_T3stPrPay00002"), e.statusOf("pay_T3stPrPay00003")
		if a.Status == connector.StatusParked {
			a, b = b, a
		}
		if a.Status != connector.StatusDone || a.ResultName != made.Name || !strings.Contains(a.LastError, "ERPNext's checkout") {
			t.Errorf("one payment: %s %s %q, want done as %s", a.Status, a.ResultName, a.LastError, made.Name)
		}
		if b.Status != connector.StatusParked || !strings.Contains(b.LastError, a.BusinessKey) {
			t.Errorf("the other payment on the same request: %s %q, want parked naming %s", b.Status, b.LastError, a.BusinessKey)
		}
	})
	t.Run("WaitsTheGracePeriod", func(t *testing.T) {
		e, _, pr := setup(t)
		cfg := e.config()
		cfg.Mapping.PaymentRequestGrace = connector.Duration(2 * time.Hour)
		d := e.start(cfg)
		e.deliver(d, "T3stEvPr000004", envelope(t, "payment.captured", "payment", capture("pay_T3stPrPay00004", 1200000, map[string]any{"notes": map[string]any{"payment_request": pr}})))
		ev := e.waitReason("pay_T3stPrPay00004", "ERPNext's checkout")
		if ev.Status != connector.StatusPending || ev.Attempts != 0 {
			t.Errorf("%s attempts %d %q, want pending without spent attempts", ev.Status, ev.Attempts, ev.LastError)
		}
		if n := len(e.site.Docs("Payment Entry")); n != 0 {
			t.Errorf("%d entries during the grace period", n)
		}
	})
}

// refund.failed delivered right behind refund.processed (found by an adversarial run): the
// booking of the processed snapshot must not swallow the failure as its duplicate.
func TestRefundFailedRightBehindProcessed(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		w := newRefundWorld(t, driver, true, nil)
		payment := capture("pay_T3stRefund0001", 118000, map[string]any{"notes": map[string]any{"invoice": w.invoice}})
		w.deliver(w.d, "T3stEvRfBack01", envelope(t, "refund.processed", "refund", refundEntity("rfnd_T3stBackToBk1", "pay_T3stRefund0001", 20000, "processed"), "payment", payment))
		w.deliver(w.d, "T3stEvRfBack02", envelope(t, "refund.failed", "refund", refundEntity("rfnd_T3stBackToBk1", "pay_T3stRefund0001", 20000, "failed"), "payment", payment))
		w.waitIdle(w.d)
		if sub, _ := w.entries("rfnd_T3stBackToBk1"); len(sub) != 0 {
			t.Fatalf("a refund Razorpay reported failed is still booked: %v", names(sub))
		}
		wantAmount(t, "credit note outstanding", w.doc("Sales Invoice", w.creditNote)["outstanding_amount"], -118000)
		b, err := w.d.db.GetBooking(context.Background(), "rfnd_T3stBackToBk1")
		if err != nil || b.State != connector.BookingVoid {
			t.Fatalf("booking %+v %v, want void", b, err)
		}
	})
}

// A refund whose capture arrives much later than its retry budget still books once the receipt
// does: waiting for the receipt spends no attempt.
func TestRefundOutwaitsItsRetryBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	w := &refundWorld{env: e, invoice: e.newInvoice("Test Customer", "1180.00")}
	w.addCreditNote()
	cfg := e.config()
	cfg.Worker.MaxAttempts = 2
	w.d = e.start(cfg)
	payment := capture("pay_T3stRefund0001", 118000, map[string]any{"notes": map[string]any{"invoice": w.invoice}})
	w.deliver(w.d, "T3stEvLate0001", envelope(t, "refund.processed", "refund", refundEntity("rfnd_T3stLateCap01", "pay_T3stRefund0001", 30000, "processed"), "payment", payment))
	first := w.waitReason("rfnd_T3stLateCap01", "waits for the receipt")
	// Several more waits than MaxAttempts (2) allows failures: each is a backoff of ~50 ms.
	var ev connector.InboxEvent
	if !testtime.Poll(testtime.Bound, func() bool {
		ev = w.statusOf("rfnd_T3stLateCap01")
		if ev.Attempts != 0 || ev.Status == connector.StatusDead {
			t.Fatalf("refund waiting for its receipt: %s after %d attempts (%q)", ev.Status, ev.Attempts, ev.LastError)
		}
		return ev.UpdatedAt.Sub(first.UpdatedAt) > 500*time.Millisecond // waited and retried a while, spending nothing
	}) {
		t.Fatalf("the refund stopped retrying: %+v", ev)
	}
	w.deliver(w.d, "T3stEvLate0002", w.captureBody())
	w.waitIdle(w.d)
	wantAmount(t, "refund", w.one("rfnd_T3stLateCap01")["paid_amount"], 30000)
}

// Several credit notes against the paid invoice: the refund settles the one with the most left.
func TestRefundPicksTheCreditNoteWithTheMostLeft(t *testing.T) {
	t.Parallel()
	w := newRefundWorld(t, "sqlite", false, nil)
	small, err := w.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: w.invoice,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "100.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	large, err := w.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: w.invoice,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1080.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	w.refund("T3stEvRfMany01", "refund.processed", "rfnd_T3stTwoNotes01", 108000, "processed")
	refs := rows(w.one("rfnd_T3stTwoNotes01"), "references")
	if len(refs) != 1 || refs[0]["reference_name"] != large {
		t.Fatalf("refund references %v, want the ₹1,080.00 credit note %s", refs, large)
	}
	wantAmount(t, "large credit note", w.doc("Sales Invoice", large)["outstanding_amount"], 0)
	wantAmount(t, "small credit note", w.doc("Sales Invoice", small)["outstanding_amount"], -10000)
}

// ERPNext's checkout books the gross; with fees in deduction mode the fee would be missing from
// the books, so the payment is recorded against ERPNext's entry (never booked twice) and parked.
func TestCheckoutEntryWithFeesParksForTheFee(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	var made frappe.PaymentEntry
	if err := e.client().Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 12000, "received_amount": 12000, "reference_no": pr,
		"reference_date": istDate(time.Now()), "posting_date": istDate(time.Now()),
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": e.invoice, "allocated_amount": 12000, "payment_request": pr}},
		"docstatus":  1,
	}, &made); err != nil {
		t.Fatal(err)
	}
	d := e.start(feeConfig(e.config()))
	e.deliver(d, "T3stEvPrFee001", envelope(t, "payment.captured", "payment",
		capture("pay_T3stPrFee00001", 1200000, map[string]any{"fee": 28320, "tax": 4320, "notes": map[string]any{"payment_request": pr}})))
	e.waitIdle(d)
	ev := e.statusOf("pay_T3stPrFee00001")
	if ev.Status != connector.StatusParked || ev.ResultName != made.Name || !strings.Contains(ev.LastError, "fee not booked") || !strings.Contains(ev.LastError, "INR 283.20") {
		t.Fatalf("%s %s %q, want parked against %s naming the fee", ev.Status, ev.ResultName, ev.LastError, made.Name)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 1 {
		t.Errorf("%d entries, want ERPNext's only", n)
	}
	if b, err := d.db.GetBooking(context.Background(), "pay_T3stPrFee00001"); err != nil || b.Name != made.Name {
		t.Errorf("booking %+v %v: the payment must stay recorded against %s", b, err, made.Name)
	}
}

// A payment taken through ERPNext's own checkout whose webhook names nothing: the Integration
// Request holding its payment id leads to the Payment Request and its invoice.
func TestCheckoutPaymentFoundThroughItsIntegrationRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	withSystemManager(e)
	pr, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.site.AddIntegrationRequest(erpnextsim.IntegrationRequestSpec{Service: "Razorpay", Status: "Authorized",
		ReferenceDoctype: "Payment Request", ReferenceDocname: pr,
		Data: map[string]any{"amount": 1200000, "reference_doctype": "Payment Request", "reference_docname": pr,
			"razorpay_payment_id": "pay_T3stCheckout01", "token": "abc"}}); err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	cfg.ERPNext.APIKey, cfg.ERPNext.APISecret = sysManager.Key, sysManager.Secret
	d := e.start(cfg)
	e.deliver(d, "T3stEvChkout01", envelope(t, "payment.captured", "payment", capture("pay_T3stCheckout01", 1200000, nil)))
	e.waitIdle(d)
	refs := rows(e.one("pay_T3stCheckout01"), "references")
	if len(refs) != 1 || refs[0]["reference_name"] != e.invoice || refs[0]["payment_request"] != pr {
		t.Fatalf("references %v, want %s linked to %s", refs, e.invoice, pr)
	}
	if s := e.doc("Payment Request", pr)["status"]; s != "Paid" {
		t.Errorf("Payment Request %v", s)
	}
}

// A refund whose receipt event is parked parks too, at once, with the receipt's reason: when
// another event books the receipt, the refund goes back to pending and follows on its own.
func TestRefundFollowsAReceiptBookedAfterItParked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	w := &refundWorld{env: e, invoice: e.newInvoice("Test Customer", "1180.00")}
	w.addCreditNote()
	w.d = e.start(e.config())
	// The capture names no invoice: it parks.
	w.deliver(w.d, "T3stEvPkRcpt01", envelope(t, "payment.captured", "payment", capture("pay_T3stRefund0001", 118000, nil)))
	w.waitIdle(w.d)
	if ev := w.statusOf("T3stEvPkRcpt01"); ev.Status != connector.StatusParked {
		t.Fatalf("capture: %s", ev.Status)
	}
	payment := capture("pay_T3stRefund0001", 118000, nil)
	w.deliver(w.d, "T3stEvPkRfnd01", envelope(t, "refund.processed", "refund", refundEntity("rfnd_T3stAfterPark1", "pay_T3stRefund0001", 20000, "processed"), "payment", payment))
	if ev := w.waitReason("rfnd_T3stAfterPark1", "is parked (no invoice matched"); ev.Status != connector.StatusParked || ev.Attempts != 0 {
		t.Fatalf("refund: %s after %d attempts (%q), want parked with the receipt's reason", ev.Status, ev.Attempts, ev.LastError)
	}
	// order.paid carries the order whose receipt names the invoice: the receipt is booked.
	w.deliver(w.d, "T3stEvPkOrdr01", envelope(t, "order.paid", "payment", payment, "order", map[string]any{"id": "order_T3stPkOrder01",
		"entity": "order", "amount": 118000, "amount_paid": 118000, "amount_due": 0, "currency": "INR", "receipt": w.invoice, "status": "paid", "notes": []any{}}))
	w.waitIdle(w.d)
	w.one("pay_T3stRefund0001")
	wantAmount(t, "refund", w.one("rfnd_T3stAfterPark1")["paid_amount"], 20000)
}
