package booking

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Building the documents of a plan (DESIGN.md §4 step 6): a receipt's entry from the invoice
// read (entry.go), its foreign-currency round-off row, the fields the connector owns, an
// advance, and a refund — for which ERPNext's own get_payment_entry proposes the entry on the
// credit note. What the connector cannot build is a *mapping.Park.

// exponentOf is the minor-unit digits of currency; a currency not in Razorpay's table parks
// (mapping.ReasonCurrency): its exponent is never guessed.
func exponentOf(currency string) (int, error) {
	m, err := razorpay.NewMoney(0, currency)
	if err != nil {
		return 0, &mapping.Park{Reason: mapping.ReasonCurrency, Detail: err.Error()}
	}
	return m.Exponent(), nil
}

// roundingRow adds the round-off deduction of a foreign-currency receipt: each reference row's
// base amount is rounded on its own, half a paisa at most, so up to (rows+1)/2 paise go to the
// company's round-off account, as an accountant would book it, and what was received stays
// exactly what Razorpay settled. A larger gap, or no round_off_account, parks.
func (c *receiptJob) roundingRow(ctx context.Context, plan *mapping.Receipt, allocs []int64) error {
	recvExp, err := exponentOf(plan.ReceivedCurrency)
	if err != nil {
		return err
	}
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
	acct, cc, err := c.RoundOff(ctx, plan.Company)
	if err != nil {
		return err
	}
	if acct == "" {
		return &mapping.Park{Reason: mapping.ReasonCurrencyPrecision, Detail: fmt.Sprintf(
			"%d reference rows of %s at rate %s round to %s %s off the amount received and Company %s has no round_off_account",
			len(allocs), plan.Currency, plan.SourceExchangeRate, plan.ReceivedCurrency, razorpay.FormatMinor(gap, recvExp), plan.Company)}
	}
	plan.Deductions = append(plan.Deductions, mapping.Deduction{Account: acct, CostCenter: cc, Amount: gap, Kind: mapping.DeductionRoundOff,
		Description: fmt.Sprintf("rounding of %d payment-term rows at rate %s", len(allocs), plan.SourceExchangeRate)})
	return nil
}

// setReceipt sets the fields of a receipt the connector owns; a currency not in Razorpay's
// table parks.
func setReceipt(doc map[string]any, plan mapping.Receipt) error {
	exp, err := exponentOf(plan.Currency)
	if err != nil {
		return err
	}
	recvExp, err := exponentOf(plan.ReceivedCurrency)
	if err != nil {
		return err
	}
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
	return nil
}

func deductionRows(ds []mapping.Deduction, exp int) []map[string]any {
	rows := make([]map[string]any, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, map[string]any{"account": d.Account, "cost_center": d.CostCenter,
			"amount": json.Number(razorpay.FormatMinor(d.Amount, exp)), "description": d.Description})
	}
	return rows
}

// advanceDoc is the unallocated receipt of an advance: no references. paid_from is left to
// ERPNext, which takes the customer's receivable for the company (get_party_account,
// spec/erpnext.md §3.1). A currency not in Razorpay's table parks.
func advanceDoc(plan mapping.Receipt) (map[string]any, error) {
	exp, err := exponentOf(plan.Currency)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"payment_type": "Receive", "party_type": "Customer", "party": plan.Customer, "company": plan.Company,
		"posting_date": plan.PostingDate, "reference_date": plan.ReferenceDate, "reference_no": plan.ReferenceNo,
		"mode_of_payment": plan.ModeOfPayment, "paid_to": plan.PaidTo,
		"paid_amount": json.Number(razorpay.FormatMinor(plan.Paid, exp)), "received_amount": json.Number(razorpay.FormatMinor(plan.Received, exp)),
		"references": []any{}, "deductions": deductionRows(plan.Deductions, exp), "remarks": plan.Remarks, "custom_remarks": 1, "docstatus": 1,
	}, nil
}

// buildRefund makes the refund entry: get_payment_entry on the credit note (party_amount = the
// refund, bank_account = the receipt's paid_to), whose positive allocation ERPNext would refuse,
// with the row set to −Allocated (recordings 40-*…43-*); or, without a credit note, a Pay entry
// with no references.
func (c *refundJob) buildRefund(ctx context.Context, plan mapping.Refund) (map[string]any, error) {
	exp, err := exponentOf(plan.Currency)
	if err != nil {
		return nil, err
	}
	amount := json.Number(razorpay.FormatMinor(plan.Paid, exp))
	doc := map[string]any{"payment_type": "Pay", "party_type": "Customer", "party": plan.Customer,
		"paid_from": plan.PaidFrom, "paid_to": plan.PaidTo, "references": []any{}}
	if plan.CreditNote != "" {
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
func (c *refundJob) creditNoteEntry(ctx context.Context, plan mapping.Refund, amount json.Number, exp int) (map[string]any, error) {
	var doc map[string]any
	err := c.Account.ERP.Call(ctx, frappe.MethodGetPaymentEntry, map[string]any{
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
