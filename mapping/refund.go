package mapping

import (
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ReceiptFacts is what the refund planner needs of the receipt the refund reverses.
type ReceiptFacts struct {
	PaymentEntry string // the receipt Payment Entry
	Invoice      string // the Sales Invoice it paid
	Customer     string
	Company      string
	PaidTo       string // the account the money came into; the refund leaves from it
	Receivable   string // the invoice's debit_to, for an unallocated refund
}

// Refund is the plan for one refund Payment Entry (payment_type Pay to the customer). Amounts
// are minor units of Currency.
type Refund struct {
	RefundID      string
	PaymentID     string
	Customer      string
	Company       string
	ModeOfPayment string
	PaidFrom      string // the receipt's paid_to
	PaidTo        string // the receivable (only for an unallocated refund; get_payment_entry sets it otherwise)
	CreditNote    string // "" for an unallocated refund
	Currency      string
	Paid          int64 // the refund amount
	// Allocated is how much of the credit note's negative outstanding this refund settles; the
	// reference row carries −Allocated (ERPNext accepts only a negative allocation against a
	// return, recordings 41-*).
	Allocated     int64
	PostingDate   string
	ReferenceDate string
	ReferenceNo   string // the refund id
	Remarks       string
}

// PlanRefund plans the refund r of a booked receipt. creditNote is the return Sales Invoice
// against the receipt's invoice with outstanding < 0 (nil when there is none). Without a credit
// note the refund parks, or becomes an unallocated Pay entry when RefundsWithoutCreditNote is
// "unallocated" (DESIGN.md §5). Refunds in another currency than the company's park.
func PlanRefund(rules Rules, r *razorpay.Refund, receipt ReceiptFacts, creditNote *Invoice) (Refund, error) {
	if r == nil {
		return Refund{}, park(ReasonNotCaptured, "event carries no refund")
	}
	exp, ok := razorpay.Exponent(r.Currency)
	if !ok || r.Currency != rules.CompanyCurrency {
		return Refund{}, park(ReasonCurrency, "refund %s is in %s; only %s refunds are booked", r.ID, r.Currency, rules.CompanyCurrency)
	}
	if r.Amount <= 0 {
		return Refund{}, park(ReasonCurrency, "refund %s has amount %d", r.ID, r.Amount)
	}
	date := BookingDate(r.CreatedAt, rules.Location)
	plan := Refund{
		RefundID: r.ID, PaymentID: r.PaymentID, Customer: receipt.Customer, Company: receipt.Company,
		ModeOfPayment: rules.ModeOfPayment, PaidFrom: receipt.PaidTo, Currency: r.Currency, Paid: r.Amount,
		PostingDate: date, ReferenceDate: date, ReferenceNo: r.ID,
	}
	plan.Remarks = fmt.Sprintf("Razorpay refund %s of payment %s; amount %s %s; receipt %s",
		r.ID, r.PaymentID, r.Currency, razorpay.FormatMinor(r.Amount, exp), receipt.PaymentEntry)
	if receipt.Invoice != "" {
		plan.Remarks += " for Sales Invoice " + receipt.Invoice
	}
	if arn := r.AcquirerData["arn"]; arn != "" {
		plan.Remarks += "; ARN " + arn
	}
	if creditNote != nil && creditNote.Outstanding < 0 {
		if creditNote.PartyAccountCurrency != r.Currency {
			return Refund{}, park(ReasonCurrency, "credit note %s is receivable in %s, refund %s is in %s", creditNote.Name, creditNote.PartyAccountCurrency, r.ID, r.Currency)
		}
		plan.CreditNote = creditNote.Name
		plan.Allocated = min(r.Amount, -creditNote.Outstanding)
		return plan, nil
	}
	if rules.RefundsWithoutCreditNote != "unallocated" {
		if receipt.Invoice == "" {
			return Refund{}, park(ReasonNoCreditNote, "refund %s of %s %s: its receipt %s is an advance with no invoice; book it by hand or set mapping.refunds.without_credit_note: unallocated, then replay",
				r.ID, r.Currency, razorpay.FormatMinor(r.Amount, exp), receipt.PaymentEntry)
		}
		return Refund{}, park(ReasonNoCreditNote, "refund %s of %s %s: no credit note with an open balance against Sales Invoice %s; create the return, then replay",
			r.ID, r.Currency, razorpay.FormatMinor(r.Amount, exp), receipt.Invoice)
	}
	if receipt.Receivable == "" {
		return Refund{}, park(ReasonNoCreditNote, "refund %s: the receivable account of Sales Invoice %s is unknown", r.ID, receipt.Invoice)
	}
	plan.PaidTo = receipt.Receivable
	return plan, nil
}
