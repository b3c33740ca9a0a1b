package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// sitePrecision is the number of decimals the ERPNext site keeps for currency amounts. Frappe's
// default (currency_precision empty → 2 from number_format "#,##,###.##", recording
// 55-*); System Settings is unreadable to an Accounts user, so it is not read from the site.
const sitePrecision = 2

// companyCurrency is the base currency of a Razorpay (India) account and of the ERPNext
// company it books into: fee and tax are in INR paise (spec/razorpay.md §3.1).
const companyCurrency = "INR"

// receiptJob books one payment id; it holds the business-key claim for its lifetime.
type receiptJob struct {
	*writeClaim
	e *razorpay.Event
	p *razorpay.Payment
}

// bookReceipt follows DESIGN.md §4 steps 3–7 for a receipt: claim the payment id, look up
// before create, resolve the invoice, lock it, re-read it, plan, build with get_payment_entry,
// insert with docstatus 1, record.
func (c *Connector) bookReceipt(ctx context.Context, ev *InboxEvent, e *razorpay.Event, owner string) Outcome {
	p := e.Payment
	if p == nil || p.ID == "" {
		return parkOutcome("%s carries no payment entity", e.Event)
	}
	if p.Status != "captured" && !bool(p.Captured) {
		return parkOutcome("%s: payment %s is %s, not captured", mapping.ReasonNotCaptured, p.ID, p.Status)
	}
	now := c.now()
	// The claim's first fence covers the reads before the write (each bounded by erpnext.timeout
	// ≤ server_timeout); a worker that dies here holds the payment until it passes.
	row, claimed, err := c.store.ClaimBooking(ctx, Booking{
		BusinessKey: p.ID, Kind: KindReceipt, Owner: owner, FenceUntil: now.Add(c.writeFence()),
		AmountMinor: p.Amount, Currency: p.Currency, CreatedAt: now,
	}, now)
	if err != nil {
		return c.retry(ev, 0, "claim %s: %v", p.ID, err)
	}
	if !claimed {
		if row.State == BookingBooked {
			return c.confirmBooked(ctx, ev, row)
		}
		wait := row.FenceUntil.Add(time.Duration(rand.Int64N(int64(time.Second))))
		return c.waitUntil(wait, "waiting: %s is being booked by another worker until %s", p.ID, row.FenceUntil.Format(time.RFC3339))
	}
	j := &receiptJob{writeClaim: c.newClaim(ev, p.ID, owner, KindReceipt, p.Amount, p.Currency), e: e, p: p}
	return j.hold(ctx, j.run)
}

