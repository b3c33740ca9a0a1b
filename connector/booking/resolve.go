package booking

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Resolve (DESIGN.md §4 step 6): which Sales Invoice a payment pays — a name from notes, order
// receipt or payment-link reference tried as a Sales Invoice, then as a Payment Request → its
// reference document; a missing order fetched from Razorpay; ERPNext's own checkout found
// through its Integration Request (checkout.go).

// resolution is where a payment's invoice was found.
type resolution struct {
	source         string          // where the name was found, e.g. "notes.invoice"
	invoice        string          // Sales Invoice name; "" when none
	paymentRequest string          // the Payment Request that led to it, if any
	request        *paymentRequest // that Payment Request as read while resolving (nil when it was not)
	note           string          // why a candidate that exists was not used
}

// target is what a receipt books against as far as it is known before anything is read: the
// first name the payment gives, or, for a Payment Request resolved before (prInvoices), its
// invoice. The invoice lock is taken on it before any read, so that a payment that must wait
// for another spends no ERPNext call to find out.
type target struct{ invoice, paymentRequest, source string }

// targetOf is the target of a payment naming cands (in the configured order).
func (c *receiptJob) targetOf(cands []mapping.Candidate) target {
	if len(cands) == 0 {
		return target{}
	}
	first := cands[0]
	if inv := c.prInvoice(first.Name); inv != "" {
		return target{invoice: inv, paymentRequest: first.Name, source: first.Source}
	}
	return target{invoice: first.Name, source: first.Source}
}

// prInvoice is the Sales Invoice of a submitted Payment Request resolved before ("" when none):
// its reference document never changes once it is submitted.
func (c *receiptJob) prInvoice(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prInvoices[name]
}

// maxPRInvoices bounds prInvoices: past it the cache starts again empty.
const maxPRInvoices = 10000

func (c *receiptJob) rememberPR(pr paymentRequest) {
	if pr.Docstatus != frappe.DocstatusSubmitted {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.prInvoices) >= maxPRInvoices {
		c.prInvoices = map[string]string{}
	}
	c.prInvoices[pr.Name] = pr.ReferenceName
}

// resolveReceipt resolves the invoice of the event's payment, the target (locked) first: when
// the target is the invoice, the one read that finds it (readInvoice) is the invoice as it
// stands under the lock and is returned too (si; nil when the invoice must be read again under its own lock).
// Otherwise: the names the event carries, the order fetched from Razorpay when they name none,
// then (reconcile.integration_requests) the Payment Request of ERPNext's checkout. It returns
// the order used and the candidates tried.
func (c *receiptJob) resolveReceipt(ctx context.Context, rules mapping.Rules, e *razorpay.Event, tgt target) (resolution, *frappe.SalesInvoice, *razorpay.Order, []mapping.Candidate, error) {
	p := e.Payment
	tried := ""
	if tgt.invoice != "" {
		si, err := c.readInvoice(ctx, tgt.invoice)
		if err == nil {
			res := resolution{source: tgt.source, invoice: si.Name, paymentRequest: tgt.paymentRequest}
			if si.Name != tgt.invoice { // the site's collation found it under another case
				return res, nil, e.Order, nil, nil
			}
			return res, si, e.Order, nil, nil
		}
		if !noInvoice(err) {
			return resolution{}, nil, e.Order, nil, connector.Failed("resolve Sales Invoice", err)
		}
		tried = tgt.invoice
	}
	res, order, cands, err := c.invoiceOf(ctx, rules, p, e.Order, e.PaymentLink, tried)
	if err != nil {
		if f := connector.FailureOf(err); f != nil && f.System == connector.SystemRazorpay {
			return res, nil, order, cands, connector.Failed("fetch order "+p.OrderID+" from Razorpay", err)
		}
		return res, nil, order, cands, connector.Failed("resolve Sales Invoice", err)
	}
	if res.invoice != "" || !c.Account.Reconcile.IntegrationRequests {
		return res, nil, order, cands, nil
	}
	// ERPNext's own checkout: the webhook names nothing, but an Integration Request holds the
	// payment id and its Payment Request (spec/erpnext.md §5.2).
	pr, err := c.checkout.requestOf(ctx, p.ID)
	if err != nil {
		return res, nil, order, cands, connector.Failed("look up the Integration Request of "+p.ID, err)
	}
	if pr != "" {
		if res, err = c.resolveInvoice(ctx, []mapping.Candidate{{Source: "integration_request", Name: pr}}, ""); err != nil {
			return res, nil, order, cands, connector.Failed("resolve Payment Request "+pr, err)
		}
	}
	return res, nil, order, cands, nil
}

