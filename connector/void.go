package connector

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// refund.failed is final (DESIGN.md §4 step 4): the refund's booking becomes void, so no later
// snapshot books it, and an entry already booked for it is cancelled.

// voidRefund takes the refund id's claim like a booking does, so no worker can be posting the
// refund while it is voided (one in flight is waited for), then decides and applies the void.
func (c *Connector) voidRefund(ctx context.Context, ev *InboxEvent, e *razorpay.Event, r *razorpay.Refund, owner string) (result, error) {
	w, held, err := c.claim(ctx, ev, owner, refundBooking(r))
	if err != nil {
		return result{}, err
	}
	if w == nil {
		if held.State == BookingInFlight {
			return result{}, c.inFlightVoid(r, *held)
		}
		// Booked, or void already (a cancel that failed before is tried again).
		pl, err := c.decideVoid(ctx, e, r, held.Name)
		if err != nil {
			return result{}, err
		}
		return c.applyVoid(ctx, ev, owner, pl)
	}
	return w.hold(ctx, func(ctx context.Context) (result, error) {
		// Nobody held it: an entry may still exist (a worker that died after ERPNext committed).
		found, err := c.findByReference(ctx, r.ID)
		if err != nil {
			return result{}, err
		}
		pl, err := c.decideVoid(ctx, e, r, found.submitted)
		if err != nil {
			return result{}, err
		}
		return c.applyVoid(ctx, ev, owner, pl)
	})
}

// inFlightVoid is the wait of a refund.failed whose refund another worker is booking: until the
// holder lets go (its release wakes the waiter, wake.go), at the latest until the claim's fence.
func (c *Connector) inFlightVoid(r *razorpay.Refund, row Booking) error {
	return &waitError{until: c.holderWait(row.FenceUntil.Add(time.Second)), on: waitBooking(r.ID),
		reason: fmt.Sprintf("refund %s failed at Razorpay; waiting for its booking in flight before cancelling it", r.ID)}
}

// explainVoid is voidRefund for Explain: the refund's booking row read, not claimed.
func (c *Connector) explainVoid(ctx context.Context, e *razorpay.Event, r *razorpay.Refund) (*Plan, error) {
	row, err := c.facts().GetBooking(ctx, r.ID)
	switch {
	case err == nil && row.State == BookingInFlight && row.FenceUntil.After(c.now()):
		w := c.inFlightVoid(r, *row).(*waitError)
		return newPlan(e, refundBooking(r)).wait(w.until, w.reason), nil
	case err == nil && row.State != BookingInFlight:
		return c.decideVoid(ctx, e, r, row.Name)
	}
	found, err := c.findByReference(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	return c.decideVoid(ctx, e, r, found.submitted)
}

// decideVoid plans the void of refund r whose booked entry is name ("" when none): void it
// alone, or cancel the entry too while it is still submitted.
func (c *Connector) decideVoid(ctx context.Context, e *razorpay.Event, r *razorpay.Refund, name string) (*Plan, error) {
	b := refundBooking(r)
	pl := newPlan(e, b)
	pl.Action, pl.Existing = ExplainVoid, name
	if name == "" {
		pl.Reason = fmt.Sprintf("refund %s failed at Razorpay; nothing was booked and it never will be", r.ID)
		pl.Note = pl.Reason
		return pl, nil
	}
	pl.Booking.Doctype, pl.Booking.Name = frappe.DoctypePaymentEntry, name
	var pe frappe.PaymentEntry
	if err := c.erp.Get(ctx, frappe.DoctypePaymentEntry, name, &pe); err != nil && !frappe.IsNotFound(err) {
		return nil, failed("read refund entry "+name, err)
	}
	if pe.Docstatus == 2 || pe.Name == "" {
		pl.Reason = fmt.Sprintf("refund %s failed at Razorpay; %s is cancelled", r.ID, name)
		pl.Note = pl.Reason
		return pl, nil
	}
	pl.Action = ExplainCancel
	pl.Reason = fmt.Sprintf("refund %s failed at Razorpay: its Payment Entry %s is cancelled and it is never booked", r.ID, name)
	pl.Note = fmt.Sprintf("refund %s failed at Razorpay; cancelled %s", r.ID, name)
	return pl, nil
}
