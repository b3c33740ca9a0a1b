package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Decide (DESIGN.md §4 steps 5–6, "decide, then apply"): from reads only, the plan for a
// payment's receipt. The worker calls it holding the payment id's claim and passes the claim as
// the locker; Explain calls it with dryRun. Failures of the reads are returned as errors
// (settle turns them into outcomes); everything a person or time must settle is a Plan.

// receiptBooking is the bookings row a receipt of p claims.
func receiptBooking(p *razorpay.Payment) connector.Booking {
	return connector.Booking{BusinessKey: p.ID, Kind: connector.KindReceipt, AmountMinor: p.Amount, Currency: p.Currency}
}

// receiptPrecheck is the plan of a receipt event that cannot be booked at all (no payment, not
// captured); nil when it can.
func receiptPrecheck(e *razorpay.Event) *connector.Plan {
	p := e.Payment
	if p == nil || p.ID == "" {
		return (&connector.Plan{Event: e.Event, Key: e.BusinessKey()}).Park(e.Event + " carries no payment entity")
	}
	if why := mapping.NotCaptured(p); why != "" {
		return connector.NewPlan(e, receiptBooking(p)).Park(mapping.ReasonNotCaptured + ": " + why)
	}
	return nil
}

// decide decides the receipt of e's payment (which receiptPrecheck passed) in as few
// ERPNext calls as it can (a plain booking is the lookup, one invoice read and the
// insert): take the lock of the invoice the payment names before reading anything, look up
// before create, resolve the invoice (the read that finds it is the read under the lock),
// wait out a Payment Request's grace, then decide against the invoice as it is under the lock.
// Every ERPNext call of a booking is made under the invoice lock, so a payment that finds it
// held has spent none (TestTwentyPaymentsOnOneInvoiceSpendAPlainBookingEach). Only a payment
// whose first name is not its invoice's own name spends calls before it reaches that lock:
// the lookup, the invoice read that misses (or finds the name in another case) and, for a
// Payment Request this process has not resolved before, the read of the request. The
// process's first booking also reads the Mode of Payment once (the kernel's PaidToAccount).
func (c *receiptJob) decide(ctx context.Context, e *razorpay.Event, lk kernel.Locker) (*connector.Plan, error) {
	p := e.Payment
	pl := connector.NewPlan(e, receiptBooking(p))
	tgt := c.targetOf(mapping.InvoiceCandidates(c.Rules(""), p, e.Order, e.PaymentLink))
	if tgt.paymentRequest != "" {
		if w := c.checkout.wait(pl, p, tgt.paymentRequest); w != nil {
			return w, nil
		}
	}
	if tgt.invoice != "" {
		if err := lk.LockDocument(ctx, invoiceLock(tgt.invoice), "Sales Invoice "+tgt.invoice); err != nil {
			return nil, err
		}
	}
	found, err := c.FindByReference(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if found.Submitted != "" {
		return pl.Reuse(found.Submitted, "found in ERPNext by reference_no"), nil
	}
	paidTo, err := c.PaidToAccount(ctx) // read once per process
	if err != nil {
		return nil, err
	}
	if paidTo == "" {
		return pl.Park(fmt.Sprintf("configuration: Mode of Payment %q has no account for company %q; set mapping.paid_to or add the account in ERPNext",
			c.Account.Mapping.ModeOfPayment, c.Account.Mapping.Company)), nil
	}
	rules := c.Rules(paidTo)
	res, si, order, cands, err := c.resolveReceipt(ctx, rules, e, tgt)
	if err != nil {
		return nil, err
	}
	if res.invoice == "" {
		detail := describeCandidates(p.ID, cands)
		if res.note != "" {
			detail += "; " + res.note
		}
		if c.Account.Mapping.WithoutInvoice != "advance" {
			return pl.Park(mapping.ReasonNoInvoice + ": " + detail), nil
		}
		return c.decideAdvance(ctx, pl, rules, e, order, detail)
	}
	return c.decideLocked(ctx, pl, rules, e, order, res, si, found.Draft, lk)
}

// invoiceLock is the lock row of Sales Invoice name.
func invoiceLock(name string) string { return "invoice:" + name }

// decideLocked decides against the invoice under its lock: si is the invoice read under it, or
// nil when the invoice was found under another name (a Payment Request, another case) and must
// be locked and read now. A payment of a Payment Request waits out its grace, and an entry
// ERPNext's checkout made for it is recorded (checkoutJob.plan).
func (c *receiptJob) decideLocked(ctx context.Context, pl *connector.Plan, rules mapping.Rules, e *razorpay.Event, order *razorpay.Order, res resolution, si *frappe.SalesInvoice, draft string, lk kernel.Locker) (*connector.Plan, error) {
	p := e.Payment
	if res.paymentRequest != "" {
		if w := c.checkout.wait(pl, p, res.paymentRequest); w != nil {
			return w, nil
		}
	}
	if si == nil {
		if err := lk.LockDocument(ctx, invoiceLock(res.invoice), "Sales Invoice "+res.invoice); err != nil {
			return nil, err
		}
		var err error
		if si, err = c.readInvoice(ctx, res.invoice); errors.Is(err, errNoInvoice) {
			return pl.Park(fmt.Sprintf("%s: Sales Invoice %s no longer exists", mapping.ReasonNoInvoice, res.invoice)), nil
		} else if err != nil {
			return nil, connector.Failed("read Sales Invoice "+res.invoice, err)
		}
	}
	if res.paymentRequest != "" {
		if cp, err := c.checkout.plan(ctx, pl, p, res.paymentRequest); cp != nil || err != nil {
			return cp, err
		}
		if res.request == nil { // found through the cache: read it for its outstanding
			res.request = &paymentRequest{}
			if err := c.Account.ERP.Get(ctx, frappe.DoctypePaymentRequest, res.paymentRequest, res.request); err != nil {
				return nil, connector.Failed("read Payment Request "+res.paymentRequest, err)
			}
		}
	}
	return c.decideAgainstInvoice(ctx, pl, rules, e, order, res, si, draft)
}

// decideAgainstInvoice plans the receipt against the invoice si read under its lock (its
// outstanding is live only there) and builds its entry, or submits a matching draft.
func (c *receiptJob) decideAgainstInvoice(ctx context.Context, pl *connector.Plan, rules mapping.Rules, e *razorpay.Event, order *razorpay.Order, res resolution, si *frappe.SalesInvoice, draft string) (*connector.Plan, error) {
	inv, err := invoiceFacts(*si)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	}
	if inv.RoundingAdjustment != 0 {
		acct, cc, err := c.RoundOff(ctx, inv.Company)
		if err != nil {
			return nil, connector.Failed("read the round-off account of "+inv.Company, err)
		}
		rules.RoundOff = mapping.RoundOff{Account: acct, CostCenter: cc}
	}
	plan, err := mapping.PlanReceipt(rules, e.Payment, order, inv, res.paymentRequest)
	if p, ok := asPark(err); ok && p.Reason == mapping.ReasonInvoiceSettled {
		// Settled since the lookup: by this very payment, booked from another store or a lost
		// race? Look again before parking.
		found, ferr := c.FindByReference(ctx, e.Payment.ID)
		if ferr != nil {
			return nil, ferr
		}
		if found.Submitted != "" {
			return pl.Reuse(found.Submitted, "found in ERPNext by reference_no after "+res.invoice+" was settled"), nil
		}
		return pl.Park(p.Error()), nil
	} else if ok {
		return pl.Park(p.Error()), nil
	} else if err != nil {
		return nil, connector.Failed("plan", err)
	}
	if draft != "" {
		return c.decideDraft(ctx, pl, e.Payment, res, inv, plan, draft)
	}
	doc, err := c.buildEntry(ctx, &plan, *si, res.request)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	} else if err != nil {
		return nil, connector.Failed("build the Payment Entry for "+res.invoice, err)
	}
	pl.Fields = c.receiptFields(e.Payment, res, inv, plan)
	return c.Create(pl, doc, receiptLedger(plan), bookingOf(plan), "insert Payment Entry for "+plan.PaymentID, "created"), nil
}

