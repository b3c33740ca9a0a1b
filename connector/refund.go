package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// bookRefund books refund.processed (and refund.created already processed) as one Pay entry
// per refund id against the credit note of the paid invoice, and makes refund.failed final
// (DESIGN.md §4 step 4, §5). When the Razorpay API is configured the refund is re-fetched
// before acting: snapshots arrive in any order.
func (c *Connector) bookRefund(ctx context.Context, ev *InboxEvent, e *razorpay.Event, owner string) Outcome {
	r := e.Refund
	if r == nil || r.ID == "" {
		return parkOutcome("%s carries no refund entity", e.Event)
	}
	if c.rzp != nil {
		fresh, err := c.rzp.GetRefund(ctx, r.ID)
		if err != nil {
			return c.razorpayFailure(ev, "re-fetch refund "+r.ID, err)
		}
		r = fresh
	}
	if e.Event == "refund.failed" || r.Status == "failed" {
		return c.voidRefund(ctx, ev, r, owner)
	}
	if r.Status != "processed" {
		return Outcome{Status: StatusSkipped, LastError: fmt.Sprintf("refund %s is %s; it is booked when Razorpay reports it processed", r.ID, r.Status)}
	}
	now := c.now()
	row, claimed, err := c.store.ClaimBooking(ctx, Booking{BusinessKey: r.ID, Kind: KindRefund, Owner: owner,
		FenceUntil: now.Add(c.writeFence()), AmountMinor: r.Amount, Currency: r.Currency, CreatedAt: now}, now)
	if err != nil {
		return c.retry(ev, 0, "claim %s: %v", r.ID, err)
	}
	if !claimed {
		switch row.State {
		case BookingBooked:
			return c.confirmBooked(ctx, ev, row)
		case BookingVoid:
			return Outcome{Status: StatusSkipped, LastError: fmt.Sprintf("refund %s failed at Razorpay; it is never booked", r.ID)}
		}
		return c.waitUntil(row.FenceUntil.Add(time.Second), "waiting: refund %s is being booked by another worker", r.ID)
	}
	j := &refundJob{writeClaim: c.newClaim(ev, r.ID, owner, KindRefund, r.Amount, r.Currency), r: r}
	return j.hold(ctx, j.run)
}

type refundJob struct {
	*writeClaim
	r *razorpay.Refund
}

func (j *refundJob) run(ctx context.Context) Outcome {
	c, ev, r := j.c, j.ev, j.r
	found, err := c.findByReference(ctx, r.ID)
	if err != nil {
		return c.failOutcome(ev, "look up Payment Entry by reference_no "+r.ID, err)
	}
	if found.submitted != "" {
		return c.recordBooked(ctx, ev, Booking{BusinessKey: r.ID, Kind: KindRefund, Doctype: frappe.DoctypePaymentEntry,
			Name: found.submitted, AmountMinor: r.Amount, Currency: r.Currency}, "found in ERPNext by reference_no")
	}
	if found.draft != "" {
		return parkOutcome("%s: draft Payment Entry %s has reference_no %s; submit or delete it in ERPNext, then replay", mapping.ReasonDraftMismatch, found.draft, r.ID)
	}
	receipt, o, ok := c.receiptOf(ctx, ev, r.PaymentID)
	if !ok {
		return o
	}
	var cn *mapping.Invoice
	if receipt.Invoice != "" { // an advance has no invoice, so no credit note
		if cn, err = c.creditNote(ctx, receipt.Invoice); err != nil {
			return c.failOutcome(ev, "find the credit note of "+receipt.Invoice, err)
		}
	}
	lockDoc := receipt.Invoice
	if cn != nil {
		lockDoc = cn.Name
	}
	lock := "invoice:" + lockDoc
	if lockDoc == "" {
		lock = "payment:" + r.PaymentID // a refund of an advance: no invoice to lock
	}
	now := c.now()
	held, err := c.store.AcquireLock(ctx, lock, j.owner, now, now.Add(c.writeFence()))
	if err != nil {
		return c.retry(ev, 0, "lock %s: %v", lock, err)
	}
	if !held {
		return c.waitUntil(now.Add(2*time.Second), "waiting for the lock on %s", lockDoc)
	}
	defer func() {
		if !j.keep {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = c.store.ReleaseLock(rctx, lock, j.owner)
		}
	}()
	if cn != nil { // re-read under the lock
		if cn, err = c.creditNote(ctx, receipt.Invoice); err != nil {
			return c.failOutcome(ev, "re-read the credit note of "+receipt.Invoice, err)
		}
	}
	plan, err := mapping.PlanRefund(c.rules(receipt.PaidTo), r, receipt, cn)
	if err != nil {
		if p, ok := asPark(err); ok {
			return parkOutcome("%s", p.Error())
		}
		return c.retry(ev, 0, "plan refund: %v", err)
	}
	doc, err := c.buildRefund(ctx, plan)
	if err != nil {
		if p, ok := asPark(err); ok {
			return parkOutcome("%s", p.Error())
		}
		return c.failOutcome(ev, "get_payment_entry for credit note "+plan.CreditNote, err)
	}
	if c.cfg.ERPNext.NameEntriesByPaymentID {
		doc["name"] = r.ID
	}
	if o, ok := j.fence(ctx, lock); !ok {
		return o
	}
	var pe frappe.PaymentEntry
	if err := c.erp.Insert(ctx, frappe.DoctypePaymentEntry, doc, &pe); err != nil {
		return j.writeFailed(ctx, "insert refund Payment Entry for "+r.ID, err)
	}
	return c.recordBooked(ctx, ev, Booking{BusinessKey: r.ID, Kind: KindRefund, Doctype: frappe.DoctypePaymentEntry, Name: pe.Name,
		AmountMinor: r.Amount, Currency: r.Currency, Invoice: plan.CreditNote}, "created")
}

