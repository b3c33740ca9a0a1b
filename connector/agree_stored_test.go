package connector_test

import (
	"context"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// The stored cases: what Explain says of an inbox row (the console's plan, `events show`) is
// what the worker does when it claims that row, also where the row's past matters — a person
// dismissed its payment, or it arrived long ago and the worker counts its waits from then.

// A payment a person dismissed is not booked by a later event of it; the plan of that event
// says so, and the worker finishes it as dismissed.
func TestExplainAgreesOnAStoredEventOfADismissedPayment(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.deliver("D1", captured(t, "pay_T3stAgrDism001", 50000, "NOPE-1", nil))
	r.work()
	r.want("D1", connector.StatusParked)
	if a, err := r.conn.Operator().DismissPayment(ctx, r.event("D1"), "hand", "booked by hand"); err != nil || !a.Changed {
		t.Fatalf("DismissPayment = %+v, %v", a, err)
	}
	inv := r.invoice("Test Customer", "500.00")
	r.deliver("D2", envelope(t, "order.paid", "payment", payment("pay_T3stAgrDism001", 50000, map[string]any{"notes": map[string]any{"invoice": inv}})))
	x, row := r.agreeStored("D2")
	want := "not booked: payment pay_T3stAgrDism001 was dismissed with event D1Z00000000000 (dismissed by hand: booked by hand); to book it after all, replay this event (events replay D2Z00000000000)"
	if x.Action != connector.ExplainDismissed || x.Reason != want || row.Status != connector.StatusDismissed {
		t.Errorf("plan %s %q, row %s: want dismissed %q", x.Action, x.Reason, row.Status, want)
	}
	if got := r.entries("pay_T3stAgrDism001"); len(got) != 0 {
		t.Errorf("booked %v for a dismissed payment", names(got))
	}
	// The same body explained before delivery is dismissed too, naming the event to replay.
	ev, err := razorpay.ParseEvent(r.event("D2").RawBody)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := r.conn.Explain(ctx, ev)
	if err != nil || fresh.Action != connector.ExplainDismissed {
		t.Fatalf("explain --payload: %+v, %v; want dismissed", fresh, err)
	}
}

// A refund that arrived three days ago, its receipt never booked: the worker counts the wait
// from its arrival and parks it (mapping.refunds.wait_for_receipt, 72 h); the stored plan parks
// it too, where a plan counted from now would still wait.
func TestExplainAgreesOnARefundReceivedThreeDaysAgo(t *testing.T) {
	r := newRig(t)
	r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stAgrOld001", "pay_T3stAgrOld0001", 1000, "processed"))
	r.clock.advance(72*time.Hour + time.Minute)
	x, row := r.agreeStored("R1")
	want := "receipt not booked: payment pay_T3stAgrOld0001 has no booked receipt after 72h0m0s; book it (or replay its webhook) and this refund follows"
	if x.Action != connector.ExplainPark || x.Reason != want || row.Status != connector.StatusParked {
		t.Errorf("plan %s %q, row %s: want parked %q", x.Action, x.Reason, row.Status, want)
	}
}

// A settlement that arrived three hours ago and still waits for a payment being booked: the
// worker's next try backs off with the time waited since arrival, and the stored plan waits
// until the same moment.
func TestExplainAgreesOnASettlementWaitingForItsItems(t *testing.T) {
	r := newSetlRig(t)
	ctx := context.Background()
	inv := r.invoice("Test Customer", "2500.00")
	// Another worker holds the invoice, so the payment keeps waiting to be booked.
	now := r.clock.now()
	if ok, err := r.db.AcquireLock(ctx, "invoice:"+inv, "other-worker", now, now.Add(24*time.Hour)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	p, err := r.rzp.CreatePayment(razorpay.Payment{ID: "pay_T3stAgrSetl001", Amount: 250000, Currency: "INR", Method: "upi",
		Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Receipt: inv})
	if err != nil {
		t.Fatal(err)
	}
	r.flush()
	r.want(headerIDOf(t, r, p.ID), connector.StatusPending, "waiting for the lock on Sales Invoice "+inv)
	st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range r.rzp.State().Events {
		if ev.Event == "settlement.processed" {
			r.delivered[ev.ID] = true
			r.deliver(ev.ID, []byte(ev.Body))
		}
	}
	r.clock.advance(3 * time.Hour)
	setl := r.settlementEvent(st).EventID
	x, row := r.agreeStored(setl)
	if x.Action != connector.ExplainWait || row.Status != connector.StatusPending {
		t.Fatalf("plan %s %q, row %s %q: want both waiting", x.Action, x.Reason, row.Status, row.LastError)
	}
	// Waited 3 h: the delay is a quarter of that, capped at worker.backoff_max — not the
	// backoff base a plan counted from now would give.
	delay := min(max(3*time.Hour/4, r.cfg.Worker.BackoffBase.D()), r.cfg.Worker.BackoffMax.D())
	if want := r.clock.now().Add(delay); !x.WaitUntil.Equal(want) || delay == r.cfg.Worker.BackoffBase.D() {
		t.Errorf("plan waits until %s, want %s (now + %s)", x.WaitUntil, want, delay)
	}
}

// headerIDOf is the event id of the receipt row of payment id that the simulator delivered.
func headerIDOf(t *testing.T, r *setlRig, id string) string {
	t.Helper()
	rows, err := r.db.FindEvents(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if connector.RouteOf(row.Event) == connector.RouteReceipt {
			return row.EventID
		}
	}
	t.Fatalf("no receipt row for %s", id)
	return ""
}