// decideDraft submits a draft found by reference_no when it matches the plan; a draft that
// differs was made by a person and is parked.
func (c *receiptJob) decideDraft(ctx context.Context, pl *connector.Plan, p *razorpay.Payment, res resolution, inv mapping.Invoice, plan mapping.Receipt, name string) (*connector.Plan, error) {
	var pe frappe.PaymentEntry
	if err := c.Account.ERP.Get(ctx, frappe.DoctypePaymentEntry, name, &pe); err != nil {
		return nil, connector.Failed("read draft Payment Entry "+name, err)
	}
	diffs, err := draftDiffs(pe, plan)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	}
	if len(diffs) > 0 {
		return pl.Park(fmt.Sprintf("%s: draft Payment Entry %s has reference_no %s but differs from the payment: %s; submit or delete it in ERPNext, then replay",
			mapping.ReasonDraftMismatch, name, plan.PaymentID, strings.Join(diffs, "; "))), nil
	}
	pl.Action, pl.Existing, pl.Reason = connector.ExplainSubmitDraft, name, "a draft with this reference_no matches the plan"
	pl.Booking, pl.Ledger, pl.Note = bookingOf(plan), receiptLedger(plan), "submitted the matching draft"
	pl.Booking.Doctype, pl.Booking.Name = frappe.DoctypePaymentEntry, name
	pl.Fields = c.receiptFields(p, res, inv, plan)
	pl.Op = "submit draft Payment Entry " + name
	return pl, nil
}

