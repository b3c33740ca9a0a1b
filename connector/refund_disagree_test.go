package connector_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// simRefundBooked makes a ₹1,180.00 payment and a refund of it in the Razorpay simulator (the
// refund ending in final: "processed" or "failed"; no webhooks sent), books the receipt and,
// against a credit note, the refund from a refund.processed webhook. It returns the refund id
// and its submitted Payment Entry.
func (r *rig) simRefundBooked(paymentID, final string) (string, string) {
	r.t.Helper()
	inv := r.invoice("Test Customer", "1180.00")
	if _, err := r.rzp.CreatePayment(razorpay.Payment{ID: paymentID, Amount: 118000, Currency: "INR", Method: "upi",
		CreatedAt: paymentAt, Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
		r.t.Fatal(err)
	}
	r.deliver("cap-"+paymentID, captured(r.t, paymentID, 118000, inv, nil))
	r.work()
	r.want("cap-"+paymentID, connector.StatusDone, "created")
	r.creditNote(inv, "1180.00")
	rf, err := r.rzp.CreateRefund(razorpay.Refund{PaymentID: paymentID, Amount: 10000}, razorpaysim.RefundOptions{Lose: true, Final: final})
	if err != nil {
		r.t.Fatal(err)
	}
	// The processed snapshot is booked (with the API it is booked only when the API says processed too).
	if final == "failed" {
		return rf.ID, ""
	}
	r.deliver("P-"+rf.ID, refundBody(r.t, "refund.processed", rf.ID, paymentID, 10000, "processed"))
	r.work()
	r.want("P-"+rf.ID, connector.StatusDone, "created")
	return rf.ID, fmt.Sprint(r.one(rf.ID)["name"])
}

// wantDocstatus checks the Payment Entry name has docstatus want in ERPNext and that ref has
// exactly one entry.
func (r *rig) wantDocstatus(ref, name string, want int) {
	r.t.Helper()
	d, ok := r.site.Doc(frappe.DoctypePaymentEntry, name)
	if !ok || fmt.Sprint(d["docstatus"]) != fmt.Sprint(want) {
		r.t.Errorf("%s docstatus %v (found %v), want %d", name, d["docstatus"], ok, want)
	}
	if n := len(r.entries(ref)); n != 1 {
		r.t.Errorf("%d Payment Entries for %s, want 1", n, ref)
	}
}

// Issue: a refund.failed webhook for a refund Razorpay's API reports processed (a processed
// refund does not fail, spec/razorpay.md §3.3) keeps the booked entry and parks the event with
// both statuses named; the refund's booking stays booked. A replay decides again from the API.
func TestRefundFailedWebhookAgainstProcessedRefundParks(t *testing.T) {
	r := newRig(t, withRazorpay)
	id, entry := r.simRefundBooked("pay_T3stDisagree01", "processed")
	x, _ := r.agree("F1", refundBody(t, "refund.failed", id, "pay_T3stDisagree01", 10000, "failed"))
	if x.Action != connector.ExplainPark {
		t.Errorf("explain planned %s, want park", x.Action)
	}
	e := r.want("F1", connector.StatusParked, "refund status disagrees: refund.failed for refund "+id+
		", but Razorpay's API reports it processed (a processed refund does not fail); Payment Entry "+entry+" is kept")
	if e.Attempts != 0 {
		t.Errorf("attempts %d, want none spent", e.Attempts)
	}
	r.wantDocstatus(id, entry, 1)
	if b, err := r.db.GetBooking(t.Context(), id); err != nil || b.State != connector.BookingBooked || b.Name != entry {
		t.Errorf("booking %+v %v, want booked as %s", b, err, entry)
	}
	if c := r.statuses(); c[connector.StatusParked] != 1 || c[connector.StatusDone] != 2 {
		t.Errorf("statuses %v, want the receipt and the refund done, the refund.failed parked", c)
	}
	// A later processed snapshot is a duplicate of the booked refund, as before.
	r.deliver("P2", refundBody(t, "refund.processed", id, "pay_T3stDisagree01", 10000, "processed"))
	r.work()
	r.want("P2", connector.StatusDuplicate, id+" already booked as Payment Entry")
	r.wantDocstatus(id, entry, 1)
}

// With the API configured and reporting the refund failed, refund.failed cancels a booked entry
// as before: here one booked from a processed snapshot while the deployment had no API keys (the
// keys added since), the API now answering failed.
func TestRefundFailedAtTheAPICancels(t *testing.T) {
	r := newRig(t, withRazorpay)
	id, _ := r.simRefundBooked("pay_T3stApiFail001", "failed")
	withAPI, sim := r.conn, r.rzp
	r.rzp = nil
	r.conn = r.connector(r.cfg) // no Razorpay client: the webhook's snapshot decides
	r.rzp = sim
	r.deliver("P1", refundBody(t, "refund.processed", id, "pay_T3stApiFail001", 10000, "processed"))
	r.work()
	r.want("P1", connector.StatusDone, "created")
	entry := fmt.Sprint(r.one(id)["name"])
	r.conn = withAPI
	r.deliver("F1", refundBody(t, "refund.failed", id, "pay_T3stApiFail001", 10000, "failed"))
	r.work()
	r.want("F1", connector.StatusDone, "refund "+id+" failed at Razorpay; cancelled "+entry)
	r.wantDocstatus(id, entry, 2)
	if b, err := r.db.GetBooking(t.Context(), id); err != nil || b.State != connector.BookingVoid {
		t.Errorf("booking %+v %v, want void", b, err)
	}
}

// With the API reporting the refund failed, a refund.processed snapshot books nothing and the
// refund is void; refund.failed then finds nothing to cancel.
func TestRefundFailedAtTheAPIWithNothingBooked(t *testing.T) {
	r := newRig(t, withRazorpay)
	id, _ := r.simRefundBooked("pay_T3stApiFail002", "failed")
	r.deliver("P1", refundBody(t, "refund.processed", id, "pay_T3stApiFail002", 10000, "processed"))
	r.work()
	r.want("P1", connector.StatusDone, "refund "+id+" failed at Razorpay; nothing was booked and it never will be")
	r.deliver("F1", refundBody(t, "refund.failed", id, "pay_T3stApiFail002", 10000, "failed"))
	r.work()
	r.want("F1", connector.StatusDone, "refund "+id+" failed at Razorpay; nothing was booked and it never will be")
	if n := len(r.entries(id)); n != 0 {
		t.Errorf("%d entries for a refund the API reports failed", n)
	}
	if b, err := r.db.GetBooking(t.Context(), id); err != nil || b.State != connector.BookingVoid {
		t.Errorf("booking %+v %v, want void", b, err)
	}
}

// With the API reporting the refund still pending, refund.failed neither cancels nor voids: a
// later processed report still books it.
func TestRefundFailedWebhookAgainstPendingRefundParks(t *testing.T) {
	r := newRig(t, withRazorpay)
	inv := r.invoice("Test Customer", "1180.00")
	if _, err := r.rzp.CreatePayment(razorpay.Payment{ID: "pay_T3stPendDis001", Amount: 118000, Currency: "INR", Method: "upi",
		CreatedAt: paymentAt, Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
		t.Fatal(err)
	}
	r.deliver("C1", captured(t, "pay_T3stPendDis001", 118000, inv, nil))
	r.creditNote(inv, "1180.00")
	rf, err := r.rzp.CreateRefund(razorpay.Refund{PaymentID: "pay_T3stPendDis001", Amount: 10000}, razorpaysim.RefundOptions{Lose: true, Final: "pending"})
	if err != nil {
		t.Fatal(err)
	}
	r.work()
	r.agree("F1", refundBody(t, "refund.failed", rf.ID, "pay_T3stPendDis001", 10000, "failed"))
	r.want("F1", connector.StatusParked, "refund status disagrees: refund.failed for refund "+rf.ID+", but Razorpay's API reports it pending "+
		"(it is cancelled only once Razorpay reports it failed); nothing is cancelled or made void: check the refund in the Razorpay Dashboard, then replay or dismiss this event")
	if _, err := r.db.GetBooking(t.Context(), rf.ID); !errors.Is(err, connector.ErrNotFound) {
		t.Errorf("booking of %s: %v, want none (not void)", rf.ID, err)
	}
	if n := len(r.entries(rf.ID)); n != 0 {
		t.Errorf("%d entries for a pending refund", n)
	}
}

// Without the API, the webhook's own refund entity decides: refund.failed saying processed parks
// and keeps the entry (refund.failed saying failed cancels it: TestRefundFailedIsFinal).
func TestRefundFailedWebhookSayingProcessedParksWithoutTheAPI(t *testing.T) {
	r := newRig(t)
	inv := r.booked("pay_T3stSelfDis001")
	r.creditNote(inv, "1180.00")
	r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stSelfDis01", "pay_T3stSelfDis001", 10000, "processed"))
	r.work()
	entry := fmt.Sprint(r.one("rfnd_T3stSelfDis01")["name"])
	r.agree("F1", refundBody(t, "refund.failed", "rfnd_T3stSelfDis01", "pay_T3stSelfDis001", 10000, "processed"))
	r.want("F1", connector.StatusParked, "refund status disagrees: refund.failed for refund rfnd_T3stSelfDis01, but the webhook's own refund entity says processed "+
		"(a processed refund does not fail); Payment Entry "+entry+" is kept")
	r.wantDocstatus("rfnd_T3stSelfDis01", entry, 1)
	if b, err := r.db.GetBooking(t.Context(), "rfnd_T3stSelfDis01"); err != nil || b.State != connector.BookingBooked {
		t.Errorf("booking %+v %v, want booked", b, err)
	}
}