func (j *receiptJob) run(ctx context.Context) Outcome {
	c, ev := j.c, j.ev
	// (b) ERPNext Payment Entry with this reference_no, exact case.
	found, err := c.findByReference(ctx, j.key)
	if err != nil {
		return c.failOutcome(ev, "look up Payment Entry by reference_no "+j.key, err)
	}
	if found.submitted != "" {
		return c.recordBooked(ctx, ev, Booking{BusinessKey: j.key, Kind: KindReceipt, Doctype: frappe.DoctypePaymentEntry,
			Name: found.submitted, AmountMinor: j.p.Amount, Currency: j.p.Currency}, "found in ERPNext by reference_no")
	}
	paidTo, err := c.paidToAccount(ctx)
	if err != nil {
		return c.failOutcome(ev, "resolve paid_to account", err)
	}
	if paidTo == "" {
		return parkOutcome("configuration: Mode of Payment %q has no account for company %q; set mapping.paid_to or add the account in ERPNext",
			c.cfg.Mapping.ModeOfPayment, c.cfg.Mapping.Company)
	}
	rules := c.rules(paidTo)
	res, order, cands, err := c.invoiceOf(ctx, rules, j.p, j.e.Order, j.e.PaymentLink)
	if err != nil {
		if isRazorpayError(err) {
			return c.razorpayFailure(ev, "fetch order "+j.p.OrderID+" from Razorpay", err)
		}
		return c.failOutcome(ev, "resolve Sales Invoice", err)
	}
	if res.invoice == "" && c.cfg.Reconcile.IntegrationRequests {
		// ERPNext's own checkout: the webhook names nothing, but an Integration Request holds
		// the payment id and its Payment Request (spec/erpnext.md §5.2).
		if pr, err := c.checkoutRequestOf(ctx, j.p.ID); err != nil {
			return c.failOutcome(ev, "look up the Integration Request of "+j.p.ID, err)
		} else if pr != "" {
			if res, err = c.resolveInvoice(ctx, []mapping.Candidate{{Source: "integration_request", Name: pr}}); err != nil {
				return c.failOutcome(ev, "resolve Payment Request "+pr, err)
			}
		}
	}
	if res.invoice == "" {
		detail := describeCandidates(j.p.ID, cands)
		if res.note != "" {
			detail += "; " + res.note
		}
		if c.cfg.Mapping.WithoutInvoice == "advance" {
			return j.bookAdvance(ctx, rules, order, detail)
		}
		return parkOutcome("%s: %s", mapping.ReasonNoInvoice, detail)
	}
	invName := res.invoice
	if res.paymentRequest != "" {
		ready := time.Unix(j.p.CreatedAt, 0).Add(c.cfg.Mapping.PaymentRequestGrace.D())
		if now := c.now(); now.Before(ready) {
			return c.waitUntil(ready, "waiting until %s for ERPNext's checkout to book Payment Request %s", ready.UTC().Format(time.RFC3339), res.paymentRequest)
		}
	}
	lock := "invoice:" + invName
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, lock, j.owner, now, now.Add(c.writeFence()))
	if err != nil {
		return c.retry(ev, 0, "lock %s: %v", lock, err)
	}
	if !ok {
		return c.waitUntil(now.Add(time.Second+time.Duration(rand.Int64N(int64(2*time.Second)))), "waiting for the lock on Sales Invoice %s", invName)
	}
	defer func() {
		if j.keep {
			return
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.store.ReleaseLock(rctx, lock, j.owner)
	}()

	if res.paymentRequest != "" {
		// ERPNext's own checkout may book this payment itself (DESIGN.md §4 step 5c): give it the
		// grace period, then look for its entry before making one — under the invoice lock, so two
		// payments never both take the one entry ERPNext made.
		if o, done := j.checkoutBooked(ctx, res.paymentRequest); done {
			return o
		}
	}

	// Re-read the invoice under the lock: the outstanding is live only now.
	var si frappe.SalesInvoice
	if err := c.erp.Get(ctx, frappe.DoctypeSalesInvoice, invName, &si); err != nil {
		return c.failOutcome(ev, "read Sales Invoice "+invName, err)
	}
	inv, err := invoiceFacts(si)
	if err != nil {
		return parkOutcome("%s", err.Error())
	}
	plan, err := mapping.PlanReceipt(rules, j.p, order, inv, res.paymentRequest)
	if err != nil {
		if p, ok := asPark(err); ok {
			return parkOutcome("%s", p.Error())
		}
		return c.retry(ev, 0, "plan: %v", err)
	}
	if found.draft != "" {
		return j.submitDraft(ctx, plan, found.draft, lock)
	}
	doc, err := c.buildEntry(ctx, plan)
	if err != nil {
		if p, ok := asPark(err); ok {
			return parkOutcome("%s", p.Error())
		}
		return c.failOutcome(ev, "get_payment_entry for "+invName, err)
	}
	if c.cfg.ERPNext.NameEntriesByPaymentID {
		doc["name"] = j.key
	}
	if o, ok := j.fence(ctx, lock); !ok {
		return o
	}
	var pe frappe.PaymentEntry
	err = c.erp.Insert(ctx, frappe.DoctypePaymentEntry, doc, &pe)
	if err != nil {
		return j.writeFailed(ctx, "insert Payment Entry for "+j.key, err)
	}
	return c.recordBooked(ctx, ev, bookingOf(plan, pe.Name), "created")
}

// writeFence is how long a claim holds after a write is sent: server_timeout + margin.
func (c *Connector) writeFence() time.Duration {
	return c.cfg.ERPNext.ServerTimeout.D() + c.cfg.Worker.FenceMargin.D()
}

// submitDraft submits a draft found by reference_no when it matches the plan; a draft that
// differs was made by a person and is parked.
func (j *receiptJob) submitDraft(ctx context.Context, plan mapping.Receipt, name, lock string) Outcome {
	c := j.c
	var pe frappe.PaymentEntry
	if err := c.erp.Get(ctx, frappe.DoctypePaymentEntry, name, &pe); err != nil {
		return c.failOutcome(j.ev, "read draft Payment Entry "+name, err)
	}
	if diffs := draftDiffs(pe, plan); len(diffs) > 0 {
		return parkOutcome("%s: draft Payment Entry %s has reference_no %s but differs from the payment: %s; submit or delete it in ERPNext, then replay",
			mapping.ReasonDraftMismatch, name, j.key, strings.Join(diffs, "; "))
	}
	if o, ok := j.fence(ctx, lock); !ok {
		return o
	}
	var out frappe.PaymentEntry
	if err := c.erp.Update(ctx, frappe.DoctypePaymentEntry, name, map[string]any{"docstatus": 1}, &out); err != nil {
		return j.writeFailed(ctx, "submit draft Payment Entry "+name, err)
	}
	return c.recordBooked(ctx, j.ev, bookingOf(plan, name), "submitted the matching draft")
}

