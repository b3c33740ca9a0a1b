package connector

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Building the document of a plan (DESIGN.md §4 step 6): ERPNext's own get_payment_entry
// proposes it (a read: it saves nothing), the connector sets what it owns. A proposal the
// connector cannot take is a *mapping.Park.

// computedFields are the amounts ERPNext computes itself (spec/erpnext.md §3.1 "never send;
// read back"): get_payment_entry proposed them at the invoice's rate, and they would mislead a
// preview.
var computedFields = []string{"base_paid_amount", "base_received_amount", "base_total_allocated_amount",
	"total_allocated_amount", "unallocated_amount", "difference_amount", "paid_amount_after_tax",
	"base_paid_amount_after_tax", "received_amount_after_tax", "base_received_amount_after_tax",
	"paid_from_account_balance", "paid_to_account_balance", "party_balance", "__islocal", "__unsaved"}

// buildEntry asks ERPNext for its own Payment Entry for the invoice (get_payment_entry with
// party_amount = the allocation and bank_account = paid_to, spec/erpnext.md §3.8) and sets
// what the connector owns: dates, reference_no, mode_of_payment, paid_to, amounts, exchange
// rate, deductions, remarks, docstatus 1. Payment-term rows are kept as ERPNext split them;
// only this payment's Payment Request stays linked on them. plan's deductions may gain the
// round-off row of a foreign-currency payment.
func (c *Connector) buildEntry(ctx context.Context, plan *mapping.Receipt) (map[string]any, error) {
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
	allocs, err := keepRows(doc, *plan, exp)
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
	if plan.SourceExchangeRate != "" {
		if err := c.roundingRow(ctx, plan, allocs); err != nil {
			return nil, err
		}
	}
	for _, k := range computedFields {
		delete(doc, k)
	}
	setReceipt(doc, *plan)
	return doc, nil
}

// roundingRow adds the round-off deduction of a foreign-currency receipt: each reference row's
// base amount is rounded on its own, half a paisa at most, so up to (rows+1)/2 paise go to the
// company's round-off account, as an accountant would book it, and what was received stays
// exactly what Razorpay settled. A larger gap, or no round_off_account, parks.
func (c *Connector) roundingRow(ctx context.Context, plan *mapping.Receipt, allocs []int64) error {
	recvExp, _ := razorpay.Exponent(plan.ReceivedCurrency)
	var ded int64
	for _, d := range plan.Deductions {
		ded += d.Amount
	}
	gap, err := mapping.BaseRoundingGap(allocs, plan.Unallocated, plan.Currency, plan.SourceExchangeRate, recvExp, plan.Received, ded)
	if err != nil {
		return err
	}
	if gap == 0 {
		return nil
	}
	if abs64(gap) > int64(len(allocs)+1)/2 {
		return &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf(
			"%d reference rows of %s at rate %s come to %s %s off the %s %s received; book it by hand",
			len(allocs), plan.Currency, plan.SourceExchangeRate, plan.ReceivedCurrency, razorpay.FormatMinor(gap, recvExp), plan.ReceivedCurrency, razorpay.FormatMinor(plan.Received, recvExp))}
	}
	acct, cc, err := c.roundOff(ctx, plan.Company)
	if err != nil {
		return err
	}
	if acct == "" {
		return &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf(
			"%d reference rows of %s at rate %s round to %s %s off the amount received and Company %s has no round_off_account",
			len(allocs), plan.Currency, plan.SourceExchangeRate, plan.ReceivedCurrency, razorpay.FormatMinor(gap, recvExp), plan.Company)}
	}
	plan.Deductions = append(plan.Deductions, mapping.Deduction{Account: acct, CostCenter: cc, Amount: gap,
		Description: fmt.Sprintf("rounding of %d payment-term rows at rate %s", len(allocs), plan.SourceExchangeRate)})
	return nil
}

// setReceipt sets the fields of a receipt the connector owns.
func setReceipt(doc map[string]any, plan mapping.Receipt) {
	exp, _ := razorpay.Exponent(plan.Currency)
	recvExp, _ := razorpay.Exponent(plan.ReceivedCurrency)
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
	doc["deductions"] = deductionRows(plan.Deductions, recvExp)
	doc["remarks"] = plan.Remarks
	doc["custom_remarks"] = 1
	doc["docstatus"] = 1
}

func deductionRows(ds []mapping.Deduction, exp int) []map[string]any {
	rows := make([]map[string]any, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, map[string]any{"account": d.Account, "cost_center": d.CostCenter,
			"amount": json.Number(razorpay.FormatMinor(d.Amount, exp)), "description": d.Description})
	}
	return rows
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

// advanceDoc is the unallocated receipt of an advance: no references. paid_from is left to
// ERPNext, which takes the customer's receivable for the company (get_party_account,
// spec/erpnext.md §3.1).
func advanceDoc(plan mapping.Receipt) map[string]any {
	exp, _ := razorpay.Exponent(plan.Currency)
	return map[string]any{
		"payment_type": "Receive", "party_type": "Customer", "party": plan.Customer, "company": plan.Company,
		"posting_date": plan.PostingDate, "reference_date": plan.ReferenceDate, "reference_no": plan.ReferenceNo,
		"mode_of_payment": plan.ModeOfPayment, "paid_to": plan.PaidTo,
		"paid_amount": json.Number(razorpay.FormatMinor(plan.Paid, exp)), "received_amount": json.Number(razorpay.FormatMinor(plan.Received, exp)),
		"references": []any{}, "deductions": deductionRows(plan.Deductions, exp), "remarks": plan.Remarks, "custom_remarks": 1, "docstatus": 1,
	}
}

// buildRefund makes the refund entry: get_payment_entry on the credit note (party_amount = the
// refund, bank_account = the receipt's paid_to), whose positive allocation ERPNext would refuse,
// with the row set to −Allocated (recordings 40-*…43-*); or, without a credit note, a Pay entry
// with no references.
func (c *Connector) buildRefund(ctx context.Context, plan mapping.Refund) (map[string]any, error) {
	exp, _ := razorpay.Exponent(plan.Currency)
	amount := json.Number(razorpay.FormatMinor(plan.Paid, exp))
	doc := map[string]any{"payment_type": "Pay", "party_type": "Customer", "party": plan.Customer,
		"paid_from": plan.PaidFrom, "paid_to": plan.PaidTo, "references": []any{}}
	if plan.CreditNote != "" {
		var err error
		if doc, err = c.creditNoteEntry(ctx, plan, amount, exp); err != nil {
			return nil, err
		}
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

// creditNoteEntry is get_payment_entry's Pay entry for the refund's credit note, keeping its
// one row for the credit note with the negative allocation.
func (c *Connector) creditNoteEntry(ctx context.Context, plan mapping.Refund, amount json.Number, exp int) (map[string]any, error) {
	var doc map[string]any
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
	return doc, nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
