package connector

import (
	"context"
	"fmt"
	"strings"

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

// DismissedBy starts the reason of a row a person dismissed (operator.Dismiss).
const DismissedBy = "dismissed by "

// dismissedPlan finishes ev as dismissed when a person dismissed another receipt event of the
// same payment (events dismiss, the console): a later event of that payment — an order.paid
// with a new event id, a Razorpay retry, a row reconcile queued — must not book what a person
// decided is never booked (e.g. booked by hand without the payment id). The dismissal holds
// until a person replays or rebooks an event of the payment (Replay lifts it); nil when no
// dismissal holds.
func (c *Connector) dismissedPlan(ctx context.Context, ev *InboxEvent, e *razorpay.Event) (*Plan, error) {
	key := e.Payment.ID
	byKey, err := c.store.EventsByBusinessKeys(ctx, []string{key}) // status columns: no bodies read
	if err != nil {
		return nil, failed("read the events of "+key, err)
	}
	for _, r := range byKey[key] {
		if r.ID == ev.ID || r.BusinessKey != key || r.Status != StatusDismissed || RouteOf(r.Event) != RouteReceipt ||
			!strings.HasPrefix(r.LastError, DismissedBy) {
			continue
		}
		hint := "replay this event (events replay " + ev.EventID + ")"
		if ev.EventID == "" { // a body explained before delivery: replaying the dismissed event lifts it too
			hint = "replay event " + r.EventID + " (events replay " + r.EventID + ")"
		}
		return newPlan(e, receiptBooking(e.Payment)).dismissed(fmt.Sprintf(
			"not booked: payment %s was dismissed with event %s (%s); to book it after all, %s",
			key, r.EventID, shortReason(r.LastError), hint)), nil
	}
	return nil, nil
}