// bookingOf is the bookings row of a planned receipt: the gross amount the payment settles
// (paid plus the fee deducted, in the party currency) and the invoice.
func bookingOf(plan mapping.Receipt, name string) Booking {
	amount := plan.Paid
	if plan.SourceExchangeRate == "" {
		for _, d := range plan.Deductions {
			amount += d.Amount
		}
	}
	return Booking{BusinessKey: plan.PaymentID, Kind: KindReceipt, Doctype: frappe.DoctypePaymentEntry, Name: name,
		AmountMinor: amount, Currency: plan.Currency, Invoice: plan.Invoice}
}

// recordBooked marks the business key booked, turns the key's other parked rows into
// duplicates and returns the done outcome.
func (c *Connector) recordBooked(ctx context.Context, ev *InboxEvent, b Booking, how string) Outcome {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.store.FinishBooking(wctx, b, c.now()); err != nil {
		return c.retry(ev, 0, "record booking %s as %s: %v", b.BusinessKey, b.Name, err)
	}
	if _, err := c.store.MarkDuplicates(wctx, b.BusinessKey, ev.ID, b.Doctype+" "+b.Name, c.now()); err != nil {
		c.log.Warn().Err(err).Str("payment_id", b.BusinessKey).Msg("mark duplicates")
	}
	return Outcome{Status: StatusDone, ResultDoctype: b.Doctype, ResultName: b.Name, LastError: how}
}

// confirmBooked handles an event whose payment id is booked already: it counts only while the
// ERPNext document is submitted (DESIGN.md §4 step 5a).
func (c *Connector) confirmBooked(ctx context.Context, ev *InboxEvent, b Booking) Outcome {
	var pe frappe.PaymentEntry
	err := c.erp.Get(ctx, b.Doctype, b.Name, &pe)
	if err != nil && !frappe.IsNotFound(err) {
		return c.failOutcome(ev, "read booked "+b.Doctype+" "+b.Name, err)
	}
	if err != nil || pe.Docstatus != 1 {
		state := "deleted"
		if err == nil {
			state = "cancelled"
		}
		return parkOutcome("%s %s booked for %s was %s in ERPNext; it is not re-booked automatically (to book it again: razorpay-erpnext events replay %s --rebook)",
			b.Doctype, b.Name, b.BusinessKey, state, b.BusinessKey)
	}
	return Outcome{Status: StatusDuplicate, ResultDoctype: b.Doctype, ResultName: b.Name,
		LastError: fmt.Sprintf("%s already booked as %s %s", b.BusinessKey, b.Doctype, b.Name)}
}

// refMatch is what a reference_no lookup found (names; "" when none).
type refMatch struct{ submitted, draft string }

// findByReference lists Payment Entries with reference_no = id and docstatus ≠ 2 and keeps
// only exact-case matches: the site's collation is case-insensitive (recording
// 50-list-reference-no-eq-other-case) while Razorpay ids are not.
func (c *Connector) findByReference(ctx context.Context, id string) (refMatch, error) {
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
		return refMatch{}, err
	}
	var m refMatch
	for _, r := range rows {
		if r.ReferenceNo != id {
			continue
		}
		switch {
		case r.Docstatus == 1 && m.submitted == "":
			m.submitted = r.Name
		case r.Docstatus == 0 && m.draft == "":
			m.draft = r.Name
		}
	}
	return m, nil
}

// resolution is where a payment's invoice was found.
type resolution struct {
	source         string // where the name was found, e.g. "notes.invoice"
	invoice        string // Sales Invoice name; "" when none
	paymentRequest string // the Payment Request that led to it, if any
	note           string // why a candidate that exists was not used
}

// resolveInvoice tries each candidate as a Sales Invoice, then as a Payment Request whose
// reference document is a Sales Invoice (DESIGN.md §4 step 6).
func (c *Connector) resolveInvoice(ctx context.Context, cands []mapping.Candidate) (resolution, error) {
	var res resolution
	for _, cand := range cands {
		var si frappe.SalesInvoice
		err := c.erp.Get(ctx, frappe.DoctypeSalesInvoice, cand.Name, &si)
		if err == nil {
			res.invoice, res.source = si.Name, cand.Source
			return res, nil
		}
		if !frappe.IsNotFound(err) {
			return res, err
		}
		var pr paymentRequest
		err = c.erp.Get(ctx, frappe.DoctypePaymentRequest, cand.Name, &pr)
		if frappe.IsNotFound(err) {
			continue
		}
		if err != nil {
			return res, err
		}
		if pr.ReferenceDoctype != frappe.DoctypeSalesInvoice || pr.ReferenceName == "" {
			res.note = fmt.Sprintf("Payment Request %s is for %s %s, not a Sales Invoice", pr.Name, pr.ReferenceDoctype, pr.ReferenceName)
			continue
		}
		res.invoice, res.paymentRequest, res.source = pr.ReferenceName, pr.Name, cand.Source
		return res, nil
	}
	return res, nil
}

