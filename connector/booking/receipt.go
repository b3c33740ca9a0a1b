package booking

import (
	"context"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// book follows DESIGN.md §4 steps 3–7 for a receipt event: claim the payment id,
// decide (lookup before create, resolve, lock, plan), apply (fence, write, record).
func (c *receiptJob) book(ctx context.Context, ev *connector.InboxEvent, e *razorpay.Event, owner string) (connector.Result, error) {
	if pl := receiptPrecheck(e); pl != nil {
		return c.Apply(ctx, ev, nil, pl)
	}
	if pl, err := c.dismissedPlan(ctx, ev, e); pl != nil || err != nil {
		if err != nil {
			return connector.Result{}, err
		}
		return c.Apply(ctx, ev, nil, pl)
	}
	return c.ClaimAndBook(ctx, ev, e, owner, receiptBooking(e.Payment), func(ctx context.Context, w *kernel.Claim) (*connector.Plan, error) {
		return c.decide(ctx, e, w)
	}, nil)
}

// dismissedPlan finishes ev as dismissed when a person dismissed another receipt event of the
// same payment (events dismiss, the console): a later event of that payment — an order.paid
// with a new event id, a Razorpay retry, a row reconcile queued — must not book what a person
// decided is never booked (e.g. booked by hand without the payment id). The dismissal holds
// until a person replays or rebooks an event of the payment (Replay lifts it); it is read from
// the store's dismissals (Store.Dismissals), never from a row's text. nil when none holds.
func (c *receiptJob) dismissedPlan(ctx context.Context, ev *connector.InboxEvent, e *razorpay.Event) (*connector.Plan, error) {
	key := e.Payment.ID
	ds, err := c.Store.Dismissals(ctx, key)
	if err != nil {
		return nil, connector.Failed("read the dismissals of "+key, err)
	}
	for _, d := range ds {
		if d.InboxID == ev.ID || !d.Holds() || connector.RouteOf(d.Event) != connector.RouteReceipt {
			continue
		}
		hint := "replay this event (events replay " + ev.EventID + ")"
		if ev.EventID == "" { // a body explained before delivery: replaying the dismissed event lifts it too
			hint = "replay event " + d.EventID + " (events replay " + d.EventID + ")"
		}
		return connector.NewPlan(e, receiptBooking(e.Payment)).Dismissed(fmt.Sprintf(
			"not booked: payment %s was dismissed with event %s (%s); to book it after all, %s",
			key, d.EventID, connector.ShortReason(d.Text()), hint)), nil
	}
	return nil, nil
}
