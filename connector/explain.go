package connector

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Explain actions.
const (
	ExplainCreate      = "create"       // a new Payment Entry would be inserted (Entry holds it)
	ExplainReuse       = "reuse"        // an existing submitted entry already books it
	ExplainSubmitDraft = "submit-draft" // a matching draft would be submitted
	ExplainPark        = "park"         // a person must decide (Reason)
	ExplainSkip        = "skip"         // nothing to book for this event
	ExplainCancel      = "cancel"       // a failed refund's entry would be cancelled
	ExplainWait        = "wait"         // it would wait (for a receipt, or ERPNext's checkout) and try again
)

// Explanation is what booking an event would do, found by reading ERPNext only.
type Explanation struct {
	Event    string           `json:"event"`
	Key      string           `json:"business_key"`
	Action   string           `json:"action"`
	Existing string           `json:"existing,omitempty"` // the entry reused, submitted or cancelled
	Reason   string           `json:"reason,omitempty"`
	Fields   []ExplainedField `json:"fields,omitempty"`
	Entry    map[string]any   `json:"entry,omitempty"` // the document that would be inserted
}

// ExplainedField is one value of the planned entry and where it came from.
type ExplainedField struct {
	Field  string `json:"field"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Explain is a dry run of the booking of e: it reads ERPNext (lists, documents, and
// get_payment_entry, which writes nothing) and never writes to ERPNext or the store. It returns
// an error only when ERPNext or Razorpay cannot be read.
func (c *Connector) Explain(ctx context.Context, e *razorpay.Event) (*Explanation, error) {
	x := &Explanation{Event: e.Event, Key: e.BusinessKey()}
	switch RouteOf(e.Event) {
	case RouteReceipt:
		return x, c.explainReceipt(ctx, e, x)
	case RouteRefund:
		return x, c.explainRefund(ctx, e, x)
	case RouteDispute:
		x.Action, x.Reason = ExplainPark, mapping.ReasonDispute+": disputes are parked for a person"
	case RouteState:
		x.Action, x.Reason = ExplainSkip, "recorded only; a later capture books the payment"
	default:
		x.Action, x.Reason = ExplainSkip, "event "+e.Event+" is not booked"
	}
	return x, nil
}

func (x *Explanation) park(reason string) error {
	x.Action, x.Reason = ExplainPark, reason
	return nil
}

func (x *Explanation) add(field, value, source string) {
	x.Fields = append(x.Fields, ExplainedField{Field: field, Value: value, Source: source})
}

func (c *Connector) explainReceipt(ctx context.Context, e *razorpay.Event, x *Explanation) error {
	p := e.Payment
	if p == nil || p.ID == "" {
		return x.park(e.Event + " carries no payment entity")
	}
	if p.Status != "captured" && !bool(p.Captured) {
		return x.park(fmt.Sprintf("%s: payment %s is %s", mapping.ReasonNotCaptured, p.ID, p.Status))
	}
	found, err := c.findByReference(ctx, p.ID)
	if err != nil {
		return err
	}
	if found.submitted != "" {
		x.Action, x.Existing, x.Reason = ExplainReuse, found.submitted, "a submitted Payment Entry has reference_no "+p.ID
		return nil
	}
	paidTo, err := c.paidToAccount(ctx)
	if err != nil {
		return err
	}
	if paidTo == "" {
		return x.park(fmt.Sprintf("configuration: Mode of Payment %q has no account for company %q", c.cfg.Mapping.ModeOfPayment, c.cfg.Mapping.Company))
	}
	rules := c.rules(paidTo)
	res, order, cands, err := c.invoiceOf(ctx, rules, p, e.Order, e.PaymentLink)
	if err != nil {
		return err
	}
	if res.invoice == "" && c.cfg.Reconcile.IntegrationRequests {
		pr, err := c.checkoutRequestOf(ctx, p.ID)
		if err != nil {
			return err
		}
		if pr != "" {
			if res, err = c.resolveInvoice(ctx, []mapping.Candidate{{Source: "integration_request", Name: pr}}); err != nil {
				return err
			}
		}
	}
	if res.invoice == "" {
		noInvoice := describeCandidates(p.ID, cands)
		if c.cfg.Mapping.WithoutInvoice != "advance" {
			return x.park(mapping.ReasonNoInvoice + ": " + noInvoice)
		}
		plan, err := c.planAdvance(ctx, rules, p, order, e.PaymentLink, noInvoice)
		if pk, ok := asPark(err); ok {
			return x.park(pk.Error())
		} else if err != nil {
			return err
		}
		x.add("party", plan.Customer, "mapping.customer_from / mapping.fallback_customer (no invoice named: mapping.without_invoice advance)")
		x.add("paid_amount", plan.Currency+" "+razorpay.FormatMinor(plan.Paid, 2), "payment amount (less the fee in deduction mode)")
		x.add("unallocated_amount", plan.Currency+" "+razorpay.FormatMinor(plan.Unallocated, 2), "the whole payment is an advance on the customer")
		x.add("reference_no", plan.ReferenceNo, "the Razorpay payment id (exact case)")
		x.Action, x.Entry = ExplainCreate, advanceDoc(plan)
		return nil
	}
	if res.paymentRequest != "" {
		entries, err := c.checkoutEntries(ctx, res.paymentRequest, p.ID)
		if err != nil {
			return err
		}
		switch len(entries) {
		case 0:
		case 1:
			x.Action, x.Existing = ExplainReuse, entries[0].Name
			x.Reason = "ERPNext's checkout booked Payment Request " + res.paymentRequest
			return nil
		default:
			return x.park(fmt.Sprintf("%s: Payment Request %s has %d entries", mapping.ReasonPaymentRequest, res.paymentRequest, len(entries)))
		}
	}
	var si frappe.SalesInvoice
	if err := c.erp.Get(ctx, frappe.DoctypeSalesInvoice, res.invoice, &si); err != nil {
		return err
	}
	inv, err := invoiceFacts(si)
	if err != nil {
		return x.park(err.Error())
	}
	plan, err := mapping.PlanReceipt(rules, p, order, inv, res.paymentRequest)
	if p, ok := asPark(err); ok {
		return x.park(p.Error())
	} else if err != nil {
		return err
	}
	c.explainPlan(x, p, res, inv, plan)
	if found.draft != "" {
		var pe frappe.PaymentEntry
		if err := c.erp.Get(ctx, frappe.DoctypePaymentEntry, found.draft, &pe); err != nil {
			return err
		}
		if diffs := draftDiffs(pe, plan); len(diffs) > 0 {
			return x.park(fmt.Sprintf("%s: draft %s: %s", mapping.ReasonDraftMismatch, found.draft, strings.Join(diffs, "; ")))
		}
		x.Action, x.Existing, x.Reason = ExplainSubmitDraft, found.draft, "a draft with this reference_no matches the plan"
		return nil
	}
	doc, err := c.buildEntry(ctx, plan)
	if p, ok := asPark(err); ok {
		return x.park(p.Error())
	} else if err != nil {
		return err
	}
	x.Action, x.Entry = ExplainCreate, doc
	return nil
}

func (c *Connector) explainPlan(x *Explanation, p *razorpay.Payment, res resolution, inv mapping.Invoice, plan mapping.Receipt) {
	exp, _ := razorpay.Exponent(plan.Currency)
	rexp, _ := razorpay.Exponent(plan.ReceivedCurrency)
	money := func(v int64, e int, cur string) string { return cur + " " + razorpay.FormatMinor(v, e) }
	created := time.Unix(p.CreatedAt, 0).In(c.loc).Format("2006-01-02 15:04 MST")
	x.add("reference_no", plan.ReferenceNo, "the Razorpay payment id (exact case)")
	x.add("posting_date", plan.PostingDate, "payment created_at "+created+" as a date in mapping.timezone "+c.cfg.Mapping.Timezone)
	x.add("reference_date", plan.ReferenceDate, "the same date")
	invSrc := fmt.Sprintf("%s of the payment", res.source)
	if res.paymentRequest != "" {
		invSrc = fmt.Sprintf("reference document of Payment Request %s, named by %s", res.paymentRequest, res.source)
		x.add("references[].payment_request", res.paymentRequest, "named by "+res.source)
	}
	x.add("references[].reference_name", plan.Invoice, invSrc)
	x.add("party", plan.Customer, "customer of Sales Invoice "+plan.Invoice)
	x.add("company", plan.Company, "company of Sales Invoice "+plan.Invoice+" (mapping.company)")
	x.add("mode_of_payment", plan.ModeOfPayment, "mapping.mode_of_payment")
	if c.cfg.Mapping.PaidTo != "" {
		x.add("paid_to", plan.PaidTo, "mapping.paid_to")
	} else {
		x.add("paid_to", plan.PaidTo, fmt.Sprintf("default account of Mode of Payment %s for %s", c.cfg.Mapping.ModeOfPayment, c.cfg.Mapping.Company))
	}
	paidSrc := fmt.Sprintf("payment amount %s", money(p.Amount, exp, p.Currency))
	if p.FeeBearer == "customer" && p.Fee != nil {
		paidSrc += fmt.Sprintf(" less the fee INR %s the customer paid on top", razorpay.FormatMinor(*p.Fee, 2))
	}
	if len(plan.Deductions) > 0 && plan.SourceExchangeRate == "" {
		paidSrc += " less Razorpay's fee (mapping.fees.mode deduction)"
	}
	x.add("paid_amount", money(plan.Paid, exp, plan.Currency), paidSrc)
	recvSrc := "= paid_amount (same currency)"
	if plan.SourceExchangeRate != "" {
		recvSrc = "Razorpay's base_amount in " + plan.ReceivedCurrency
		if len(plan.Deductions) > 0 {
			recvSrc += " less the fee"
		}
		x.add("source_exchange_rate", plan.SourceExchangeRate, "base_amount ÷ amount, from Razorpay (never 1)")
	}
	x.add("received_amount", money(plan.Received, rexp, plan.ReceivedCurrency), recvSrc)
	x.add("references[].allocated_amount", money(plan.Allocated, exp, plan.Currency),
		fmt.Sprintf("what the payment settles, up to the outstanding %s of %s", money(inv.Outstanding, exp, inv.PartyAccountCurrency), plan.Invoice))
	if plan.Unallocated > 0 {
		x.add("unallocated_amount", money(plan.Unallocated, exp, plan.Currency), "excess over the outstanding, an advance (mapping.excess unallocated)")
	}
	for _, d := range plan.Deductions {
		x.add("deductions["+d.Account+"]", money(d.Amount, rexp, plan.ReceivedCurrency), d.Description+" (mapping.fees, cost center "+d.CostCenter+")")
	}
	x.add("remarks", plan.Remarks, "payment id, order, method, bank references and fee from the payment")
}

func (c *Connector) explainRefund(ctx context.Context, e *razorpay.Event, x *Explanation) error {
	r := e.Refund
	if r == nil || r.ID == "" {
		return x.park(e.Event + " carries no refund entity")
	}
	found, err := c.findByReference(ctx, r.ID)
	if err != nil {
		return err
	}
	if e.Event == "refund.failed" || r.Status == "failed" {
		if found.submitted != "" {
			x.Action, x.Existing, x.Reason = ExplainCancel, found.submitted, "refund failed at Razorpay: its entry is cancelled and it is never booked"
			return nil
		}
		x.Action, x.Reason = ExplainSkip, "refund failed at Razorpay: never booked"
		return nil
	}
	if r.Status != "processed" {
		x.Action, x.Reason = ExplainSkip, "refund is "+r.Status+"; booked when processed"
		return nil
	}
	if found.submitted != "" {
		x.Action, x.Existing, x.Reason = ExplainReuse, found.submitted, "a submitted Payment Entry has reference_no "+r.ID
		return nil
	}
	receipt, err := c.findByReference(ctx, r.PaymentID)
	if err != nil {
		return err
	}
	if receipt.submitted == "" {
		x.Action, x.Reason = ExplainWait, fmt.Sprintf("no submitted receipt with reference_no %s yet; the refund waits for it (mapping.refunds.wait_for_receipt)", r.PaymentID)
		return nil
	}
	var pe frappe.PaymentEntry
	if err := c.erp.Get(ctx, frappe.DoctypePaymentEntry, receipt.submitted, &pe); err != nil {
		return err
	}
	facts := mapping.ReceiptFacts{PaymentEntry: pe.Name, Customer: pe.Party, Company: pe.Company, PaidTo: pe.PaidTo, Receivable: pe.PaidFrom}
	for _, ref := range pe.References {
		if ref.ReferenceDoctype == frappe.DoctypeSalesInvoice {
			facts.Invoice = ref.ReferenceName
			break
		}
	}
	cn, err := c.creditNote(ctx, facts.Invoice)
	if err != nil {
		return err
	}
	plan, err := mapping.PlanRefund(c.rules(facts.PaidTo), r, facts, cn)
	if p, ok := asPark(err); ok {
		return x.park(p.Error())
	} else if err != nil {
		return err
	}
	doc, err := c.buildRefund(ctx, plan)
	if p, ok := asPark(err); ok {
		return x.park(p.Error())
	} else if err != nil {
		return err
	}
	exp, _ := razorpay.Exponent(plan.Currency)
	x.add("reference_no", plan.ReferenceNo, "the Razorpay refund id")
	x.add("paid_from", plan.PaidFrom, "paid_to of the receipt "+facts.PaymentEntry)
	x.add("paid_amount", plan.Currency+" "+razorpay.FormatMinor(plan.Paid, exp), "refund amount")
	if plan.CreditNote != "" {
		x.add("references[].reference_name", plan.CreditNote, "credit note against "+facts.Invoice)
		x.add("references[].allocated_amount", "-"+razorpay.FormatMinor(plan.Allocated, exp), "negative: ERPNext accepts only that against a return")
	}
	x.Action, x.Entry = ExplainCreate, doc
	return nil
}