// paymentRequest is what the connector reads of an ERPNext Payment Request (spec/erpnext.md §3.9).
type paymentRequest struct {
	Name              string      `json:"name"`
	ReferenceDoctype  string      `json:"reference_doctype"`
	ReferenceName     string      `json:"reference_name"`
	Status            string      `json:"status"`
	Docstatus         int         `json:"docstatus"`
	GrandTotal        json.Number `json:"grand_total"`
	OutstandingAmount json.Number `json:"outstanding_amount"`
	Currency          string      `json:"currency"`
}

// invoiceOf resolves the payment's invoice from what the event carries and, only when that
// names none, order.receipt is a configured source and the event lacks the order, from the
// order fetched from Razorpay (so a Razorpay hiccup never stands in the way of a payment whose
// notes name its invoice). It returns the order used and the candidates tried; an error is
// from ERPNext, or from Razorpay (isRazorpayError).
func (c *Connector) invoiceOf(ctx context.Context, rules mapping.Rules, p *razorpay.Payment, o *razorpay.Order, l *razorpay.PaymentLink) (resolution, *razorpay.Order, []mapping.Candidate, error) {
	cands := mapping.InvoiceCandidates(rules, p, o, l)
	res, err := c.resolveInvoice(ctx, cands)
	if err != nil || res.invoice != "" || o != nil {
		return res, o, cands, err
	}
	fetched, err := c.orderOf(ctx, p, o)
	if err != nil || fetched == nil {
		return res, o, cands, err
	}
	cands = mapping.InvoiceCandidates(rules, p, fetched, l)
	res, err = c.resolveInvoice(ctx, cands)
	return res, fetched, cands, err
}

// isRazorpayError reports whether err came from the Razorpay API client.
func isRazorpayError(err error) bool {
	var ae *razorpay.APIError
	var te *razorpay.TransportError
	return errors.As(err, &ae) || errors.As(err, &te)
}

// orderOf is the event's order, or the payment's order fetched from Razorpay when the event
// does not carry it, order.receipt is a configured source and the API is configured.
func (c *Connector) orderOf(ctx context.Context, p *razorpay.Payment, o *razorpay.Order) (*razorpay.Order, error) {
	if o != nil || p.OrderID == "" || c.rzp == nil {
		return o, nil
	}
	wanted := false
	for _, src := range c.cfg.Mapping.InvoiceFrom {
		wanted = wanted || src == "order.receipt"
	}
	if !wanted {
		return nil, nil
	}
	return c.rzp.GetOrder(ctx, p.OrderID)
}

// checkoutEntry is a submitted entry ERPNext's own checkout made for a Payment Request.
type checkoutEntry struct {
	Name        string      `json:"name"`
	ReferenceNo string      `json:"reference_no"`
	PaidAmount  json.Number `json:"paid_amount"`
}

// checkoutEntries lists the submitted entries that account for Payment Request pr: reference_no
// = its name (exact case; the site's `=` ignores case) or a reference row linking it, except
// entries carrying another Razorpay payment id than paymentID (spec/erpnext.md §3.9).
func (c *Connector) checkoutEntries(ctx context.Context, pr, paymentID string) ([]checkoutEntry, error) {
	var byRef, byRow []checkoutEntry
	err := c.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  []string{"name", "reference_no", "paid_amount"},
		Filters: []frappe.Filter{{"reference_no", "=", pr}, {"docstatus", "=", 1}},
		OrderBy: "creation asc", All: true,
	}, &byRef)
	if err != nil {
		return nil, err
	}
	err = c.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  []string{"name", "reference_no", "paid_amount"},
		Filters: []frappe.Filter{{frappe.DoctypePaymentEntryReference, "payment_request", "=", pr}, {"docstatus", "=", 1}},
		OrderBy: "creation asc", All: true,
	}, &byRow)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []checkoutEntry
	for _, r := range byRef {
		if r.ReferenceNo == pr && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	for _, r := range byRow {
		if strings.HasPrefix(r.ReferenceNo, "pay_") && r.ReferenceNo != paymentID || seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		out = append(out, r)
	}
	return out, nil
}