// receiptOf finds the booked receipt a refund reverses. A refund that arrives before its
// payment's receipt waits — and, with the Razorpay API configured and no inbox row for the
// payment, queues the payment itself — so it ends with receipt then refund, never dropped. A
// receipt that parked or died parks the refund with that reason.
func (c *Connector) receiptOf(ctx context.Context, ev *InboxEvent, paymentID string) (mapping.ReceiptFacts, Outcome, bool) {
	b, err := c.store.GetBooking(ctx, paymentID)
	if err == nil && b.State == BookingBooked {
		var pe frappe.PaymentEntry
		if err := c.erp.Get(ctx, b.Doctype, b.Name, &pe); err != nil {
			return mapping.ReceiptFacts{}, c.failOutcome(ev, "read receipt "+b.Name, err), false
		}
		if pe.Docstatus != 1 {
			return mapping.ReceiptFacts{}, parkOutcome("%s: receipt %s of payment %s is not submitted in ERPNext", mapping.ReasonReceiptMissing, pe.Name, paymentID), false
		}
		facts := mapping.ReceiptFacts{PaymentEntry: pe.Name, Customer: pe.Party, Company: pe.Company, PaidTo: pe.PaidTo, Receivable: pe.PaidFrom}
		for _, ref := range pe.References {
			if ref.ReferenceDoctype == frappe.DoctypeSalesInvoice {
				facts.Invoice = ref.ReferenceName
				break
			}
		}
		if facts.Invoice == "" {
			facts.Invoice = b.Invoice
		}
		return facts, Outcome{}, true
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return mapping.ReceiptFacts{}, c.retry(ev, 0, "booking of %s: %v", paymentID, err), false
	}
	rows, err := c.store.FindEvents(ctx, paymentID)
	if err != nil {
		return mapping.ReceiptFacts{}, c.retry(ev, 0, "events of %s: %v", paymentID, err), false
	}
	receiptRows := 0
	stuck := ""
	for _, row := range rows {
		if RouteOf(row.Event) != RouteReceipt {
			continue
		}
		receiptRows++
		if row.Status == StatusParked || row.Status == StatusDead {
			stuck = fmt.Sprintf("; its receipt event %s is %s (%s)", row.EventID, row.Status, shortReason(row.LastError))
		}
	}
	// Waiting for the receipt is not a failure: it spends no attempt, backs off with the time
	// already waited, and parks (never dies) once mapping.refunds.wait_for_receipt has passed.
	// A parked receipt is waited for too: another event, a replay or reconcile may still book
	// it, and the refund must then follow without a person having to find it.
	waited := c.now().Sub(ev.ReceivedAt)
	if limit := c.cfg.Mapping.Refunds.WaitForReceipt.D(); waited > limit {
		return mapping.ReceiptFacts{}, parkOutcome("%s: payment %s has no booked receipt after %s%s; book it (or replay its webhook), then replay this refund",
			mapping.ReasonReceiptMissing, paymentID, limit, stuck), false
	}
	delay := min(max(waited/4, c.cfg.Worker.BackoffBase.D()), c.cfg.Worker.BackoffMax.D())
	wait := c.now().Add(delay)
	if receiptRows == 0 && c.rzp != nil {
		if err := c.queuePayment(ctx, paymentID); err != nil {
			return mapping.ReceiptFacts{}, c.razorpayFailure(ev, "fetch payment "+paymentID, err), false
		}
		return mapping.ReceiptFacts{}, c.waitUntil(wait, "refund waits for the receipt of %s (queued from Razorpay)", paymentID), false
	}
	return mapping.ReceiptFacts{}, c.waitUntil(wait, "%s: refund waits for the receipt of payment %s%s", mapping.ReasonReceiptMissing, paymentID, stuck), false
}