// resolveInvoice tries each candidate as a Sales Invoice (except skip, found not to be one),
// then as a Payment Request whose reference document is a Sales Invoice (DESIGN.md §4 step 6).
func (c *receiptJob) resolveInvoice(ctx context.Context, cands []mapping.Candidate, skip string) (resolution, error) {
	var res resolution
	for _, cand := range cands {
		if cand.Name != skip {
			si, err := c.readInvoice(ctx, cand.Name)
			if err == nil {
				res.invoice, res.source = si.Name, cand.Source
				return res, nil
			}
			if !noInvoice(err) {
				return res, err
			}
		}
		var pr paymentRequest
		err := c.Account.ERP.Get(ctx, frappe.DoctypePaymentRequest, cand.Name, &pr)
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
		c.rememberPR(pr)
		res.invoice, res.paymentRequest, res.source, res.request = pr.ReferenceName, pr.Name, cand.Source, &pr
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

// invoiceOf resolves the payment's invoice from what the event carries (skip: a name already
// found not to be a Sales Invoice) and, only when that names none, order.receipt is a configured source and the event lacks the order, from the
// order fetched from Razorpay (so a Razorpay hiccup never stands in the way of a payment whose
// notes name its invoice). It returns the order used and the candidates tried.
func (c *receiptJob) invoiceOf(ctx context.Context, rules mapping.Rules, p *razorpay.Payment, o *razorpay.Order, l *razorpay.PaymentLink, skip string) (resolution, *razorpay.Order, []mapping.Candidate, error) {
	cands := mapping.InvoiceCandidates(rules, p, o, l)
	res, err := c.resolveInvoice(ctx, cands, skip)
	if err != nil || res.invoice != "" || o != nil {
		return res, o, cands, err
	}
	fetched, err := c.orderOf(ctx, p, o)
	if err != nil || fetched == nil {
		return res, o, cands, err
	}
	cands = mapping.InvoiceCandidates(rules, p, fetched, l)
	res, err = c.resolveInvoice(ctx, cands, skip)
	return res, fetched, cands, err
}

// orderOf is the event's order, or the payment's order fetched from Razorpay when the event
// does not carry it, order.receipt is a configured source and the API is configured.
func (c *receiptJob) orderOf(ctx context.Context, p *razorpay.Payment, o *razorpay.Order) (*razorpay.Order, error) {
	if o != nil || p.OrderID == "" || c.Account.Razorpay == nil {
		return o, nil
	}
	wanted := false
	for _, src := range c.Account.Mapping.InvoiceFrom {
		wanted = wanted || src == "order.receipt"
	}
	if !wanted {
		return nil, nil
	}
	return c.Account.Razorpay.GetOrder(ctx, p.OrderID)
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

// invoiceFacts converts the Sales Invoice read from ERPNext into the planner's input; an
// invoice in a currency the connector cannot hold is a *mapping.Park.
func invoiceFacts(si frappe.SalesInvoice) (mapping.Invoice, error) {
	cur := si.PartyAccountCurrency
	if cur == "" {
		cur = si.Currency
	}
	exp, ok := razorpay.Exponent(cur)
	if !ok {
		return mapping.Invoice{}, &mapping.Park{Reason: mapping.ReasonCurrency, Detail: fmt.Sprintf("Sales Invoice %s is receivable in %q", si.Name, cur)}
	}
	out, err := razorpay.ParseDecimal(si.OutstandingAmount.String(), exp)
	if err != nil {
		return mapping.Invoice{}, &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf("Sales Invoice %s outstanding %q: %v", si.Name, si.OutstandingAmount, err)}
	}
	inv := mapping.Invoice{Name: si.Name, Customer: si.Customer, Company: si.Company, PartyAccountCurrency: cur,
		DebitTo: si.DebitTo, Docstatus: si.Docstatus, IsReturn: si.IsReturn == 1, Outstanding: out}
	inv.GrandTotal, inv.RoundingAdjustment = roundingOf(si, cur, exp)
	return inv, nil
}

// roundingOf is the grand total and rounding adjustment of an invoice in minor units of its
// receivable's currency cur (exponent exp): ERPNext rounds the total to whole units unless
// rounding is disabled, then rounded_total is 0 (recorded 81-*; taxes_and_totals
// set_rounded_total). An invoice in another currency than its receivable, or whose adjustment
// is not a rounding (a unit or more), is never treated as rounded.
func roundingOf(si frappe.SalesInvoice, cur string, exp int) (grand, adj int64) {
	if si.Currency != "" && si.Currency != cur {
		return 0, 0
	}
	grand, _ = razorpay.ParseDecimal(si.GrandTotal.String(), exp)
	rounded, err1 := razorpay.ParseDecimal(si.RoundedTotal.String(), exp)
	adj, err2 := razorpay.ParseDecimal(si.RoundingAdjustment.String(), exp)
	unit := int64(1)
	for i := 0; i < exp; i++ {
		unit *= 10
	}
	if err1 != nil || err2 != nil || rounded == 0 || abs64(adj) >= unit || rounded != grand+adj {
		return grand, 0
	}
	return grand, adj
}