// decideAdvance plans a payment that names no invoice as an unallocated receipt for its
// customer (mapping.without_invoice advance): the customer found through
// mapping.customer_from or the fallback customer; none → parked "no invoice matched", several
// → "ambiguous customer".
func (c *receiptJob) decideAdvance(ctx context.Context, pl *connector.Plan, rules mapping.Rules, e *razorpay.Event, order *razorpay.Order, noInvoice string) (*connector.Plan, error) {
	plan, err := c.planAdvance(ctx, rules, e.Payment, order, e.PaymentLink, noInvoice)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	} else if err != nil {
		return nil, connector.Failed("find the customer of "+e.Payment.ID, err)
	}
	pl.Fields = c.advanceFields(plan)
	doc, err := advanceDoc(plan)
	if p, ok := asPark(err); ok {
		return pl.Park(p.Error()), nil
	}
	return c.Create(pl, doc, receiptLedger(plan), bookingOf(plan), "insert advance Payment Entry for "+plan.PaymentID,
		"created an advance for "+plan.Customer), nil
}

// bookingOf is the bookings row of a planned receipt: the gross amount the payment settles
// (paid plus the fee deducted, in the party currency) and the invoice.
func bookingOf(plan mapping.Receipt) connector.Booking {
	amount := plan.Paid
	if plan.SourceExchangeRate == "" {
		for _, d := range plan.Deductions {
			if d.Kind != mapping.DeductionRoundOff { // the fee only: rounding is not money received
				amount += d.Amount
			}
		}
	}
	return connector.Booking{BusinessKey: plan.PaymentID, Kind: connector.KindReceipt, AmountMinor: amount, Currency: plan.Currency, Invoice: plan.Invoice}
}

// asPark reports whether err is a mapping park reason.
func asPark(err error) (*mapping.Park, bool) {
	var p *mapping.Park
	ok := errors.As(err, &p)
	return p, ok
}

// draftDiffs lists how a draft found by reference_no differs from the plan; a currency not in
// Razorpay's table parks.
func draftDiffs(pe frappe.PaymentEntry, plan mapping.Receipt) ([]string, error) {
	exp, err := exponentOf(plan.Currency)
	if err != nil {
		return nil, err
	}
	recvExp, err := exponentOf(plan.ReceivedCurrency)
	if err != nil {
		return nil, err
	}
	var d []string
	cmp := func(field, got, want string) {
		if got != want {
			d = append(d, fmt.Sprintf("%s %q, expected %q", field, got, want))
		}
	}
	amount := func(field string, got json.Number, e int, want int64) {
		v, err := razorpay.ParseDecimal(got.String(), e)
		if err != nil || v != want {
			d = append(d, fmt.Sprintf("%s %s, expected %s", field, got, razorpay.FormatMinor(want, e)))
		}
	}
	cmp("payment_type", pe.PaymentType, "Receive")
	cmp("company", pe.Company, plan.Company)
	cmp("party", pe.Party, plan.Customer)
	cmp("paid_to", pe.PaidTo, plan.PaidTo)
	amount("paid_amount", pe.PaidAmount, exp, plan.Paid)
	amount("received_amount", pe.ReceivedAmount, recvExp, plan.Received)
	var ded, want, alloc int64
	for _, x := range pe.Deductions {
		v, _ := razorpay.ParseDecimal(x.Amount.String(), recvExp)
		ded += v
	}
	for _, x := range plan.Deductions {
		want += x.Amount
	}
	if ded != want {
		d = append(d, fmt.Sprintf("deductions %s, expected %s", razorpay.FormatMinor(ded, recvExp), razorpay.FormatMinor(want, recvExp)))
	}
	for _, r := range pe.References {
		v, err := razorpay.ParseDecimal(r.AllocatedAmount.String(), exp)
		if r.ReferenceDoctype != frappe.DoctypeSalesInvoice || r.ReferenceName != plan.Invoice || err != nil {
			d = append(d, fmt.Sprintf("reference %s %s allocated %s is not Sales Invoice %s", r.ReferenceDoctype, r.ReferenceName, r.AllocatedAmount, plan.Invoice))
			continue
		}
		alloc += v
	}
	if alloc != plan.Allocated {
		d = append(d, fmt.Sprintf("allocated %s to %s, expected %s", razorpay.FormatMinor(alloc, exp), plan.Invoice, razorpay.FormatMinor(plan.Allocated, exp)))
	}
	return d, nil
}
