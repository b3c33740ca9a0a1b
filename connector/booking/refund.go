package booking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Refunds (DESIGN.md §4 step 4, §5): refund.processed (and refund.created already processed)
// books one Pay entry per refund id against the credit note of the paid invoice; a failed
// refund is final (void.go). With the Razorpay API configured the refund is re-fetched before
// acting (snapshots arrive in any order) and its re-fetched status decides, not the event's name.

// refundBooking is the bookings row a refund r claims.
func refundBooking(r *razorpay.Refund) connector.Booking {
	return connector.Booking{BusinessKey: r.ID, Kind: connector.KindRefund, AmountMinor: r.Amount, Currency: r.Currency}
}

// refundOf is the event's refund as Razorpay reports it now (re-fetched when the API is
// configured), or the plan of an event that carries none.
func (c *refundJob) refundOf(ctx context.Context, e *razorpay.Event) (*razorpay.Refund, *connector.Plan, error) {
	r := e.Refund
	if r == nil || r.ID == "" {
		return nil, (&connector.Plan{Event: e.Event, Key: e.BusinessKey()}).Park(e.Event + " carries no refund entity"), nil
	}
	if c.Account.Razorpay != nil {
		fresh, err := c.Account.Razorpay.GetRefund(ctx, r.ID)
		if err != nil {
			return nil, nil, connector.Failed("re-fetch refund "+r.ID, err)
		}
		r = fresh
	}
	return r, nil, nil
}

// refundFailed reports whether the refund r (re-fetched, or the webhook's snapshot without the
// API) is failed: final, whatever came before.
func refundFailed(r *razorpay.Refund) bool { return r.Status == "failed" }

// refundDisagrees is the park plan of a refund.failed event e whose refund r is not failed: with
// the API configured, Razorpay's API (the fresh word) reports it processed or pending; without
// it, the webhook's own refund entity says so. Refund statuses go pending → processed | failed
// (spec/razorpay.md §3.3): a processed refund does not fail, so the event is not acted on — a
// booked entry is kept, nothing is made void — and a person checks the refund at Razorpay, then
// replays (decided again from the API) or dismisses the event. nil when e is no refund.failed
// or r is failed.
//
// Without the API a refund.failed whose entity says failed still cancels the booked entry, as
// DESIGN.md §4 and the README document: the webhook's signature was verified at intake, it is
// Razorpay's own word and the only one such a deployment has, and the spec's event table has
// refund.failed reverse a refund booked from an earlier snapshot. Parking every one of them
// would keep booked, by default, a refund Razorpay says never left the account.
func (c *refundJob) refundDisagrees(ctx context.Context, e *razorpay.Event, r *razorpay.Refund) (*connector.Plan, error) {
	if e.Event != connector.EventRefundFailed || refundFailed(r) {
		return nil, nil
	}
	source, why := "Razorpay's API reports it", "a processed refund does not fail"
	if c.Account.Razorpay == nil {
		source = "the webhook's own refund entity says"
	}
	if r.Status != "processed" {
		why = "it is cancelled only once Razorpay reports it failed"
	}
	kept := "nothing is cancelled or made void"
	b, err := c.Facts().GetBooking(ctx, r.ID)
	switch {
	case err == nil && b.State == connector.BookingBooked && b.Name != "":
		kept = "Payment Entry " + b.Name + " is kept"
	case err != nil && !errors.Is(err, connector.ErrNotFound):
		return nil, connector.Failed("booking of "+r.ID, err)
	}
	return connector.NewPlan(e, refundBooking(r)).Park(fmt.Sprintf("%s: %s for refund %s, but %s %s (%s); %s: check the refund in the Razorpay Dashboard, then replay or dismiss this event",
		mapping.ReasonRefundDisagrees, e.Event, r.ID, source, r.Status, why, kept)), nil
}

// book follows DESIGN.md §4 steps 3–7 for a refund event.
func (c *refundJob) book(ctx context.Context, ev *connector.InboxEvent, e *razorpay.Event, owner string) (connector.Result, error) {
	r, pl, err := c.refundOf(ctx, e)
	if err != nil || pl != nil {
		return c.ApplyOrFail(ctx, ev, pl, err)
	}
	if pl, err := c.refundDisagrees(ctx, e, r); err != nil || pl != nil {
		return c.ApplyOrFail(ctx, ev, pl, err)
	}
	if refundFailed(r) {
		return c.void.book(ctx, ev, e, r, owner)
	}
	if r.Status != "processed" {
		return c.Apply(ctx, ev, nil, connector.NewPlan(e, refundBooking(r)).Skip(notProcessed(r)))
	}
	return c.ClaimAndBook(ctx, ev, e, owner, refundBooking(r), func(ctx context.Context, w *kernel.Claim) (*connector.Plan, error) {
		return c.decide(ctx, e, r, ev.ReceivedAt, w)
	}, nil)
}

