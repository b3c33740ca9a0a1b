package booking

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Reading a Sales Invoice for a receipt (DESIGN.md §4 step 6): one list call selecting the
// fields the planner and the entry builder use, instead of a GET of the whole document — on
// the recorded site a list costs 48 ms where a GET of a Sales Invoice, with every child table
// and its onload, costs 101 ms (erpnext-recorded-connector/README "Timing"), and the read is
// a third of a booking's calls. The payment schedule is read only when the
// invoice's Payment Terms Template needs it.

// invoiceFields are the columns of frappe.SalesInvoice a receipt reads, and the project of
// each item (get_payment_entry takes the first item's when the invoice has none).
var invoiceFields = []string{"name", "customer", "company", "currency", "party_account_currency", "debit_to", "status",
	"due_date", "posting_date", "modified", "return_against", "update_outstanding_for_self", "docstatus", "is_return",
	"grand_total", "rounded_total", "base_grand_total", "outstanding_amount", "conversion_rate", "rounding_adjustment",
	"cost_center", "project", "contact_person", "letter_head", "payment_terms_template",
	"`tabSales Invoice Item`.`project` as item_project"}

// errNoInvoice is readInvoice's answer for a name that is no Sales Invoice.
var errNoInvoice = errors.New("no such Sales Invoice")

// noInvoice reports whether err says the invoice does not exist.
func noInvoice(err error) bool { return errors.Is(err, errNoInvoice) || frappe.IsNotFound(err) }

// readInvoice reads Sales Invoice name as it is now: a list filtered on the name (one row per
// item; the site's `=` ignores case as a GET by name does, so the name read back is the
// site's), and, when its Payment Terms Template allocates by term or offers an early-payment
// discount, the whole invoice for its live payment schedule. errNoInvoice when there is none.
func (c *receiptJob) readInvoice(ctx context.Context, name string) (*frappe.SalesInvoice, error) {
	var rows []struct {
		frappe.SalesInvoice
		ItemProject string `json:"item_project"`
	}
	err := c.Account.ERP.List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{Fields: invoiceFields,
		Filters: []frappe.Filter{{"name", "=", name}}, OrderBy: "`tabSales Invoice Item`.`idx` asc", All: true}, &rows)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errNoInvoice
	}
	si := rows[0].SalesInvoice
	for _, r := range rows {
		si.Items = append(si.Items, frappe.SalesInvoiceItem{Project: r.ItemProject})
	}
	if si.PaymentTermsTemplate == "" {
		return &si, nil
	}
	t, err := c.template(ctx, si.PaymentTermsTemplate)
	if err != nil || !t.byTerm && !t.discount {
		return &si, err
	}
	var full frappe.SalesInvoice
	if err := c.Account.ERP.Get(ctx, frappe.DoctypeSalesInvoice, si.Name, &full); err != nil {
		return nil, err
	}
	return &full, nil
}

// template reads Payment Terms Template name once: templates rarely change (restart after
// changing one).
func (c *receiptJob) template(ctx context.Context, name string) (termsTemplate, error) {
	c.mu.Lock()
	t, ok := c.templates[name]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	var doc struct {
		Allocate int `json:"allocate_payment_based_on_payment_terms"`
		Terms    []struct {
			Discount json.Number `json:"discount"`
		} `json:"terms"`
	}
	if err := c.Account.ERP.Get(ctx, frappe.DoctypePaymentTermsTemplate, name, &doc); err != nil {
		return termsTemplate{}, connector.Failed("read Payment Terms Template "+name, err)
	}
	t.byTerm = doc.Allocate == 1
	for _, term := range doc.Terms {
		if d, err := razorpay.ParseDecimal(connector.OrZero(term.Discount), 9); err != nil || d != 0 {
			t.discount = true
		}
	}
	c.mu.Lock()
	c.templates[name] = t
	c.mu.Unlock()
	return t, nil
}

// termsTemplate is what a receipt needs of a Payment Terms Template (invoice.go): whether it
// allocates by term (allocate_payment_based_on_payment_terms) and whether a term offers an
// early-payment discount (then ERPNext's get_payment_entry would deduct it: such a receipt parks).
type termsTemplate struct{ byTerm, discount bool }
