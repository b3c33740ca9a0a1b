package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	source         string // where the name was found, e.g. "notes.invoice"
	invoice        string // Sales Invoice name; "" when none
	paymentRequest string // the Payment Request that led to it, if any
	note           string // why a candidate that exists was not used
}

// resolveReceipt resolves the invoice of the event's payment: the names the event carries,
// the order fetched from Razorpay when they name none, then (reconcile.integration_requests)
// the Payment Request of ERPNext's checkout. It returns the order used and the candidates
// tried.
func (c *Connector) resolveReceipt(ctx context.Context, rules mapping.Rules, e *razorpay.Event) (resolution, *razorpay.Order, []mapping.Candidate, error) {
	p := e.Payment
	res, order, cands, err := c.invoiceOf(ctx, rules, p, e.Order, e.PaymentLink)
	if err != nil {
		if f := FailureOf(err); f != nil && f.System == SystemRazorpay {
			return res, order, cands, failed("fetch order "+p.OrderID+" from Razorpay", err)
		}
		return res, order, cands, failed("resolve Sales Invoice", err)
	}
	if res.invoice != "" || !c.cfg.Reconcile.IntegrationRequests {
		return res, order, cands, nil
	}
	// ERPNext's own checkout: the webhook names nothing, but an Integration Request holds the
	// payment id and its Payment Request (spec/erpnext.md §5.2).
	pr, err := c.checkoutRequestOf(ctx, p.ID)
	if err != nil {
		return res, order, cands, failed("look up the Integration Request of "+p.ID, err)
	}
	if pr != "" {
		if res, err = c.resolveInvoice(ctx, []mapping.Candidate{{Source: "integration_request", Name: pr}}); err != nil {
			return res, order, cands, failed("resolve Payment Request "+pr, err)
		}
	}
	return res, order, cands, nil
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
// notes name its invoice). It returns the order used and the candidates tried.
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
	return mapping.Invoice{Name: si.Name, Customer: si.Customer, Company: si.Company, PartyAccountCurrency: cur,
		DebitTo: si.DebitTo, Docstatus: si.Docstatus, IsReturn: si.IsReturn == 1, Outstanding: out}, nil
}