// checkoutBooked looks for an entry ERPNext's own checkout made for the Payment Request. One
// found, unclaimed by another payment and of the payment's amount → recorded as this payment's
// booking. Two, or one of another amount or payment → parked. done=false: none, book it.
func (j *receiptJob) checkoutBooked(ctx context.Context, pr string) (Outcome, bool) {
	c := j.c
	entries, err := c.checkoutEntries(ctx, pr, j.key)
	if err != nil {
		return c.failOutcome(j.ev, "look up entries of Payment Request "+pr, err), true
	}
	switch len(entries) {
	case 0:
		return Outcome{}, false
	case 1:
	default:
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		return parkOutcome("%s: Payment Request %s has %d entries (%s); which one is payment %s needs a person",
			mapping.ReasonPaymentRequest, pr, len(entries), strings.Join(names, ", "), j.key), true
	}
	entry := entries[0]
	others, err := c.store.BookingsForDocument(ctx, frappe.DoctypePaymentEntry, entry.Name)
	if err != nil {
		return c.retry(j.ev, 0, "bookings of %s: %v", entry.Name, err), true
	}
	for _, b := range others {
		if b.BusinessKey != j.key {
			return parkOutcome("%s: Payment Entry %s of Payment Request %s already accounts for payment %s; payment %s needs a person",
				mapping.ReasonPaymentRequest, entry.Name, pr, b.BusinessKey, j.key), true
		}
	}
	exp, _ := razorpay.Exponent(j.p.Currency)
	paid, perr := razorpay.ParseDecimal(entry.PaidAmount.String(), exp)
	if perr != nil || paid != j.p.Amount {
		return parkOutcome("%s: Payment Entry %s of Payment Request %s is for %s, payment %s is %s %s",
			mapping.ReasonPaymentRequest, entry.Name, pr, entry.PaidAmount, j.key, j.p.Currency, razorpay.FormatMinor(j.p.Amount, exp)), true
	}
	o := c.recordBooked(ctx, j.ev, Booking{BusinessKey: j.key, Kind: KindReceipt, Doctype: frappe.DoctypePaymentEntry,
		Name: entry.Name, AmountMinor: j.p.Amount, Currency: j.p.Currency}, "booked by ERPNext's checkout for Payment Request "+pr)
	// ERPNext's checkout books the gross and never the gateway fee (spec/erpnext.md §3.9): with
	// fees in deduction mode the books would exceed what Razorpay settles. The entry stays this
	// payment's booking (never booked twice); the fee needs a person.
	if o.Status == StatusDone && c.cfg.Mapping.Fees.Mode == "deduction" && j.p.Fee != nil && *j.p.Fee > 0 && j.p.FeeBearer != "customer" {
		tax := int64(0)
		if j.p.Tax != nil {
			tax = *j.p.Tax
		}
		o.Status = StatusParked
		o.LastError = fmt.Sprintf("fee not booked: ERPNext's checkout booked Payment Entry %s for Payment Request %s at the gross amount; book Razorpay's fee INR %s (of which GST INR %s) out of %s by hand (Journal Entry)",
			entry.Name, pr, razorpay.FormatMinor(*j.p.Fee, 2), razorpay.FormatMinor(tax, 2), c.cfg.Mapping.PaidTo)
	}
	return o, true
}

func describeCandidates(paymentID string, cands []mapping.Candidate) string {
	if len(cands) == 0 {
		return fmt.Sprintf("payment %s names no invoice (no configured note key, order receipt or link reference is set)", paymentID)
	}
	var s []string
	for _, c := range cands {
		s = append(s, fmt.Sprintf("%s=%q", c.Source, c.Name))
	}
	return fmt.Sprintf("payment %s: no Sales Invoice named %s", paymentID, strings.Join(s, ", "))
}

// invoiceFacts converts the Sales Invoice read from ERPNext into the planner's input.
func invoiceFacts(si frappe.SalesInvoice) (mapping.Invoice, error) {
	cur := si.PartyAccountCurrency
	if cur == "" {
		cur = si.Currency
	}
	exp, ok := razorpay.Exponent(cur)
	if !ok {
		return mapping.Invoice{}, fmt.Errorf("%s: Sales Invoice %s is receivable in %q", mapping.ReasonCurrency, si.Name, cur)
	}
	out, err := razorpay.ParseDecimal(si.OutstandingAmount.String(), exp)
	if err != nil {
		return mapping.Invoice{}, fmt.Errorf("%s: Sales Invoice %s outstanding %q: %w", mapping.ReasonCurrencyPrecision, si.Name, si.OutstandingAmount, err)
	}
	return mapping.Invoice{Name: si.Name, Customer: si.Customer, Company: si.Company, PartyAccountCurrency: cur,
		DebitTo: si.DebitTo, Docstatus: si.Docstatus, IsReturn: si.IsReturn == 1, Outstanding: out}, nil
}