func notProcessed(r *razorpay.Refund) string {
	return fmt.Sprintf("refund %s is %s; it is booked when Razorpay reports it processed", r.ID, r.Status)
}

// decide decides the refund r (processed, its id claimed or looked at) of an event that
// arrived at receivedAt: lookup before create, the receipt it reverses, the credit note, lock,
// plan, build.
func (c *refundJob) decide(ctx context.Context, e *razorpay.Event, r *razorpay.Refund, receivedAt time.Time, lk kernel.Locker) (*connector.Plan, error) {
	pl := connector.NewPlan(e, refundBooking(r))
	found, err := c.FindByReference(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if found.Submitted != "" {
		return pl.Reuse(found.Submitted, "found in ERPNext by reference_no"), nil
	}
	if found.Draft != "" {
		return pl.Park(fmt.Sprintf("%s: draft Payment Entry %s has reference_no %s; submit or delete it in ERPNext, then replay", mapping.ReasonDraftMismatch, found.Draft, r.ID)), nil
	}
	receipt, waiting, err := c.receiptOf(ctx, pl, receivedAt, r.PaymentID)
	if err != nil || waiting != nil {
		return waiting, err
	}
	var cn *mapping.Invoice
	if receipt.Invoice != "" { // an advance has no invoice, so no credit note
		if cn, err = c.creditNote(ctx, receipt.Invoice); err != nil {
			return nil, connector.Failed("find the credit note of "+receipt.Invoice, err)
		}
	}
	lock, what := "payment:"+r.PaymentID, "payment "+r.PaymentID // a refund of an advance: no invoice to lock
	switch {
	case cn != nil:
		lock, what = "invoice:"+cn.Name, "Sales Invoice "+cn.Name
	case receipt.Invoice != "":
		lock, what = "invoice:"+receipt.Invoice, "Sales Invoice "+receipt.Invoice
	}
	if err := lk.LockDocument(ctx, lock, what); err != nil {
		return nil, err
	}
	if cn != nil { // re-read under the lock
		if cn, err = c.creditNote(ctx, receipt.Invoice); err != nil {
			return nil, connector.Failed("re-read the credit note of "+receipt.Invoice, err)
		}
	}
	return c.refundPlan(ctx, pl, r, receipt, cn)
}

// refundPlan plans and builds the refund entry.
func (c *refundJob) refundPlan(ctx context.Context, pl *connector.Plan, r *razorpay.Refund, receipt mapping.ReceiptFacts, cn *mapping.Invoice) (*connector.Plan, error) {
	plan, err := mapping.PlanRefund(c.Rules(receipt.PaidTo), r, receipt, cn)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	} else if err != nil {
		return nil, connector.Failed("plan refund", err)
	}
	doc, err := c.buildRefund(ctx, plan)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	} else if err != nil {
		return nil, connector.Failed("get_payment_entry for credit note "+plan.CreditNote, err)
	}
	b := refundBooking(r)
	b.Invoice = plan.CreditNote
	pl.Fields = refundFields(plan, receipt)
	return c.Create(pl, doc, refundLedger(plan), b, "insert refund Payment Entry for "+r.ID, "created"), nil
}

// creditNote returns the submitted return against invoice with the most negative outstanding
// left (nil when none has any).
func (c *refundJob) creditNote(ctx context.Context, invoice string) (*mapping.Invoice, error) {
	var rows []frappe.SalesInvoice
	err := c.Account.ERP.List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{
		Fields: []string{"name", "customer", "company", "currency", "party_account_currency", "debit_to",
			"outstanding_amount", "docstatus", "is_return"},
		Filters: []frappe.Filter{{"is_return", "=", 1}, {"return_against", "=", invoice}, {"docstatus", "=", 1}},
		OrderBy: "posting_date asc, name asc", All: true,
	}, &rows)
	if err != nil {
		return nil, err
	}
	var best *mapping.Invoice
	for _, si := range rows {
		f, err := invoiceFacts(si)
		if err != nil || f.Outstanding >= 0 {
			continue
		}
		if best == nil || f.Outstanding < best.Outstanding {
			best = &f
		}
	}
	return best, nil
}

// explain is book for Explain, for an event that arrived at arrived.
func (c *refundJob) explain(ctx context.Context, e *razorpay.Event, arrived time.Time) (*connector.Plan, error) {
	r, pl, err := c.refundOf(ctx, e)
	if err != nil || pl != nil {
		return pl, err
	}
	if pl, err := c.refundDisagrees(ctx, e, r); err != nil || pl != nil {
		return pl, err
	}
	if refundFailed(r) {
		return c.void.explain(ctx, e, r)
	}
	if r.Status != "processed" {
		return connector.NewPlan(e, refundBooking(r)).Skip(notProcessed(r)), nil
	}
	if pl, err := c.PeekClaim(ctx, e); pl != nil || err != nil {
		return pl, err
	}
	return c.decide(ctx, e, r, arrived, kernel.DryRun{})
}
