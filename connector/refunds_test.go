package connector_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// refundEntity is a refund of paymentID in state status.
func refundEntity(id, paymentID string, amount int64, status string) map[string]any {
	return map[string]any{"id": id, "entity": "refund", "amount": amount, "currency": "INR", "payment_id": paymentID,
		"status": status, "created_at": paymentAt + 3600, "acquirer_data": map[string]any{"arn": "74836484748932847392738"}}
}

func refundBody(t *testing.T, event, id, paymentID string, amount int64, status string) []byte {
	return envelope(t, event, "refund", refundEntity(id, paymentID, amount, status), "payment", payment(paymentID, 118000, nil))
}

// booked books a ₹1,180.00 receipt for paymentID against a new invoice and returns the invoice.
func (r *rig) booked(paymentID string) string {
	r.t.Helper()
	inv := r.invoice("Test Customer", "1180.00")
	r.deliver("cap-"+paymentID, captured(r.t, paymentID, 118000, inv, nil))
	r.work()
	r.want("cap-"+paymentID, connector.StatusDone)
	return inv
}

// creditNote adds a submitted return against inv for rate.
func (r *rig) creditNote(inv, rate string) string {
	r.t.Helper()
	name, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: inv,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}})
	if err != nil {
		r.t.Fatal(err)
	}
	return name
}

func TestRefundAgainstTheCreditNote(t *testing.T) {
	r := newRig(t)
	inv := r.booked("pay_T3stRfnd000001")
	cn := r.creditNote(inv, "300.00")
	r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stRfnd00001", "pay_T3stRfnd000001", 50000, "processed"))
	r.work()
	r.want("R1", connector.StatusDone, "created")
	pe := r.one("rfnd_T3stRfnd00001")
	refs := rows(pe, "references")
	if pe["payment_type"] != "Pay" || pe["paid_from"] != erpnextsim.RazorpayClearing || minor(t, pe["paid_amount"], 2) != 50000 {
		t.Errorf("refund entry %v from %v paid %v", pe["payment_type"], pe["paid_from"], pe["paid_amount"])
	}
	if len(refs) != 1 || refs[0]["reference_name"] != cn || minor(t, refs[0]["allocated_amount"], 2) != -30000 {
		t.Errorf("references %v: want −300.00 against the credit note %s (what is left on it)", refs, cn)
	}
	b, err := r.db.GetBooking(context.Background(), "rfnd_T3stRfnd00001")
	if err != nil || b.Kind != connector.KindRefund || b.Invoice != cn || b.AmountMinor != 50000 {
		t.Errorf("booking %+v %v", b, err)
	}
	// The same refund reported again (refund.created after processed) books nothing more.
	r.deliver("R2", refundBody(t, "refund.created", "rfnd_T3stRfnd00001", "pay_T3stRfnd000001", 50000, "processed"))
	r.work()
	r.want("R2", connector.StatusDuplicate, "rfnd_T3stRfnd00001 already booked as Payment Entry")
}

func TestRefundWithoutCreditNote(t *testing.T) {
	for _, mode := range []string{"park", "unallocated"} {
		t.Run(mode, func(t *testing.T) {
			r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.Refunds.WithoutCreditNote = mode }))
			inv := r.booked("pay_T3stRfnd000002")
			r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stRfnd00002", "pay_T3stRfnd000002", 20000, "processed"))
			r.work()
			if mode == "park" {
				r.want("R1", connector.StatusParked, "no credit note: refund rfnd_T3stRfnd00002 of INR 200.00: no credit note with an open balance against Sales Invoice "+inv)
				return
			}
			r.want("R1", connector.StatusDone)
			pe := r.one("rfnd_T3stRfnd00002")
			if pe["payment_type"] != "Pay" || pe["paid_to"] != erpnextsim.DefaultReceivable || len(rows(pe, "references")) != 0 || minor(t, pe["paid_amount"], 2) != 20000 {
				t.Errorf("unallocated refund %v to %v refs %v paid %v", pe["payment_type"], pe["paid_to"], rows(pe, "references"), pe["paid_amount"])
			}
		})
	}
}

