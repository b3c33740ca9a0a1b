package booking

import (
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Where each value of a planned entry comes from (Plan.Fields, printed by explain), and the
// plan's money (Plan.Ledger).

// fieldList collects ExplainedFields.
type fieldList []connector.ExplainedField

func (f *fieldList) add(field, value, source string) {
	*f = append(*f, connector.ExplainedField{Field: field, Value: value, Source: source})
}

// receiptFields are the fields of a receipt against an invoice.
func (c *receiptJob) receiptFields(p *razorpay.Payment, res resolution, inv mapping.Invoice, plan mapping.Receipt) []connector.ExplainedField {
	var f fieldList
	created := time.Unix(p.CreatedAt, 0).In(c.Account.Location).Format("2006-01-02 15:04 MST")
	f.add("reference_no", plan.ReferenceNo, "the Razorpay payment id (exact case)")
	f.add("posting_date", plan.PostingDate, "payment created_at "+created+" as a date in mapping.timezone "+c.Account.Mapping.Timezone)
	f.add("reference_date", plan.ReferenceDate, "the same date")
	invSrc := fmt.Sprintf("%s of the payment", res.source)
	if res.paymentRequest != "" {
		invSrc = fmt.Sprintf("reference document of Payment Request %s, named by %s", res.paymentRequest, res.source)
		f.add("references[].payment_request", res.paymentRequest, "named by "+res.source)
	}
	f.add("references[].reference_name", plan.Invoice, invSrc)
	f.add("party", plan.Customer, "customer of Sales Invoice "+plan.Invoice)
	f.add("company", plan.Company, "company of Sales Invoice "+plan.Invoice+" (mapping.company)")
	f.add("mode_of_payment", plan.ModeOfPayment, "mapping.mode_of_payment")
	if c.Account.Mapping.PaidTo != "" {
		f.add("paid_to", plan.PaidTo, "mapping.paid_to")
	} else {
		f.add("paid_to", plan.PaidTo, fmt.Sprintf("default account of Mode of Payment %s for %s", c.Account.Mapping.ModeOfPayment, c.Account.Mapping.Company))
	}
	paidSrc := "payment amount " + razorpay.MoneyString(p.Amount, p.Currency)
	if p.FeeBearer == "customer" && p.Fee != nil {
		paidSrc += fmt.Sprintf(" less the fee %s the customer paid on top", razorpay.MoneyString(*p.Fee, connector.CompanyCurrency))
	}
	if plan.SourceExchangeRate == "" {
		paidSrc += c.feeSource(plan)
	}
	f.add("paid_amount", razorpay.MoneyString(plan.Paid, plan.Currency), paidSrc)
	recvSrc := "= paid_amount (same currency)"
	if plan.SourceExchangeRate != "" {
		recvSrc = "Razorpay's base_amount in " + plan.ReceivedCurrency
		if len(plan.Deductions) > 0 {
			recvSrc += " less the fee"
		}
		f.add("source_exchange_rate", plan.SourceExchangeRate, "base_amount ÷ amount, from Razorpay (never 1)")
	}
	f.add("received_amount", razorpay.MoneyString(plan.Received, plan.ReceivedCurrency), recvSrc)
	allocSrc := fmt.Sprintf("what the payment settles, up to the outstanding %s of %s", razorpay.MoneyString(inv.Outstanding, inv.PartyAccountCurrency), plan.Invoice)
	if plan.Rounding != 0 {
		allocSrc = fmt.Sprintf("the outstanding %s of %s: the payment is its grand total %s, and the rest is the invoice's rounding",
			razorpay.MoneyString(inv.Outstanding, inv.PartyAccountCurrency), plan.Invoice, razorpay.MoneyString(inv.GrandTotal, inv.PartyAccountCurrency))
	}
	f.add("references[].allocated_amount", razorpay.MoneyString(plan.Allocated, plan.Currency), allocSrc)
	if plan.Unallocated > 0 {
		f.add("unallocated_amount", razorpay.MoneyString(plan.Unallocated, plan.Currency), "excess over the outstanding, an advance (mapping.excess unallocated)")
	}
	for _, d := range plan.Deductions {
		src := d.Description + " (mapping.fees, cost center " + d.CostCenter + ")"
		if d.Kind == mapping.DeductionRoundOff {
			src = d.Description + " (the company's round_off_account, cost center " + d.CostCenter + ")"
		}
		f.add("deductions["+d.Account+"]", razorpay.MoneyString(d.Amount, plan.ReceivedCurrency), src)
	}
	if r := roundingNote(inv, plan); r != "" {
		f.add("rounding", r, "Sales Invoice "+plan.Invoice+" rounding_adjustment (a round-off row only when the payment pays its grand total)")
	}
	f.add("remarks", plan.Remarks, "payment id, order, method, bank references and fee from the payment")
	return f
}

// feeSource is what paid_amount's source says about Razorpay's fee, following the fee mode
// the plan was made with: its fee rows (DeductionFee, DeductionTax) deducted in mode
// deduction; nothing deducted in mode none, or when the payment carries no fee. A round-off
// deduction is not a fee.
func (c *receiptJob) feeSource(plan mapping.Receipt) string {
	var fee int64
	for _, d := range plan.Deductions {
		if d.Kind == mapping.DeductionFee || d.Kind == mapping.DeductionTax {
			fee += d.Amount
		}
	}
	cur, mode := plan.ReceivedCurrency, c.Account.Mapping.Fees.Mode
	if cur == "" { // an advance: one currency
		cur = plan.Currency
	}
	if mode == "" {
		mode = "none"
	}
	switch {
	case fee > 0:
		return " less Razorpay's fee " + razorpay.MoneyString(fee, cur) + " (mapping.fees.mode deduction)"
	case mode == "deduction":
		return " (mapping.fees.mode deduction, but no fee of the merchant's in the payment: nothing deducted)"
	}
	return " (mapping.fees.mode " + mode + ": no fee deducted)"
}

// advanceFields are the fields of an advance (a receipt without an invoice).
func (c *receiptJob) advanceFields(plan mapping.Receipt) []connector.ExplainedField {
	var f fieldList
	f.add("party", plan.Customer, "mapping.customer_from / mapping.fallback_customer (no invoice named: mapping.without_invoice advance)")
	f.add("paid_amount", razorpay.MoneyString(plan.Paid, plan.Currency), "the payment amount"+c.feeSource(plan))
	f.add("unallocated_amount", razorpay.MoneyString(plan.Unallocated, plan.Currency), "the whole payment is an advance on the customer")
	f.add("reference_no", plan.ReferenceNo, "the Razorpay payment id (exact case)")
	return f
}

// refundFields are the fields of a refund entry.
func refundFields(plan mapping.Refund, receipt mapping.ReceiptFacts) []connector.ExplainedField {
	var f fieldList
	f.add("reference_no", plan.ReferenceNo, "the Razorpay refund id")
	f.add("paid_from", plan.PaidFrom, "paid_to of the receipt "+receipt.PaymentEntry)
	f.add("paid_amount", razorpay.MoneyString(plan.Paid, plan.Currency), "refund amount")
	if plan.CreditNote != "" {
		alloc := razorpay.MoneyString(-plan.Allocated, plan.Currency) // a currency mapping refused: no exponent guessed
		if m, err := razorpay.NewMoney(-plan.Allocated, plan.Currency); err == nil {
			alloc = m.Decimal()
		}
		f.add("references[].reference_name", plan.CreditNote, "credit note against "+receipt.Invoice)
		f.add("references[].allocated_amount", alloc, "negative: ERPNext accepts only that against a return")
	}
	return f
}

// receiptLedger is the money of a planned receipt.
func receiptLedger(plan mapping.Receipt) *connector.Ledger {
	l := &connector.Ledger{Currency: plan.Currency, Paid: plan.Paid, Allocated: plan.Allocated, Unallocated: plan.Unallocated,
		ReceivedCurrency: plan.ReceivedCurrency, Received: plan.Received}
	if l.ReceivedCurrency == "" { // an advance: one currency
		l.ReceivedCurrency = plan.Currency
	}
	for _, d := range plan.Deductions {
		l.Deductions += d.Amount
	}
	return l
}

// refundLedger is the money of a planned refund: paid out of the receipt's account, allocated
// negatively against the credit note, the rest unallocated.
func refundLedger(plan mapping.Refund) *connector.Ledger {
	return &connector.Ledger{Currency: plan.Currency, Paid: plan.Paid, Allocated: -plan.Allocated, Unallocated: plan.Paid - plan.Allocated,
		ReceivedCurrency: plan.Currency, Received: plan.Paid}
}

// roundingNote says what the connector made of a rounded invoice ("" when it is not rounded):
// the round-off it books, or why there is none.
func roundingNote(inv mapping.Invoice, plan mapping.Receipt) string {
	if inv.RoundingAdjustment == 0 {
		return ""
	}
	cur := inv.PartyAccountCurrency
	rounded := fmt.Sprintf("grand total %s rounded to %s (rounding_adjustment %s)", razorpay.MoneyString(inv.GrandTotal, cur),
		razorpay.MoneyString(inv.GrandTotal+inv.RoundingAdjustment, cur), razorpay.MoneyString(inv.RoundingAdjustment, cur))
	switch {
	case plan.Rounding != 0:
		return fmt.Sprintf("%s: %s on the round-off account, unallocated 0", rounded, razorpay.MoneyString(plan.Rounding, plan.ReceivedCurrency))
	case plan.SourceExchangeRate != "":
		return rounded + ": not applied to a foreign-currency payment"
	}
	return rounded + ": the payment differs from the outstanding by more than the rounding (or not at all): no round-off"
}
