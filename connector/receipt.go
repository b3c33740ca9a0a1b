package connector

import (
	"context"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// bookReceipt follows DESIGN.md §4 steps 3–7 for a receipt event: claim the payment id,
// decide (lookup before create, resolve, lock, plan), apply (fence, write, record).
func (c *Connector) bookReceipt(ctx context.Context, ev *InboxEvent, e *razorpay.Event, owner string) (result, error) {
	if pl := receiptPrecheck(e); pl != nil {
		return c.apply(ctx, ev, nil, pl)
	}
	if pl, err := c.dismissedPlan(ctx, ev, e); pl != nil || err != nil {
		if err != nil {
			return result{}, err
		}
		return c.apply(ctx, ev, nil, pl)
	}
	w, held, err := c.claim(ctx, ev, owner, receiptBooking(e.Payment))
	if err != nil {
		return result{}, err
	}
	if w == nil {
		pl, err := c.heldPlan(ctx, e, *held)
		if err != nil {
			return result{}, err
		}
		return c.apply(ctx, ev, nil, pl)
	}
	return w.hold(ctx, func(ctx context.Context) (result, error) {
		pl, err := c.decideReceipt(ctx, e, w)
		if err != nil {
			return result{}, err
		}
		return c.apply(ctx, ev, w, pl)
	})
}

// dismissedPlan finishes ev as dismissed when a person dismissed another receipt event of the
// same payment (events dismiss, the console): a later event of that payment — an order.paid
// with a new event id, a Razorpay retry, a row reconcile queued — must not book what a person
// decided is never booked (e.g. booked by hand without the payment id). The dismissal holds
// until a person replays or rebooks an event of the payment (Replay lifts it); it is read from
// the store's dismissals (Store.Dismissals), never from a row's text. nil when none holds.
func (c *Connector) dismissedPlan(ctx context.Context, ev *InboxEvent, e *razorpay.Event) (*Plan, error) {
	key := e.Payment.ID
	ds, err := c.store.Dismissals(ctx, key)
	if err != nil {
		return nil, failed("read the dismissals of "+key, err)
	}
	for _, d := range ds {
		if d.InboxID == ev.ID || !d.Holds() || RouteOf(d.Event) != RouteReceipt {
			continue
		}
		hint := "replay this event (events replay " + ev.EventID + ")"
		if ev.EventID == "" { // a body explained before delivery: replaying the dismissed event lifts it too
			hint = "replay event " + d.EventID + " (events replay " + d.EventID + ")"
		}
		return newPlan(e, receiptBooking(e.Payment)).dismissed(fmt.Sprintf(
			"not booked: payment %s was dismissed with event %s (%s); to book it after all, %s",
			key, d.EventID, shortReason(d.Text()), hint)), nil
	}
	return nil, nil
}
