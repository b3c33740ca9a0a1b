package mapping

import (
	"fmt"
	"sort"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Invoice is what the planner needs of a Sales Invoice (or credit note), read under the
// invoice lock.
type Invoice struct {
	Name                 string
	Customer             string
	Company              string
	PartyAccountCurrency string // currency of debit_to; Outstanding is in it
	DebitTo              string // the receivable account
	Docstatus            int
	IsReturn             bool
	Outstanding          int64 // minor units of PartyAccountCurrency; negative on a credit note
	// GrandTotal and RoundingAdjustment (rounded_total − grand_total) are in minor units of
	// PartyAccountCurrency when the invoice is in it; RoundingAdjustment is 0 for an invoice
	// that is not rounded (or whose rounding is in another currency than its receivable).
	GrandTotal         int64
	RoundingAdjustment int64
}

// Deduction is one Payment Entry deduction row. Amount is in minor units of the company
// currency (ERPNext requires deduction accounts in company currency, spec/erpnext.md §3.2 S2).
// Kind says what it books: DeductionFee, DeductionTax or DeductionRoundOff.
type Deduction struct {
	Account     string
	CostCenter  string
	Description string
	Amount      int64
	Kind        string
}

// Deduction kinds.
const (
	DeductionFee      = "fee"       // Razorpay's fee without GST (mapping.fees.mode deduction)
	DeductionTax      = "tax"       // the GST on the fee
	DeductionRoundOff = "round-off" // a rounding difference, on the company's round_off_account
)

// Receipt is the plan for one customer receipt Payment Entry (DESIGN.md §5).
type Receipt struct {
	PaymentID      string
	Invoice        string
	PaymentRequest string // link the invoice row to this Payment Request ("" for none)
	Customer       string
	Company        string
	ModeOfPayment  string
	PaidTo         string
	PostingDate    string // YYYY-MM-DD
	ReferenceDate  string
	ReferenceNo    string // the Razorpay payment id, exact case
	// Currency is the party (receivable) currency: paid_amount, allocations and Unallocated
	// are in its minor units.
	Currency    string
	Paid        int64
	Allocated   int64
	Unallocated int64
	// ReceivedCurrency is the company currency paid_to is in; Received is received_amount in
	// its minor units (= Paid when the currencies are the same).
	ReceivedCurrency string
	Received         int64
	// SourceExchangeRate is paid currency → company currency as decimal text, "" when the
	// currencies are the same (ERPNext sets 1 itself).
	SourceExchangeRate string
	Deductions         []Deduction
	Remarks            string
	// Rounding is the round-off deduction of a payment of the invoice's grand total
	// (RoundOffDifference), minor units of ReceivedCurrency; 0 when there is none. It is one of
	// Deductions too.
	Rounding int64
}

// PlanReceipt plans the receipt of payment p against invoice inv (paymentRequest names the
// Payment Request the payment belongs to, or ""). It returns *Park when a person must decide:
// payment not captured; invoice not submitted, a return, or of another company; currencies
// that do not fit; a foreign-currency payment without Razorpay's base_amount (never rate 1); a
// currency with more decimals than the site; outstanding already 0 (always park: the money was
// almost certainly booked another way); over-payment with Excess "park".
//
// Amounts (DESIGN.md §5): fees "none": paid = received = gross. Fees "deduction": paid =
// received = gross − fee, allocated = gross, deductions fee − tax and tax. A customer-borne fee
// (fee_bearer "customer") is inside amount but is not the merchant's: only amount − fee settles
// the invoice, and no fee is booked. Foreign currency (invoice receivable in the payment
// currency): paid = gross in that currency, received = base_amount in INR (less the fee in
// deduction mode), source_exchange_rate = base ÷ gross; fee and tax are in INR paise
// (spec/razorpay.md §3.1).
func PlanReceipt(rules Rules, p *razorpay.Payment, o *razorpay.Order, inv Invoice, paymentRequest string) (Receipt, error) {
	if p == nil {
		return Receipt{}, park(ReasonNotCaptured, "event carries no payment")
	}
	if why := NotCaptured(p); why != "" {
		return Receipt{}, park(ReasonNotCaptured, "%s", why)
	}
	if p.Amount <= 0 {
		return Receipt{}, park(ReasonAmount, "payment %s has amount %d", p.ID, p.Amount)
	}
	if err := checkInvoice(rules, inv); err != nil {
		return Receipt{}, err
	}
	company := rules.CompanyCurrency
	amt, err := settlement(rules, p, inv)
	if err != nil {
		return Receipt{}, err
	}
	exp := amt.exp
	if inv.Outstanding <= 0 {
		return Receipt{}, park(ReasonInvoiceSettled, "Sales Invoice %s has outstanding %s %s; payment %s of %s %s was not booked",
			inv.Name, inv.PartyAccountCurrency, razorpay.FormatMinor(inv.Outstanding, exp), p.ID, amt.currency, razorpay.FormatMinor(amt.settle, exp))
	}
	allocated, rounding, err := allocate(rules, p, inv, amt, exp)
	if err != nil {
		return Receipt{}, err
	}
	r := Receipt{
		PaymentID: p.ID, Invoice: inv.Name, PaymentRequest: paymentRequest, Customer: inv.Customer, Company: inv.Company,
		ModeOfPayment: rules.ModeOfPayment, PaidTo: rules.PaidTo, ReferenceNo: p.ID,
		Currency: amt.currency, Paid: amt.settle, Allocated: allocated, Unallocated: amt.settle - allocated,
		ReceivedCurrency: company, Received: amt.settleBase, SourceExchangeRate: amt.rate,
	}
	r.PostingDate = BookingDate(p.CreatedAt, rules.Location)
	r.ReferenceDate = r.PostingDate
	r.deduct(rules, inv, amt, rounding, exp)
	if r.Paid <= 0 || r.Received <= 0 {
		return Receipt{}, park(ReasonAmount, "payment %s leaves nothing to book after the fee (%s %s)", p.ID, amt.currency, razorpay.FormatMinor(amt.settle, exp))
	}
	if amt.rate == "" {
		if err := r.balance(exp); err != nil {
			return Receipt{}, err
		}
	}
	r.Remarks = Remarks(p, o)
	return r, nil
}

// allocate is what a payment of amt allocates to inv, and the invoice's rounding it books as
// a deduction (0 when none): the whole payment, or the outstanding when the payment pays the
// rounded grand total or more than is outstanding. It parks a rounding without the company's
// round_off_account, and an over-payment when rules.Excess is "park". exp is the exponent of
// amt.currency.
func allocate(rules Rules, p *razorpay.Payment, inv Invoice, amt amounts, exp int) (allocated, rounding int64, err error) {
	allocated = amt.settle
	if amt.rate == "" && amt.currency == rules.CompanyCurrency {
		rounding = RoundOffDifference(inv, amt.settle)
	}
	if rounding != 0 {
		if rules.RoundOff.Account == "" {
			return 0, 0, park(ReasonRounding, "payment %s of %s %s pays the grand total %s of Sales Invoice %s (rounded to %s), and Company %s has no round_off_account for the %s difference",
				p.ID, amt.currency, razorpay.FormatMinor(amt.settle, exp), razorpay.FormatMinor(inv.GrandTotal, exp), inv.Name,
				razorpay.FormatMinor(inv.GrandTotal+inv.RoundingAdjustment, exp), inv.Company, razorpay.FormatMinor(rounding, exp))
		}
		return inv.Outstanding, rounding, nil
	}
	if amt.settle > inv.Outstanding {
		if rules.Excess == "park" {
			return 0, 0, park(ReasonExcess, "payment %s of %s %s exceeds the outstanding %s of Sales Invoice %s",
				p.ID, amt.currency, razorpay.FormatMinor(amt.settle, exp), razorpay.FormatMinor(inv.Outstanding, exp), inv.Name)
		}
		allocated = inv.Outstanding
	}
	return allocated, 0, nil
}

// deduct adds the receipt's deductions: the merchant's fee and its tax in fee mode
// "deduction" (taken off received, and off paid too in one currency), and the invoice's
// rounding (minor units of the receipt's currency, exponent exp) when it is not 0.
func (r *Receipt) deduct(rules Rules, inv Invoice, amt amounts, rounding int64, exp int) {
	if rules.Fees.Mode == "deduction" && amt.merchantFee > 0 {
		r.Deductions = feeDeductions(rules.Fees, r.PaymentID, amt.merchantFee, amt.merchantTax)
		r.Received -= amt.merchantFee
		if amt.rate == "" {
			// Same currency: ERPNext overwrites received with paid, so paid is the net too.
			r.Paid -= amt.merchantFee
		}
	}
	if rounding != 0 {
		r.Rounding = rounding
		r.Deductions = append(r.Deductions, Deduction{Account: rules.RoundOff.Account, CostCenter: rules.RoundOff.CostCenter, Amount: rounding,
			Kind: DeductionRoundOff, Description: fmt.Sprintf("rounding of Sales Invoice %s (grand total %s, rounded %s)", inv.Name,
				razorpay.FormatMinor(inv.GrandTotal, exp), razorpay.FormatMinor(inv.GrandTotal+inv.RoundingAdjustment, exp))})
	}
}

// RoundOffDifference is the part of the gap between a payment settling settle (minor units of
// the invoice's receivable currency) and the invoice's outstanding that is the invoice's own
// rounding: outstanding − settle when it is not 0, has the sign of the invoice's
// rounding_adjustment and is no larger — a rounded-down invoice (8.35 → 8.00, −0.35) paid up
// to its grand total, or a rounded-up one (1234.56 → 1235.00, +0.44) paid down to it, in one
// payment or as the last of several. 0 otherwise: an invoice that is not rounded, a payment
// that matches the outstanding, a partial payment or an over-payment beyond the rounding.
//
// ERPNext accepts such a payment with unallocated 0 only as allocated = outstanding plus one
// deduction of exactly this amount (allocated − paid) on the company's round_off_account; it
// never adds that row itself, and the opposite sign is accepted on a rounded-down invoice as a
// customer advance of twice the rounding (erpnext-recorded-connector README "81").
func RoundOffDifference(inv Invoice, settle int64) int64 {
	adj, d := inv.RoundingAdjustment, inv.Outstanding-settle
	if adj == 0 || d == 0 || (d > 0) != (adj > 0) {
		return 0
	}
	if d > 0 && d > adj || d < 0 && d < adj {
		return 0
	}
	return d
}

// balance sets Unallocated of a same-currency receipt from ERPNext's identity (spec/erpnext.md
// §3.3: unallocated = paid + Σ deductions − allocated) and refuses a plan that would leave a
// negative one or, when the rounding is booked, any at all: the wrong sign of a round-off row
// is accepted by ERPNext as an advance (recorded 81-pe-deduction-plus-0.35-*). exp is the
// minor-unit digits of r.Currency.
func (r *Receipt) balance(exp int) error {
	var ded int64
	for _, d := range r.Deductions {
		ded += d.Amount
	}
	r.Unallocated = r.Paid + ded - r.Allocated
	if r.Unallocated < 0 || r.Rounding != 0 && r.Unallocated != 0 {
		return park(ReasonAmount, "payment %s: paid %s + deductions %s − allocated %s leaves %s unallocated; not booked",
			r.PaymentID, razorpay.FormatMinor(r.Paid, exp), razorpay.FormatMinor(ded, exp), razorpay.FormatMinor(r.Allocated, exp), razorpay.FormatMinor(r.Unallocated, exp))
	}
	return nil
}

func checkInvoice(rules Rules, inv Invoice) error {
	if inv.Docstatus != 1 {
		return park(ReasonInvoiceState, "Sales Invoice %s is %s", inv.Name, docstatusWord(inv.Docstatus))
	}
	if inv.IsReturn {
		return park(ReasonInvoiceState, "Sales Invoice %s is a return (credit note)", inv.Name)
	}
	if rules.Company != "" && inv.Company != rules.Company {
		return park(ReasonCompany, "Sales Invoice %s belongs to %s, not %s", inv.Name, inv.Company, rules.Company)
	}
	return nil
}

func docstatusWord(d int) string {
	switch d {
	case 0:
		return "a draft"
	case 2:
		return "cancelled"
	}
	return fmt.Sprintf("in docstatus %d", d)
}

// Remarks is the text written to the Payment Entry's remarks: payment id, order id, method,
// bank references (RRN/UTR/…) and the fee, so an accountant can trace the entry to Razorpay.
func Remarks(p *razorpay.Payment, o *razorpay.Order) string {
	parts := []string{fmt.Sprintf("Razorpay payment %s", p.ID)}
	orderID := p.OrderID
	if orderID == "" && o != nil {
		orderID = o.ID
	}
	if orderID != "" {
		parts = append(parts, "order "+orderID)
	}
	parts = append(parts, "amount "+razorpay.MoneyString(p.Amount, p.Currency))
	if p.Method != "" {
		parts = append(parts, "method "+p.Method)
	}
	keys := make([]string, 0, len(p.AcquirerData))
	for k, v := range p.AcquirerData {
		if v != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %s", strings.ReplaceAll(k, "_", " "), p.AcquirerData[k]))
	}
	if p.Fee != nil {
		// Fee and tax are in the account's base currency (INR paise), spec/razorpay.md §3.1.
		fee := "Razorpay fee " + razorpay.INR(*p.Fee).String()
		if p.Tax != nil {
			fee += " (GST " + razorpay.INR(*p.Tax).String() + ")"
		}
		if p.FeeBearer == "customer" {
			fee += " borne by the customer"
		}
		parts = append(parts, fee)
	}
	return strings.Join(parts, "; ")
}

// PlanAdvance plans a receipt that names no invoice as an unallocated advance on customer
// (mapping.without_invoice "advance"): the same amounts as PlanReceipt with nothing allocated.
// Only company-currency payments: the customer's receivable currency is not known here.
func PlanAdvance(rules Rules, p *razorpay.Payment, o *razorpay.Order, customer, company string) (Receipt, error) {
	if p == nil {
		return Receipt{}, park(ReasonNotCaptured, "event carries no payment")
	}
	if why := NotCaptured(p); why != "" {
		return Receipt{}, park(ReasonNotCaptured, "%s", why)
	}
	if p.Amount <= 0 {
		return Receipt{}, park(ReasonAmount, "payment %s has amount %d", p.ID, p.Amount)
	}
	if p.Currency != rules.CompanyCurrency {
		return Receipt{}, park(ReasonCurrency, "payment %s in %s names no invoice; advances are booked in %s only", p.ID, p.Currency, rules.CompanyCurrency)
	}
	amt, err := settlement(rules, p, Invoice{PartyAccountCurrency: rules.CompanyCurrency})
	if err != nil {
		return Receipt{}, err
	}
	r := Receipt{
		PaymentID: p.ID, Customer: customer, Company: company, ModeOfPayment: rules.ModeOfPayment, PaidTo: rules.PaidTo,
		ReferenceNo: p.ID, Currency: amt.currency, Paid: amt.settle, Unallocated: amt.settle,
		ReceivedCurrency: rules.CompanyCurrency, Received: amt.settleBase,
	}
	r.PostingDate = BookingDate(p.CreatedAt, rules.Location)
	r.ReferenceDate = r.PostingDate
	if rules.Fees.Mode == "deduction" && amt.merchantFee > 0 {
		r.Deductions = feeDeductions(rules.Fees, p.ID, amt.merchantFee, amt.merchantTax)
		r.Paid -= amt.merchantFee
		r.Received -= amt.merchantFee
	}
	if r.Paid <= 0 {
		return Receipt{}, park(ReasonCurrency, "payment %s leaves nothing to book after the fee", p.ID)
	}
	r.Remarks = Remarks(p, o) + "; advance: no invoice named"
	return r, nil
}