func (c *Connector) rules(paidTo string) mapping.Rules {
	var pattern *regexp.Regexp
	if c.cfg.Mapping.DescriptionPattern != "" {
		pattern, _ = regexp.Compile(c.cfg.Mapping.DescriptionPattern) // validated with the config
	}
	return mapping.Rules{
		DescriptionPattern: pattern,
		Company:            c.cfg.Mapping.Company, ModeOfPayment: c.cfg.Mapping.ModeOfPayment, PaidTo: paidTo,
		Location: c.loc, InvoiceFrom: c.cfg.Mapping.InvoiceFrom, Excess: c.cfg.Mapping.Excess,
		CompanyCurrency: companyCurrency, SitePrecision: sitePrecision,
		Fees: mapping.FeeRules{Mode: c.cfg.Mapping.Fees.Mode, FeeAccount: c.cfg.Mapping.Fees.FeeAccount,
			TaxAccount: c.cfg.Mapping.Fees.TaxAccount, CostCenter: c.cfg.Mapping.Fees.CostCenter},
		RefundsWithoutCreditNote: c.cfg.Mapping.Refunds.WithoutCreditNote,
	}
}

// paidToAccount is mapping.paid_to, else the Mode of Payment's default account for the
// company ("" when it has none). ERPNext never derives paid_to from mode_of_payment on the
// server (spec/erpnext.md §3.1, §7), so it is always sent explicitly.
func (c *Connector) paidToAccount(ctx context.Context) (string, error) {
	if c.cfg.Mapping.PaidTo != "" {
		return c.cfg.Mapping.PaidTo, nil
	}
	c.mu.Lock()
	acct, ok := c.paidTo[c.cfg.Mapping.Company]
	c.mu.Unlock()
	if ok {
		return acct, nil
	}
	var mop frappe.ModeOfPayment
	if err := c.erp.Get(ctx, "Mode of Payment", c.cfg.Mapping.ModeOfPayment, &mop); err != nil {
		return "", err
	}
	for _, a := range mop.Accounts {
		if a.Company == c.cfg.Mapping.Company && a.DefaultAccount != "" {
			c.mu.Lock()
			c.paidTo[c.cfg.Mapping.Company] = a.DefaultAccount
			c.mu.Unlock()
			return a.DefaultAccount, nil
		}
	}
	return "", nil
}

