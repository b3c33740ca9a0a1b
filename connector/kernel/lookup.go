package kernel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Lookup before create (DESIGN.md §4 step 5): (a) the connector's own bookings row, (b) a
// Payment Entry in ERPNext with this reference_no. (c), an entry ERPNext's checkout made for a
// Payment Request, is the receipt job's checkout stage (connector/booking checkout.go).

// Facts is what decide reads from the connector's own store: the bookings row of a key,
// the inbox rows of a key, the rows naming a document. The worker reads its Store; Explain
// reads the store when there is one (noFacts otherwise).
type Facts interface {
	GetBooking(ctx context.Context, businessKey string) (*connector.Booking, error)
	FindEvents(ctx context.Context, key string) ([]connector.InboxEvent, error)
	BookingsForDocument(ctx context.Context, doctype, name string) ([]connector.Booking, error)
}

// noFacts is an empty store: nothing booked, no inbox rows.
type noFacts struct{}

func (noFacts) GetBooking(context.Context, string) (*connector.Booking, error) {
	return nil, connector.ErrNotFound
}
func (noFacts) FindEvents(context.Context, string) ([]connector.InboxEvent, error) { return nil, nil }
func (noFacts) BookingsForDocument(context.Context, string, string) ([]connector.Booking, error) {
	return nil, nil
}

func (c *Kernel) Facts() Facts {
	if c.store == nil {
		return noFacts{}
	}
	return c.store
}

// HeldPlan decides about a business key the claim did not get: booked (step 5a), void (a
// failed refund), or in flight with another worker: then it waits until the holder lets go
// (its release wakes the waiters, wake.go), at the latest until the claim's fence.
func (c *Kernel) HeldPlan(ctx context.Context, e *razorpay.Event, row connector.Booking) (*connector.Plan, error) {
	pl := connector.NewPlan(e, connector.Booking{BusinessKey: row.BusinessKey, Kind: row.Kind, AmountMinor: row.AmountMinor, Currency: row.Currency})
	switch row.State {
	case connector.BookingBooked:
		return c.confirmBooked(ctx, pl, row)
	case connector.BookingVoid:
		return pl.Skip(fmt.Sprintf("refund %s failed at Razorpay; it is never booked", row.BusinessKey)), nil
	}
	pl.WaitFor = connector.WaitBooking(row.BusinessKey)
	return pl.Wait(c.HolderWait(row.FenceUntil), fmt.Sprintf("waiting: %s is being booked by another worker (claim fenced until %s); runs again as soon as it is released",
		row.BusinessKey, row.FenceUntil.Format(time.RFC3339))), nil
}

// PeekClaim is the claim stage for Explain, which takes no claim: the plan a held, booked or
// void key comes to, or nil when the worker would claim it.
func (c *Kernel) PeekClaim(ctx context.Context, e *razorpay.Event) (*connector.Plan, error) {
	row, err := c.Facts().GetBooking(ctx, e.BusinessKey())
	if errors.Is(err, connector.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, connector.Failed("claim "+e.BusinessKey(), err)
	}
	if row.State == connector.BookingInFlight && !row.FenceUntil.After(c.now()) {
		return nil, nil // the worker would take it over
	}
	return c.HeldPlan(ctx, e, *row)
}

// confirmBooked handles a key booked already: it counts only while the ERPNext document is
// submitted (DESIGN.md §4 step 5a); cancelled or deleted, it parks for a person.
func (c *Kernel) confirmBooked(ctx context.Context, pl *connector.Plan, b connector.Booking) (*connector.Plan, error) {
	var pe frappe.PaymentEntry
	err := c.erp.Get(ctx, b.Doctype, b.Name, &pe)
	if err != nil && !frappe.IsNotFound(err) {
		return nil, connector.Failed("read booked "+b.Doctype+" "+b.Name, err)
	}
	if err != nil || pe.Docstatus != 1 {
		state := "deleted"
		if err == nil {
			state = "cancelled"
		}
		return pl.Park(fmt.Sprintf("%s %s booked for %s was %s in ERPNext; it is not re-booked automatically (to book it again: razorpay-erpnext events replay %s --rebook)",
			b.Doctype, b.Name, b.BusinessKey, state, b.BusinessKey)), nil
	}
	pl.Action, pl.Existing = connector.ExplainDuplicate, b.Name
	pl.Booking.Doctype, pl.Booking.Name = b.Doctype, b.Name
	pl.Reason = fmt.Sprintf("%s already booked as %s %s", b.BusinessKey, b.Doctype, b.Name)
	return pl, nil
}

// RefMatch is what a reference_no lookup found (names; "" when none).
type RefMatch struct{ Submitted, Draft string }

// FindByReference lists Payment Entries with reference_no = id and docstatus ≠ 2 and keeps
// only exact-case matches: the site's collation is case-insensitive (recording
// 50-list-reference-no-eq-other-case) while Razorpay ids are not.
func (c *Kernel) FindByReference(ctx context.Context, id string) (RefMatch, error) {
	var rows []struct {
		Name        string `json:"name"`
		ReferenceNo string `json:"reference_no"`
		Docstatus   int    `json:"docstatus"`
	}
	err := c.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  []string{"name", "reference_no", "docstatus"},
		Filters: []frappe.Filter{{"reference_no", "=", id}, {"docstatus", "!=", 2}},
		OrderBy: "creation asc",
		All:     true,
	}, &rows)
	if err != nil {
		return RefMatch{}, connector.Failed("look up Payment Entry by reference_no "+id, err)
	}
	var m RefMatch
	for _, r := range rows {
		if r.ReferenceNo != id {
			continue
		}
		switch {
		case r.Docstatus == 1 && m.Submitted == "":
			m.Submitted = r.Name
		case r.Docstatus == 0 && m.Draft == "":
			m.Draft = r.Name
		}
	}
	return m, nil
}
