package connector

import (
	"context"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// bookReceipt follows DESIGN.md §4 steps 3–7 for a receipt event: claim the payment id,
// decide (lookup before create, resolve, lock, plan), apply (fence, write, record).
func (c *Connector) bookReceipt(ctx context.Context, ev *InboxEvent, e *razorpay.Event, owner string) (result, error) {
	if pl := receiptPrecheck(e); pl != nil {
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