// A refund that arrives before its payment's receipt waits, spending no attempt; with the
// Razorpay API it queues the payment itself, so the books end receipt then refund.
func TestRefundBeforeItsReceipt(t *testing.T) {
	r := newRig(t, withRazorpay)
	inv := r.invoice("Test Customer", "1180.00")
	if _, err := r.rzp.CreatePayment(razorpay.Payment{ID: "pay_T3stEarly00001", Amount: 118000, Currency: "INR", Method: "upi",
		CreatedAt: paymentAt, Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
		t.Fatal(err)
	}
	rf, err := r.rzp.CreateRefund(razorpay.Refund{PaymentID: "pay_T3stEarly00001", Amount: 118000}, razorpaysim.RefundOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	r.deliver("R1", refundBody(t, "refund.processed", rf.ID, "pay_T3stEarly00001", 118000, "processed"))
	r.work() // the refund queues the payment, which books at once (it is due now)
	if w := r.event("R1"); w.Status != connector.StatusPending || w.Attempts != 0 || w.LastError != "refund waits for the receipt of pay_T3stEarly00001 (queued from Razorpay)" {
		t.Fatalf("refund %s attempts %d %q, want a wait that queued the payment", w.Status, w.Attempts, w.LastError)
	}
	r.want(connector.ReconcileEventPrefix+"pay_T3stEarly00001", connector.StatusDone, "created")
	cn := r.creditNote(inv, "1180.00")
	r.clock.advance(r.cfg.Worker.BackoffBase.D())
	r.work()
	r.want("R1", connector.StatusDone, "created")
	if refs := rows(r.one(rf.ID), "references"); len(refs) != 1 || refs[0]["reference_name"] != cn {
		t.Errorf("refund references %v", refs)
	}
}

func TestRefundOutwaitsItsReceiptAndParks(t *testing.T) {
	r := newRig(t)
	r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stWait00001", "pay_T3stWait000001", 1000, "processed"))
	r.work()
	w := r.want("R1", connector.StatusPending, "receipt not booked: refund waits for the receipt of payment pay_T3stWait000001")
	if w.Attempts != 0 {
		t.Errorf("attempts %d", w.Attempts)
	}
	r.clock.advance(r.cfg.Mapping.Refunds.WaitForReceipt.D() + time.Minute)
	r.work()
	r.want("R1", connector.StatusParked, "payment pay_T3stWait000001 has no booked receipt after 72h0m0s")
}

// refund.failed is final: a booked refund entry is cancelled, the refund never booked again;
// a refund that was never booked is made void.
func TestRefundFailedIsFinal(t *testing.T) {
	r := newRig(t)
	inv := r.booked("pay_T3stFail000001")
	r.creditNote(inv, "1180.00")
	r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stFail00001", "pay_T3stFail000001", 10000, "processed"))
	r.work()
	entry := fmt.Sprint(r.one("rfnd_T3stFail00001")["name"])
	r.deliver("R2", refundBody(t, "refund.failed", "rfnd_T3stFail00001", "pay_T3stFail000001", 10000, "failed"))
	r.work()
	if e := r.want("R2", connector.StatusDone, "refund rfnd_T3stFail00001 failed at Razorpay; cancelled "+entry); e.ResultName != entry {
		t.Errorf("result %s", e.ResultName)
	}
	if d, _ := r.site.Doc(frappe.DoctypePaymentEntry, entry); fmt.Sprint(d["docstatus"]) != "2" {
		t.Errorf("refund entry docstatus %v, want cancelled", d["docstatus"])
	}
	r.deliver("R3", refundBody(t, "refund.processed", "rfnd_T3stFail00001", "pay_T3stFail000001", 10000, "processed"))
	r.work()
	r.want("R3", connector.StatusSkipped, "refund rfnd_T3stFail00001 failed at Razorpay; it is never booked")

	r.deliver("R4", refundBody(t, "refund.failed", "rfnd_T3stFail00002", "pay_T3stFail000001", 10000, "failed"))
	r.work()
	r.want("R4", connector.StatusDone, "refund rfnd_T3stFail00002 failed at Razorpay; nothing was booked and it never will be")
	if b, err := r.db.GetBooking(context.Background(), "rfnd_T3stFail00002"); err != nil || b.State != connector.BookingVoid {
		t.Errorf("booking %+v %v, want void", b, err)
	}
	r.deliver("R5", refundBody(t, "refund.created", "rfnd_T3stFail00003", "pay_T3stFail000001", 10000, "pending"))
	r.work()
	r.want("R5", connector.StatusSkipped, "refund rfnd_T3stFail00003 is pending; it is booked when Razorpay reports it processed")
}