// buildEntry asks ERPNext for its own Payment Entry for the invoice (get_payment_entry with
// party_amount = the allocation and bank_account = paid_to, spec/erpnext.md §3.8) and sets
// what the connector owns: dates, reference_no, mode_of_payment, paid_to, amounts, exchange
// rate, deductions, remarks, docstatus 1. Payment-term rows are kept as ERPNext split them;
// only this payment's Payment Request stays linked on them.
func (c *Connector) buildEntry(ctx context.Context, plan mapping.Receipt) (map[string]any, error) {
	exp, _ := razorpay.Exponent(plan.Currency)
	var doc map[string]any
	err := c.erp.Call(ctx, frappe.MethodGetPaymentEntry, map[string]any{
		"dt": frappe.DoctypeSalesInvoice, "dn": plan.Invoice,
		"party_amount": json.Number(razorpay.FormatMinor(plan.Allocated, exp)), "bank_account": plan.PaidTo,
	}, &doc)
	if err != nil {
		return nil, err
	}
	if pt, _ := doc["payment_type"].(string); pt != "Receive" {
		return nil, &mapping.Park{Reason: mapping.ReasonInvoiceSettled, Detail: fmt.Sprintf("ERPNext proposes a %q entry for Sales Invoice %s", pt, plan.Invoice)}
	}
	if party, _ := doc["party"].(string); party != plan.Customer {
		return nil, &mapping.Park{Reason: mapping.ReasonInvoiceState, Detail: fmt.Sprintf("ERPNext proposes party %q for Sales Invoice %s of %q", party, plan.Invoice, plan.Customer)}
	}
	if d, _ := doc["deductions"].([]any); len(d) > 0 {
		return nil, &mapping.Park{Reason: mapping.ReasonInvoiceState, Detail: fmt.Sprintf("ERPNext proposes %d deduction rows (early-payment discount?) for Sales Invoice %s; book it by hand", len(d), plan.Invoice)}
	}
	allocs, err := keepRows(doc, plan, exp)
	if err != nil {
		return nil, err
	}
	var sum int64
	for _, a := range allocs {
		sum += a
	}
	if sum != plan.Allocated {
		return nil, &mapping.Park{Reason: mapping.ReasonInvoiceState, Detail: fmt.Sprintf("get_payment_entry allocates %s to Sales Invoice %s, expected %s",
			razorpay.FormatMinor(sum, exp), plan.Invoice, razorpay.FormatMinor(plan.Allocated, exp))}
	}
	recvExp, _ := razorpay.Exponent(plan.ReceivedCurrency)
	if plan.SourceExchangeRate != "" {
		var ded int64
		for _, d := range plan.Deductions {
			ded += d.Amount
		}
		gap, err := mapping.BaseRoundingGap(allocs, plan.Unallocated, plan.Currency, plan.SourceExchangeRate, recvExp, plan.Received, ded)
		if err != nil {
			return nil, err
		}
		switch {
		case gap == 0:
		case abs64(gap) <= int64(len(allocs)+1)/2:
			// Each row's base amount is rounded on its own, half a paisa at most: the rest goes
			// to the company's round-off account, as an accountant would book it; what was
			// received stays exactly what Razorpay settled.
			acct, cc, err := c.roundOff(ctx, plan.Company)
			if err != nil {
				return nil, err
			}
			if acct == "" {
				return nil, &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf(
					"%d reference rows of %s at rate %s round to %s %s off the amount received and Company %s has no round_off_account",
					len(allocs), plan.Currency, plan.SourceExchangeRate, plan.ReceivedCurrency, razorpay.FormatMinor(gap, recvExp), plan.Company)}
			}
			plan.Deductions = append(plan.Deductions, mapping.Deduction{Account: acct, CostCenter: cc, Amount: gap,
				Description: fmt.Sprintf("rounding of %d payment-term rows at rate %s", len(allocs), plan.SourceExchangeRate)})
		default:
			return nil, &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf(
				"%d reference rows of %s at rate %s come to %s %s off the %s %s received; book it by hand",
				len(allocs), plan.Currency, plan.SourceExchangeRate, plan.ReceivedCurrency, razorpay.FormatMinor(gap, recvExp), plan.ReceivedCurrency, razorpay.FormatMinor(plan.Received, recvExp))}
		}
	}
	// Amounts ERPNext computes itself (spec/erpnext.md §3.1 "never send; read back"):
	// get_payment_entry proposed them at the invoice's rate, and they would mislead a preview.
	for _, k := range []string{"base_paid_amount", "base_received_amount", "base_total_allocated_amount",
		"total_allocated_amount", "unallocated_amount", "difference_amount", "paid_amount_after_tax",
		"base_paid_amount_after_tax", "received_amount_after_tax", "base_received_amount_after_tax",
		"paid_from_account_balance", "paid_to_account_balance", "party_balance"} {
		delete(doc, k)
	}
	delete(doc, "__islocal")
	delete(doc, "__unsaved")
	doc["company"] = plan.Company
	doc["posting_date"] = plan.PostingDate
	doc["reference_date"] = plan.ReferenceDate
	doc["reference_no"] = plan.ReferenceNo
	doc["mode_of_payment"] = plan.ModeOfPayment
	doc["paid_to"] = plan.PaidTo
	doc["paid_amount"] = json.Number(razorpay.FormatMinor(plan.Paid, exp))
	doc["received_amount"] = json.Number(razorpay.FormatMinor(plan.Received, recvExp))
	if plan.SourceExchangeRate != "" {
		doc["source_exchange_rate"] = json.Number(plan.SourceExchangeRate)
		doc["target_exchange_rate"] = json.Number("1")
	}
	deductions := make([]map[string]any, 0, len(plan.Deductions))
	for _, d := range plan.Deductions {
		deductions = append(deductions, map[string]any{"account": d.Account, "cost_center": d.CostCenter,
			"amount": json.Number(razorpay.FormatMinor(d.Amount, recvExp)), "description": d.Description})
	}
	doc["deductions"] = deductions
	doc["remarks"] = plan.Remarks
	doc["custom_remarks"] = 1
	doc["docstatus"] = 1
	return doc, nil
}

// keepRows cleans the reference rows get_payment_entry proposed: drops the unsaved markers,
// links only this payment's Payment Request (ERPNext attaches every open one,
// spec/erpnext.md §3.8) and returns the allocations of the rows kept, in minor units.
func keepRows(doc map[string]any, plan mapping.Receipt, exp int) ([]int64, error) {
	rows, _ := doc["references"].([]any)
	linked := false
	// ERPNext gives every payment-term row its whole outstanding whatever party_amount says
	// (15.71 get_payment_entry, recorded site's source): the allocation is spread over the terms
	// in their order here, and rows left with nothing are dropped.
	remaining := plan.Allocated
	var kept []any
	var allocs []int64
	for _, r := range rows {
		row, ok := r.(map[string]any)
		if !ok {
			continue
		}
		delete(row, "__islocal")
		delete(row, "__unsaved")
		if pr, _ := row["payment_request"].(string); pr != "" && pr != plan.PaymentRequest {
			row["payment_request"] = ""
		} else if pr != "" {
			linked = true
		}
		v, err := razorpay.ParseDecimal(fmt.Sprint(row["allocated_amount"]), exp)
		if err != nil {
			return nil, &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf("get_payment_entry allocation %v: %v", row["allocated_amount"], err)}
		}
		take := min(v, remaining)
		if take <= 0 {
			continue
		}
		if take != v {
			row["allocated_amount"] = json.Number(razorpay.FormatMinor(take, exp))
		}
		remaining -= take
		allocs = append(allocs, take)
		kept = append(kept, row)
	}
	doc["references"] = kept
	if plan.PaymentRequest != "" && !linked {
		for _, r := range kept {
			if row, ok := r.(map[string]any); ok && row["reference_name"] == plan.Invoice {
				row["payment_request"] = plan.PaymentRequest
				break
			}
		}
	}
	return allocs, nil
}

