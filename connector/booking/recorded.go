package booking

import (
	"encoding/json"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// The pure parts of a receipt's booking, for the tests that replay recorded ERPNext documents
// against them (connector's entry_recorded_test.go, calls_test.go).

// InvoiceFacts is invoiceFacts: the planner's view of an invoice as ERPNext sent it.
func InvoiceFacts(si frappe.SalesInvoice) (mapping.Invoice, error) { return invoiceFacts(si) }

// ReceiptEntry is the Payment Entry buildEntry sends for plan against si (no ERPNext call: the
// template's allocation rule is given, and a foreign-currency round-off row must already be in
// plan), with the Payment Request linked at outstanding prOutstanding ("" for none).
func ReceiptEntry(plan mapping.Receipt, si frappe.SalesInvoice, termBased bool, prOutstanding string) (map[string]any, error) {
	var pr *paymentRequest
	if prOutstanding != "" {
		pr = &paymentRequest{OutstandingAmount: json.Number(prOutstanding)}
	}
	doc, _, err := receiptEntry(plan, si, termBased, pr)
	if err != nil {
		return nil, err
	}
	if err := setReceipt(doc, plan); err != nil {
		return nil, err
	}
	return doc, nil
}

// InvoiceFields are the fields readInvoice lists.
var InvoiceFields = invoiceFields
