package connector

import (
	"context"
	"errors"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// ErrStillBooked is returned by ForgetCancelledBooking when the booked ERPNext document is
// still submitted (or a draft): forgetting it would book the payment twice.
var ErrStillBooked = errors.New("the booked entry is still live in ERPNext")

// ForgetCancelledBooking lets a person book businessKey again after its Payment Entry was
// cancelled or deleted in ERPNext on purpose (the connector parks such events and never
// re-books on its own, DESIGN.md §4 step 5a). It reads the document first: a live entry is
// ErrStillBooked, a key with no booked row is not an error (nothing to forget).
func (c *Connector) ForgetCancelledBooking(ctx context.Context, businessKey string) (forgot string, err error) {
	b, err := c.store.GetBooking(ctx, businessKey)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if b.State != BookingBooked {
		return "", nil
	}
	var pe frappe.PaymentEntry
	err = c.erp.Get(ctx, b.Doctype, b.Name, &pe)
	if err != nil && !frappe.IsNotFound(err) {
		return "", fmt.Errorf("read %s %s: %w", b.Doctype, b.Name, err)
	}
	if err == nil && pe.Docstatus != 2 {
		return "", fmt.Errorf("%s %s (docstatus %d): %w", b.Doctype, b.Name, pe.Docstatus, ErrStillBooked)
	}
	if err := c.store.ForgetBooking(ctx, businessKey); err != nil {
		return "", err
	}
	return b.Doctype + " " + b.Name, nil
}
