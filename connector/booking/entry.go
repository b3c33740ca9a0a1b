package booking

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// A receipt's Payment Entry (DESIGN.md §4 step 6) is built from the invoice read under its
// lock (invoice.go) and facts that rarely change (the Payment Terms Template's allocation
// rule, cached): the entry ERPNext's own get_payment_entry would propose, with what the
// connector owns set, so a booking needs no get_payment_entry call (the recorded
// proposals and stored entries are replayed against it in entry_recorded_test.go). A refund
// still asks get_payment_entry about its credit note. What the connector cannot build is a
// *mapping.Park.

// buildEntry makes the Payment Entry of a planned receipt against invoice si: party, paid_from
// = the invoice's receivable (debit_to), the invoice's cost center, project (else its first
// item's), contact and letter head — what get_payment_entry copies from the invoice (15.71
// payment_entry.py) — then reference rows (entryRows) and what the connector owns (setReceipt).
// ERPNext fills the rest on insert exactly as it does for get_payment_entry's proposal:
// party_name, account currencies, types and balances (set_missing_values), every reference
// row's total, outstanding, due date, account and exchange rate (set_missing_ref_details with
// force), the base amounts and totals (set_amounts). pr is the Payment Request linked, as read
// (nil for none). plan's deductions may gain the round-off row of a foreign-currency payment.
func (c *receiptJob) buildEntry(ctx context.Context, plan *mapping.Receipt, si frappe.SalesInvoice, pr *paymentRequest) (map[string]any, error) {
	termBased := false
	if si.PaymentTermsTemplate != "" {
		t, err := c.template(ctx, si.PaymentTermsTemplate) // read with the invoice
		if err != nil {
			return nil, err
		}
		termBased = t.byTerm
	}
	doc, allocs, err := receiptEntry(*plan, si, termBased, pr)
	if err != nil {
		return nil, err
	}
	if plan.SourceExchangeRate != "" {
		if err := c.roundingRow(ctx, plan, allocs); err != nil {
			return nil, err
		}
	}
	if err := setReceipt(doc, *plan); err != nil {
		return nil, err
	}
	return doc, nil
}

// receiptEntry is the pure part of buildEntry: the entry without the fields setReceipt owns,
// and the allocation of each reference row in minor units of plan.Currency.
func receiptEntry(plan mapping.Receipt, si frappe.SalesInvoice, termBased bool, pr *paymentRequest) (map[string]any, []int64, error) {
	if si.Customer != plan.Customer || si.Name != plan.Invoice {
		return nil, nil, &mapping.Park{Reason: mapping.ReasonInvoiceState, Detail: fmt.Sprintf("Sales Invoice %s of %q is not the planned %s of %q", si.Name, si.Customer, plan.Invoice, plan.Customer)}
	}
	rows, allocs, err := entryRows(plan, si, termBased, pr)
	if err != nil {
		return nil, nil, err
	}
	doc := map[string]any{"payment_type": "Receive", "party_type": "Customer", "party": plan.Customer,
		"paid_from": si.DebitTo, "references": rows}
	project := si.Project
	for _, it := range si.Items {
		if project == "" {
			project = it.Project
		}
	}
	for k, v := range map[string]string{"cost_center": si.CostCenter, "project": project, "contact_person": si.ContactPerson, "letter_head": si.LetterHead} {
		if v != "" {
			doc[k] = v
		}
	}
	return doc, allocs, nil
}

// entryRows are the reference rows of a receipt: one row of the allocation, or, when the
// invoice's Payment Terms Template allocates by term, one row per term with something left
// (payment_amount − paid_amount, in the receivable's currency: at the invoice's rate when that
// is another), the allocation spread over them in schedule order and rows left with nothing
// dropped — as get_payment_entry's get_reference_as_per_payment_terms proposes them. An
// early-payment discount still open parks (ERPNext would propose a discount deduction). Only
// this payment's Payment Request is linked (get_payment_entry attaches every open one,
// spec/erpnext.md §3.8), on every row, with its outstanding as read.
func entryRows(plan mapping.Receipt, si frappe.SalesInvoice, termBased bool, pr *paymentRequest) ([]any, []int64, error) {
	exp, err := exponentOf(plan.Currency)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range si.PaymentSchedule {
		if d, err := razorpay.ParseDecimal(t.Discount.String(), 9); err == nil && d > 0 && t.DiscountDate >= plan.ReferenceDate {
			if done, err := razorpay.ParseDecimal(t.DiscountedAmount.String(), 9); err != nil || done == 0 {
				return nil, nil, &mapping.Park{Reason: mapping.ReasonInvoiceState, Detail: fmt.Sprintf("Sales Invoice %s offers an early-payment discount until %s (term %q); ERPNext would deduct it: book it by hand", si.Name, t.DiscountDate, t.PaymentTerm)}
			}
		}
	}
	type term struct {
		name        string
		outstanding int64
	}
	terms := []term{{outstanding: plan.Allocated}}
	if termBased {
		terms = terms[:0]
		for _, t := range si.PaymentSchedule {
			out, err := termOutstanding(t, si, plan.Currency)
			if err != nil {
				return nil, nil, &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf("Sales Invoice %s term %q: %v", si.Name, t.PaymentTerm, err)}
			}
			if out > 0 {
				terms = append(terms, term{t.PaymentTerm, out})
			}
		}
	}
	remaining := plan.Allocated
	var rows []any
	var allocs []int64
	for _, t := range terms {
		take := min(t.outstanding, remaining)
		if take <= 0 {
			break
		}
		remaining -= take
		row := map[string]any{"reference_doctype": frappe.DoctypeSalesInvoice, "reference_name": si.Name,
			"allocated_amount": json.Number(razorpay.FormatMinor(take, exp))}
		if termBased {
			row["payment_term"] = t.name
			row["payment_term_outstanding"] = json.Number(razorpay.FormatMinor(t.outstanding, exp))
		}
		if plan.PaymentRequest != "" {
			row["payment_request"] = plan.PaymentRequest
			if pr != nil && pr.OutstandingAmount != "" {
				row["payment_request_outstanding"] = pr.OutstandingAmount
			}
		}
		rows, allocs = append(rows, row), append(allocs, take)
	}
	if remaining != 0 {
		return nil, nil, &mapping.Park{Reason: mapping.ReasonInvoiceState, Detail: fmt.Sprintf("the payment terms of Sales Invoice %s leave %s of the allocation %s without a term",
			si.Name, razorpay.FormatMinor(remaining, exp), razorpay.FormatMinor(plan.Allocated, exp))}
	}
	return rows, allocs, nil
}

// termOutstanding is what is left of payment term t (payment_amount − paid_amount, in the
// invoice's currency) in minor units of the receivable's currency cur: converted at the
// invoice's conversion_rate when the invoice is in another currency than its receivable, as
// get_reference_as_per_payment_terms does (rounded half to even, the site's rounding).
func termOutstanding(t frappe.PaymentSchedule, si frappe.SalesInvoice, cur string) (int64, error) {
	invCur := si.Currency
	if invCur == "" {
		invCur = cur
	}
	exp, err := exponentOf(invCur)
	if err != nil {
		return 0, err
	}
	amount, err := razorpay.ParseDecimal(t.PaymentAmount.String(), exp)
	if err != nil {
		return 0, err
	}
	paid, err := razorpay.ParseDecimal(connector.OrZero(t.PaidAmount), exp)
	if err != nil {
		return 0, err
	}
	if invCur == cur {
		return amount - paid, nil
	}
	return mapping.AtRate(amount-paid, invCur, si.ConversionRate.String(), cur)
}