// draftDiffs lists how a draft found by reference_no differs from the plan.
func draftDiffs(pe frappe.PaymentEntry, plan mapping.Receipt) []string {
	exp, _ := razorpay.Exponent(plan.Currency)
	var d []string
	cmp := func(field, got, want string) {
		if got != want {
			d = append(d, fmt.Sprintf("%s %q, expected %q", field, got, want))
		}
	}
	amount := func(field string, got json.Number, want int64) {
		v, err := razorpay.ParseDecimal(got.String(), exp)
		if err != nil || v != want {
			d = append(d, fmt.Sprintf("%s %s, expected %s", field, got, razorpay.FormatMinor(want, exp)))
		}
	}
	cmp("payment_type", pe.PaymentType, "Receive")
	cmp("company", pe.Company, plan.Company)
	cmp("party", pe.Party, plan.Customer)
	cmp("paid_to", pe.PaidTo, plan.PaidTo)
	amount("paid_amount", pe.PaidAmount, plan.Paid)
	recvExp, _ := razorpay.Exponent(plan.ReceivedCurrency)
	if v, err := razorpay.ParseDecimal(pe.ReceivedAmount.String(), recvExp); err != nil || v != plan.Received {
		d = append(d, fmt.Sprintf("received_amount %s, expected %s", pe.ReceivedAmount, razorpay.FormatMinor(plan.Received, recvExp)))
	}
	var ded int64
	for _, x := range pe.Deductions {
		v, _ := razorpay.ParseDecimal(x.Amount.String(), recvExp)
		ded += v
	}
	var want int64
	for _, x := range plan.Deductions {
		want += x.Amount
	}
	if ded != want {
		d = append(d, fmt.Sprintf("deductions %s, expected %s", razorpay.FormatMinor(ded, recvExp), razorpay.FormatMinor(want, recvExp)))
	}
	var alloc int64
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
	return d
}

// checkoutRequestOf finds the Payment Request of a payment taken through ERPNext's own checkout:
// the Integration Request of service Razorpay whose data holds this razorpay_payment_id (exact
// case; the `like` filter ignores it) names it. "" when none, or when the API user may not
// read Integration Requests (403; `check` reports that) or the site has none (501).
func (c *Connector) checkoutRequestOf(ctx context.Context, paymentID string) (string, error) {
	var irs []integrationRequest
	err := c.erp.List(ctx, frappe.DoctypeIntegrationRequest, frappe.ListOptions{
		Fields:  []string{"name", "status", "data", "reference_doctype", "reference_docname", "modified"},
		Filters: []frappe.Filter{{"integration_request_service", "=", "Razorpay"}, {"data", "like", "%" + paymentID + "%"}},
		OrderBy: "creation asc", All: true,
	}, &irs)
	var fe *frappe.Error
	if errors.As(err, &fe) && (fe.Status == 403 || fe.Status == 501) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, ir := range irs {
		d, ok := parseIRData(ir.Data)
		if !ok || d.PaymentID != paymentID {
			continue
		}
		switch {
		case d.ReferenceDoctype == frappe.DoctypePaymentRequest && d.ReferenceDocname != "":
			return d.ReferenceDocname, nil
		case ir.ReferenceDoctype == frappe.DoctypePaymentRequest && ir.ReferenceDocname != "":
			return ir.ReferenceDocname, nil
		}
	}
	return "", nil
}

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

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// roundOff is the company's round_off_account and its cost center (round_off_cost_center,
// else the company's cost_center), read once per company.
func (c *Connector) roundOff(ctx context.Context, company string) (account, costCenter string, err error) {
	c.mu.Lock()
	cached, ok := c.roundOffs[company]
	c.mu.Unlock()
	if ok {
		return cached[0], cached[1], nil
	}
	var co struct {
		RoundOffAccount    string `json:"round_off_account"`
		RoundOffCostCenter string `json:"round_off_cost_center"`
		CostCenter         string `json:"cost_center"`
	}
	if err := c.erp.Get(ctx, frappe.DoctypeCompany, company, &co); err != nil {
		return "", "", err
	}
	cc := co.RoundOffCostCenter
	if cc == "" {
		cc = co.CostCenter
	}
	c.mu.Lock()
	c.roundOffs[company] = [2]string{co.RoundOffAccount, cc}
	c.mu.Unlock()
	return co.RoundOffAccount, cc, nil
}
