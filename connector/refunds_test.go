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
// Razorpay API it queues the payment itself, so the books end receipt then refund. The receipt
// being booked wakes the refund: both are booked in one pass, no waiting out the backoff.
func TestRefundBeforeItsReceipt(t *testing.T) {
	r := newRig(t, withRazorpay)
	inv := r.invoice("Test Customer", "1180.00")
	cn := r.creditNote(inv, "1180.00")
	if _, err := r.rzp.CreatePayment(razorpay.Payment{ID: "pay_T3stEarly00001", Amount: 118000, Currency: "INR", Method: "upi",
		CreatedAt: paymentAt, Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
		t.Fatal(err)
	}
	rf, err := r.rzp.CreateRefund(razorpay.Refund{PaymentID: "pay_T3stEarly00001", Amount: 118000}, razorpaysim.RefundOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	r.deliver("R1", refundBody(t, "refund.processed", rf.ID, "pay_T3stEarly00001", 118000, "processed"))
	if n := r.work(); n != 3 { // the refund waits and queues the payment; the payment books; the refund books
		t.Errorf("%d events processed, want 3: refund (wait), queued payment, refund again", n)
	}
	r.want(connector.ReconcileEventPrefix+"pay_T3stEarly00001", connector.StatusDone, "created")
	if w := r.want("R1", connector.StatusDone, "created"); w.Attempts != 0 || !w.WaitFor.IsZero() {
		t.Errorf("refund attempts %d, wait_for %q: want none spent and nothing left to wait for", w.Attempts, w.WaitFor)
	}
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

// A receipt backlog longer than mapping.refunds.wait_for_receipt: the refund parks "receipt not
// booked after 1m0s", and when the receipt is booked at last the refund goes back to pending on
// its own and is booked, with no person replaying it.
func TestRefundParkedForItsReceiptFollowsItWhenItIsBooked(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.Refunds.WaitForReceipt = connector.Duration(time.Minute) }))
	ctx := context.Background()
	inv := r.invoice("Test Customer", "1180.00")
	cn := r.creditNote(inv, "100.00")
	now := r.clock.now()
	// The backlog: another worker holds the invoice, so the receipt keeps waiting.
	if ok, err := r.db.AcquireLock(ctx, "invoice:"+inv, "other-worker", now, now.Add(time.Hour)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	r.deliver("C1", captured(t, "pay_T3stBacklog001", 118000, inv, nil))
	r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stBacklog01", "pay_T3stBacklog001", 10000, "processed"))
	r.work()
	r.want("C1", connector.StatusPending, "waiting for the lock on Sales Invoice "+inv)
	r.want("R1", connector.StatusPending, "refund waits for the receipt of payment pay_T3stBacklog001")
	r.clock.advance(2 * time.Minute)
	r.work()
	p := r.want("R1", connector.StatusParked, "receipt not booked: payment pay_T3stBacklog001 has no booked receipt after 1m0s",
		"this refund follows")
	if p.WaitFor != (connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_T3stBacklog001"}) {
		t.Errorf("parked refund waits for %q, want the receipt", p.WaitFor)
	}
	// The backlog clears: the holder lets go (and wakes its waiters, as the worker does).
	if err := r.db.ReleaseLock(ctx, "invoice:"+inv, "other-worker"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnLock, Key: "invoice:" + inv}, r.clock.now()); err != nil {
		t.Fatal(err)
	}
	r.work() // the clock does not move: the booked receipt makes the refund due at once
	r.want("C1", connector.StatusDone, "created")
	if e := r.want("R1", connector.StatusDone, "created"); e.Attempts != 0 {
		t.Errorf("refund attempts %d", e.Attempts)
	}
	refund := r.one("rfnd_T3stBacklog01")
	if refs := rows(refund, "references"); len(refs) != 1 || refs[0]["reference_name"] != cn || minor(t, refs[0]["allocated_amount"], 2) != -10000 {
		t.Errorf("refund references %v, want -100.00 against %s", refs, cn)
	}
	if c := r.statuses(); c[connector.StatusParked] != 0 || c[connector.StatusPending] != 0 {
		t.Errorf("statuses %v: nothing should be left parked or waiting", c)
	}
}

// A refund whose receipt parked (payment C on an invoice A and B paid already: "invoice already
// settled") parks at once with the receipt's reason, rather than waiting 72 h for a receipt a
// person must deal with first; it waits for that receipt all the same.
func TestRefundOfAParkedReceiptParksAtOnce(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("A", captured(t, "pay_T3stSettledA01", 100000, inv, nil))
	r.work()
	r.want("A", connector.StatusDone)
	r.deliver("C", captured(t, "pay_T3stSettledC01", 50000, inv, nil))
	r.work()
	r.want("C", connector.StatusParked, "invoice already settled")
	r.deliver("R", refundBody(t, "refund.processed", "rfnd_T3stSettled01", "pay_T3stSettledC01", 10000, "processed"))
	r.work()
	e := r.want("R", connector.StatusParked, "receipt not booked: payment pay_T3stSettledC01 is not booked; its receipt event "+headerID("C")+" is parked (invoice already settled")
	if e.WaitFor != (connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_T3stSettledC01"}) || e.Attempts != 0 {
		t.Errorf("wait_for %q attempts %d", e.WaitFor, e.Attempts)
	}
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

// refund.failed while another worker books that refund waits for the holder to let go, naming
// the claim; released, it runs at once and makes the refund void.
func TestRefundFailedWaitsForTheBookingInFlight(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	now := r.clock.now()
	if _, claimed, err := r.db.ClaimBooking(ctx, connector.Booking{BusinessKey: "rfnd_T3stVoidWait1", Kind: connector.KindRefund,
		Owner: "other-worker", FenceUntil: now.Add(time.Minute)}, now); !claimed || err != nil {
		t.Fatal(claimed, err)
	}
	r.deliver("F1", refundBody(t, "refund.failed", "rfnd_T3stVoidWait1", "pay_T3stVoidWait01", 10000, "failed"))
	r.work()
	e := r.want("F1", connector.StatusPending, "refund rfnd_T3stVoidWait1 failed at Razorpay; waiting for its booking in flight")
	if e.WaitFor != (connector.Wait{Kind: connector.WaitOnBooking, Key: "rfnd_T3stVoidWait1"}) || e.Attempts != 0 || e.NextAttemptAt.After(now.Add(31*time.Second)) {
		t.Fatalf("wait_for %q attempts %d next in %s: want the claim named, none spent, a re-poll within 30 s", e.WaitFor, e.Attempts, e.NextAttemptAt.Sub(now))
	}
	// The holder gives up without writing, and wakes its waiters, as writeClaim.release does.
	if err := r.db.ReleaseBooking(ctx, "rfnd_T3stVoidWait1", "other-worker"); err != nil {
		t.Fatal(err)
	}
	if n, err := r.db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnBooking, Key: "rfnd_T3stVoidWait1"}, r.clock.now()); n != 1 || err != nil {
		t.Fatalf("WakeWaiters = %d, %v", n, err)
	}
	r.work()
	r.want("F1", connector.StatusDone, "refund rfnd_T3stVoidWait1 failed at Razorpay; nothing was booked and it never will be")
	if b, err := r.db.GetBooking(ctx, "rfnd_T3stVoidWait1"); err != nil || b.State != connector.BookingVoid {
		t.Errorf("booking %+v %v, want void", b, err)
	}
}
