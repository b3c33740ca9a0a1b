package booking

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// refund.failed is final (DESIGN.md §4 step 4): the refund's booking becomes void, so no later
// snapshot books it, and an entry already booked for it is cancelled.

// book takes the refund id's claim like a booking does, so no worker can be posting the
// refund while it is voided (one in flight is waited for), then decides and applies the void.
func (c *voidJob) book(ctx context.Context, ev *connector.InboxEvent, e *razorpay.Event, r *razorpay.Refund, owner string) (connector.Result, error) {
	w, held, err := c.Claim(ctx, ev, owner, refundBooking(r))
	if err != nil {
		return connector.Result{}, err
	}
	if w == nil {
		if held.State == connector.BookingInFlight {
			return connector.Result{}, c.inFlightVoid(r, *held)
		}
		// Booked, or void already (a cancel that failed before is tried again).
		pl, err := c.decide(ctx, e, r, held.Name)
		if err != nil {
			return connector.Result{}, err
		}
		return c.ApplyVoid(ctx, ev, owner, pl)
	}
	return w.Hold(ctx, func(ctx context.Context) (connector.Result, error) {
		// Nobody held it: an entry may still exist (a worker that died after ERPNext committed).
		found, err := c.FindByReference(ctx, r.ID)
		if err != nil {
			return connector.Result{}, err
		}
		pl, err := c.decide(ctx, e, r, found.Submitted)
		if err != nil {
			return connector.Result{}, err
		}
		return c.ApplyVoid(ctx, ev, owner, pl)
	})
}

// inFlightVoid is the wait of a refund.failed whose refund another worker is booking: until the
// holder lets go (its release wakes the waiter, the kernel's wake.go), at the latest until the claim's fence.
func (c *voidJob) inFlightVoid(r *razorpay.Refund, row connector.Booking) error {
	return &connector.WaitError{Until: c.HolderWait(row.FenceUntil.Add(time.Second)), On: connector.WaitBooking(r.ID),
		Reason: fmt.Sprintf("refund %s failed at Razorpay; waiting for its booking in flight before cancelling it", r.ID)}
}

// explain is book for Explain: the refund's booking row read, not claimed.
func (c *voidJob) explain(ctx context.Context, e *razorpay.Event, r *razorpay.Refund) (*connector.Plan, error) {
	row, err := c.Facts().GetBooking(ctx, r.ID)
	switch {
	case err == nil && row.State == connector.BookingInFlight && row.FenceUntil.After(c.Now()):
		w := c.inFlightVoid(r, *row).(*connector.WaitError)
		return connector.NewPlan(e, refundBooking(r)).Wait(w.Until, w.Reason), nil
	case err == nil && row.State != connector.BookingInFlight:
		return c.decide(ctx, e, r, row.Name)
	}
	found, err := c.FindByReference(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	return c.decide(ctx, e, r, found.Submitted)
}

// decide plans the void of refund r whose booked entry is name ("" when none): void it
// alone, or cancel the entry too while it is still submitted.
func (c *voidJob) decide(ctx context.Context, e *razorpay.Event, r *razorpay.Refund, name string) (*connector.Plan, error) {
	b := refundBooking(r)
	pl := connector.NewPlan(e, b)
	pl.Action, pl.Existing = connector.ExplainVoid, name
	if name == "" {
		pl.Reason = fmt.Sprintf("refund %s failed at Razorpay; nothing was booked and it never will be", r.ID)
		pl.Note = pl.Reason
		return pl, nil
	}
	pl.Booking.Doctype, pl.Booking.Name = frappe.DoctypePaymentEntry, name
	var pe frappe.PaymentEntry
	if err := c.Account.ERP.Get(ctx, frappe.DoctypePaymentEntry, name, &pe); err != nil && !frappe.IsNotFound(err) {
		return nil, connector.Failed("read refund entry "+name, err)
	}
	if pe.Docstatus == 2 || pe.Name == "" {
		pl.Reason = fmt.Sprintf("refund %s failed at Razorpay; %s is cancelled", r.ID, name)
		pl.Note = pl.Reason
		return pl, nil
	}
	pl.Action = connector.ExplainCancel
	pl.Reason = fmt.Sprintf("refund %s failed at Razorpay: its Payment Entry %s is cancelled and it is never booked", r.ID, name)
	pl.Note = fmt.Sprintf("refund %s failed at Razorpay; cancelled %s", r.ID, name)
	return pl, nil
}