// shortReason cuts a reason for quoting inside another.
func shortReason(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// queuePayment fetches a payment from Razorpay and inserts a synthetic payment.captured inbox
// row for it (event id reconcile:<payment id>, the id reconcile uses too, so it is inserted once).
func (c *Connector) queuePayment(ctx context.Context, paymentID string) error {
	p, err := c.rzp.GetPayment(ctx, paymentID)
	if err != nil {
		return err
	}
	if p.Status != "captured" && p.Status != "refunded" {
		return nil
	}
	body, err := SyntheticEvent(c.cfg.Razorpay.AccountID, "payment.captured", c.now(), p, nil, nil)
	if err != nil {
		return err
	}
	now := c.now().UTC()
	created := time.Unix(p.CreatedAt, 0).UTC()
	// By event id: the payment may have rows already (payment.authorized) that book nothing.
	_, err = c.store.InsertEvent(ctx, &InboxEvent{AccountID: c.cfg.Razorpay.AccountID, EventID: "reconcile:" + p.ID,
		Event: "payment.captured", BusinessKey: p.ID, RawBody: body, ReceivedAt: now, EventCreatedAt: &created,
		Status: StatusPending, NextAttemptAt: now})
	if err == nil {
		c.Wake()
	}
	return err
}

// creditNote returns the submitted return against invoice with the most negative outstanding
// left (nil when none has any).
func (c *Connector) creditNote(ctx context.Context, invoice string) (*mapping.Invoice, error) {
	var rows []frappe.SalesInvoice
	err := c.erp.List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{
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

// buildRefund makes the refund entry: get_payment_entry on the credit note (party_amount = the
// refund, bank_account = the receipt's paid_to), whose positive allocation ERPNext would refuse,
// with the row set to −Allocated (recordings 40-*…43-*); or, without a credit note, a Pay entry
// with no references.
func (c *Connector) buildRefund(ctx context.Context, plan mapping.Refund) (map[string]any, error) {
	exp, _ := razorpay.Exponent(plan.Currency)
	amount := json.Number(razorpay.FormatMinor(plan.Paid, exp))
	var doc map[string]any
	if plan.CreditNote == "" {
		doc = map[string]any{"payment_type": "Pay", "party_type": "Customer", "party": plan.Customer,
			"paid_from": plan.PaidFrom, "paid_to": plan.PaidTo, "references": []any{}}
	} else {
		err := c.erp.Call(ctx, frappe.MethodGetPaymentEntry, map[string]any{
			"dt": frappe.DoctypeSalesInvoice, "dn": plan.CreditNote, "party_amount": amount, "bank_account": plan.PaidFrom,
		}, &doc)
		if err != nil {
			return nil, err
		}
		if pt, _ := doc["payment_type"].(string); pt != "Pay" {
			return nil, &mapping.Park{Reason: mapping.ReasonNoCreditNote, Detail: fmt.Sprintf("ERPNext proposes a %q entry for credit note %s", pt, plan.CreditNote)}
		}
		rows, _ := doc["references"].([]any)
		var keep []any
		for _, r := range rows {
			row, ok := r.(map[string]any)
			if !ok || row["reference_name"] != plan.CreditNote {
				continue
			}
			delete(row, "__islocal")
			delete(row, "__unsaved")
			row["allocated_amount"] = json.Number("-" + razorpay.FormatMinor(plan.Allocated, exp))
			row["payment_request"] = ""
			keep = append(keep, row)
			break
		}
		if len(keep) != 1 {
			return nil, &mapping.Park{Reason: mapping.ReasonNoCreditNote, Detail: "get_payment_entry proposed no row for credit note " + plan.CreditNote}
		}
		doc["references"] = keep
		delete(doc, "__islocal")
		delete(doc, "__unsaved")
	}
	doc["company"] = plan.Company
	doc["posting_date"] = plan.PostingDate
	doc["reference_date"] = plan.ReferenceDate
	doc["reference_no"] = plan.ReferenceNo
	doc["mode_of_payment"] = plan.ModeOfPayment
	doc["paid_from"] = plan.PaidFrom
	doc["paid_amount"] = amount
	doc["received_amount"] = amount
	doc["deductions"] = []any{}
	doc["remarks"] = plan.Remarks
	doc["custom_remarks"] = 1
	doc["docstatus"] = 1
	return doc, nil
}

// voidRefund makes a failed refund final: its booking becomes void, so no later snapshot books
// it, and an entry already booked for it is cancelled. It first takes the refund id's claim like
// a booking does, so no worker can be posting the refund while it is voided (one in flight is
// waited for). ERPNext refusing the cancel parks.
func (c *Connector) voidRefund(ctx context.Context, ev *InboxEvent, r *razorpay.Refund, owner string) Outcome {
	now := c.now()
	row, claimed, err := c.store.ClaimBooking(ctx, Booking{BusinessKey: r.ID, Kind: KindRefund, Owner: owner,
		FenceUntil: now.Add(c.writeFence()), AmountMinor: r.Amount, Currency: r.Currency, CreatedAt: now}, now)
	if err != nil {
		return c.retry(ev, 0, "claim %s: %v", r.ID, err)
	}
	name := ""
	switch {
	case claimed:
		// Nobody holds it: an entry may still exist (a worker that died after ERPNext committed).
		found, ferr := c.findByReference(ctx, r.ID)
		if ferr != nil {
			_ = c.store.ReleaseBooking(context.WithoutCancel(ctx), r.ID, owner)
			return c.failOutcome(ev, "look up Payment Entry by reference_no "+r.ID, ferr)
		}
		name = found.submitted
	case row.State == BookingInFlight:
		return c.waitUntil(row.FenceUntil.Add(time.Second), "refund %s failed at Razorpay; waiting for its booking in flight before cancelling it", r.ID)
	default: // booked, or void already (a cancel that failed before is tried again)
		name = row.Name
	}
	if err := c.store.VoidBooking(ctx, Booking{BusinessKey: r.ID, Kind: KindRefund, Owner: owner, Doctype: doctypeIf(name),
		Name: name, AmountMinor: r.Amount, Currency: r.Currency}, c.now()); err != nil {
		if claimed {
			_ = c.store.ReleaseBooking(context.WithoutCancel(ctx), r.ID, owner)
		}
		return c.retry(ev, 0, "void %s: %v", r.ID, err)
	}
	if name == "" {
		return Outcome{Status: StatusDone, LastError: fmt.Sprintf("refund %s failed at Razorpay; nothing was booked and it never will be", r.ID)}
	}
	var pe frappe.PaymentEntry
	if err := c.erp.Get(ctx, frappe.DoctypePaymentEntry, name, &pe); err != nil && !frappe.IsNotFound(err) {
		return c.failOutcome(ev, "read refund entry "+name, err)
	}
	if pe.Docstatus == 2 || pe.Name == "" {
		return Outcome{Status: StatusDone, ResultDoctype: frappe.DoctypePaymentEntry, ResultName: name,
			LastError: fmt.Sprintf("refund %s failed at Razorpay; %s is cancelled", r.ID, name)}
	}
	err = c.erp.Call(ctx, "frappe.client.cancel", map[string]any{"doctype": frappe.DoctypePaymentEntry, "name": name}, nil)
	if err != nil {
		if kind, after := classify(err, true); kind == failRetry || kind == failAmbiguous {
			return c.retry(ev, after, "cancel %s: %s", name, reason(err))
		}
		return parkOutcome("refund %s failed at Razorpay but its Payment Entry %s could not be cancelled: %s", r.ID, name, reason(err))
	}
	return Outcome{Status: StatusDone, ResultDoctype: frappe.DoctypePaymentEntry, ResultName: name,
		LastError: fmt.Sprintf("refund %s failed at Razorpay; cancelled %s", r.ID, name)}
}

func doctypeIf(name string) string {
	if name == "" {
		return ""
	}
	return frappe.DoctypePaymentEntry
}

// razorpayFailure turns a Razorpay API failure into an outcome: 401 pauses (a configuration
// fault), retryable errors retry, anything else parks with the API's message.
func (c *Connector) razorpayFailure(ev *InboxEvent, op string, err error) Outcome {
	switch {
	case razorpay.IsAuthFault(err):
		c.pause("Razorpay refused the API keys: " + err.Error())
		return c.waitUntil(c.now().Add(c.cfg.Worker.PauseRecheck.D()), "paused: %s: %v", op, err)
	case razorpay.Retryable(err):
		return c.retry(ev, 0, "%s: %v", op, err)
	}
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "razorpay") {
		msg = msg[i+2:]
	}
	return parkOutcome("%s: %s", op, msg)
}
