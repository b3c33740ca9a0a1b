// Package mapping turns one Razorpay payment, the ERPNext administrator's rules and facts
// already looked up in ERPNext into a booking plan, or a reason to park. It is pure: no I/O,
// no clock, no logging. Money stays in int64 minor units here; decimal text for Frappe is made
// by the caller from these integers (DESIGN.md §5).
package mapping

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Park reasons: the stable first words of a parked event's reason.
const (
	ReasonNoInvoice         = "no invoice matched"
	ReasonInvoiceSettled    = "invoice already settled"
	ReasonInvoiceState      = "invoice not payable"
	ReasonCurrency          = "currency not supported"
	ReasonCompany           = "invoice of another company"
	ReasonExcess            = "over-payment"
	ReasonNotCaptured       = "payment not captured"
	ReasonDraftMismatch     = "draft differs"
	ReasonCurrencyPrecision = "currency precision"
)

// Park is a reason to stop and ask a person. It is returned as an error by the planners.
type Park struct {
	Reason string // one of the Reason constants
	Detail string // what exactly, with ids and amounts
}

func (p *Park) Error() string {
	if p.Detail == "" {
		return p.Reason
	}
	return p.Reason + ": " + p.Detail
}

func park(reason, format string, a ...any) *Park {
	return &Park{Reason: reason, Detail: fmt.Sprintf(format, a...)}
}

// Rules is the administrator's mapping (config `mapping`), already validated.
type Rules struct {
	Company         string
	ModeOfPayment   string
	PaidTo          string         // the INR account the money lands in (resolved by the caller)
	Location        *time.Location // mapping.timezone; posting and reference dates are taken in it
	InvoiceFrom     []string       // ordered sources: notes.<key>, order.receipt, payment_link.reference_id
	Excess          string         // "unallocated" or "park"
	CompanyCurrency string         // e.g. INR
	SitePrecision   int            // decimal places the site keeps for currency (2 unless told otherwise)
}

// Candidate is one document name found in a payment, with where it came from.
type Candidate struct {
	Source string // e.g. "notes.invoice", "order.receipt"
	Name   string
}

// InvoiceCandidates lists the names to try as a Sales Invoice, in the configured order,
// without duplicates. The order and payment link may be nil.
func InvoiceCandidates(rules Rules, p *razorpay.Payment, o *razorpay.Order, l *razorpay.PaymentLink) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	add := func(src, name string) {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, Candidate{Source: src, Name: name})
	}
	for _, src := range rules.InvoiceFrom {
		switch {
		case strings.HasPrefix(src, "notes."):
			key := strings.TrimPrefix(src, "notes.")
			// Payment notes are copied from the order and link; look at all three in that order.
			if p != nil {
				add(src, p.Notes[key])
			}
			if o != nil {
				add(src, o.Notes[key])
			}
			if l != nil {
				add(src, l.Notes[key])
			}
		case src == "order.receipt":
			if o != nil {
				add(src, o.Receipt)
			}
		case src == "payment_link.reference_id":
			if l != nil {
				add(src, l.ReferenceID)
			}
		}
	}
	return out
}

// BookingDate is the payment's created_at (unix seconds) as a date "YYYY-MM-DD" in loc: the
// posting and reference date on every path (webhook, replay, reconcile).
func BookingDate(createdAt int64, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return time.Unix(createdAt, 0).In(loc).Format("2006-01-02")
}

// Invoice is what the planner needs of a Sales Invoice, read under the invoice lock.
type Invoice struct {
	Name                 string
	Customer             string
	Company              string
	PartyAccountCurrency string // currency of debit_to; Outstanding is in it
	Docstatus            int
	IsReturn             bool
	Outstanding          int64 // minor units of PartyAccountCurrency
}

// Receipt is the plan for one customer receipt Payment Entry. Amounts are minor units of
// Currency.
type Receipt struct {
	PaymentID     string
	Invoice       string
	Customer      string
	Company       string
	ModeOfPayment string
	PaidTo        string
	PostingDate   string // YYYY-MM-DD
	ReferenceDate string
	ReferenceNo   string // the Razorpay payment id, exact case
	Currency      string
	Paid          int64 // paid_amount = received_amount (same currency, fees mode none)
	Allocated     int64 // allocated to Invoice
	Unallocated   int64 // Paid - Allocated: an advance on the customer
	Remarks       string
}

// PlanReceipt plans the receipt of payment p against invoice inv. It returns *Park when a
// person must decide: payment not captured, invoice not submitted or a return, invoice of
// another company, currency mismatch, outstanding already 0 (always park: the money was almost
// certainly booked another way, DESIGN.md §5), or over-payment with Excess "park".
func PlanReceipt(rules Rules, p *razorpay.Payment, o *razorpay.Order, inv Invoice) (Receipt, error) {
	if p == nil {
		return Receipt{}, park(ReasonNotCaptured, "event carries no payment")
	}
	if p.Status != "captured" && !bool(p.Captured) {
		return Receipt{}, park(ReasonNotCaptured, "payment %s is %s", p.ID, p.Status)
	}
	exp, ok := razorpay.Exponent(p.Currency)
	if !ok {
		return Receipt{}, park(ReasonCurrency, "payment %s is in %q, not in Razorpay's currency table", p.ID, p.Currency)
	}
	if exp > rules.SitePrecision {
		return Receipt{}, park(ReasonCurrencyPrecision, "payment %s is in %s (%d decimals); the site keeps %d", p.ID, p.Currency, exp, rules.SitePrecision)
	}
	if inv.Docstatus != 1 {
		return Receipt{}, park(ReasonInvoiceState, "Sales Invoice %s is %s", inv.Name, docstatusWord(inv.Docstatus))
	}
	if inv.IsReturn {
		return Receipt{}, park(ReasonInvoiceState, "Sales Invoice %s is a return (credit note)", inv.Name)
	}
	if rules.Company != "" && inv.Company != rules.Company {
		return Receipt{}, park(ReasonCompany, "Sales Invoice %s belongs to %s, not %s", inv.Name, inv.Company, rules.Company)
	}
	if inv.PartyAccountCurrency != p.Currency || (rules.CompanyCurrency != "" && p.Currency != rules.CompanyCurrency) {
		return Receipt{}, park(ReasonCurrency, "payment %s is in %s; Sales Invoice %s is receivable in %s (foreign-currency receipts are not booked yet)",
			p.ID, p.Currency, inv.Name, inv.PartyAccountCurrency)
	}
	if inv.Outstanding <= 0 {
		return Receipt{}, park(ReasonInvoiceSettled, "Sales Invoice %s has outstanding %s %s; payment %s of %s %s was not booked",
			inv.Name, inv.PartyAccountCurrency, razorpay.FormatMinor(inv.Outstanding, exp), p.ID, p.Currency, razorpay.FormatMinor(p.Amount, exp))
	}
	allocated := p.Amount
	if p.Amount > inv.Outstanding {
		if rules.Excess == "park" {
			return Receipt{}, park(ReasonExcess, "payment %s of %s %s exceeds the outstanding %s of Sales Invoice %s",
				p.ID, p.Currency, razorpay.FormatMinor(p.Amount, exp), razorpay.FormatMinor(inv.Outstanding, exp), inv.Name)
		}
		allocated = inv.Outstanding
	}
	date := BookingDate(p.CreatedAt, rules.Location)
	return Receipt{
		PaymentID:     p.ID,
		Invoice:       inv.Name,
		Customer:      inv.Customer,
		Company:       inv.Company,
		ModeOfPayment: rules.ModeOfPayment,
		PaidTo:        rules.PaidTo,
		PostingDate:   date,
		ReferenceDate: date,
		ReferenceNo:   p.ID,
		Currency:      p.Currency,
		Paid:          p.Amount,
		Allocated:     allocated,
		Unallocated:   p.Amount - allocated,
		Remarks:       Remarks(p, o),
	}, nil
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
	exp, _ := razorpay.Exponent(p.Currency)
	parts := []string{fmt.Sprintf("Razorpay payment %s", p.ID)}
	orderID := p.OrderID
	if orderID == "" && o != nil {
		orderID = o.ID
	}
	if orderID != "" {
		parts = append(parts, "order "+orderID)
	}
	parts = append(parts, fmt.Sprintf("amount %s %s", p.Currency, razorpay.FormatMinor(p.Amount, exp)))
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
		fee := fmt.Sprintf("Razorpay fee INR %s", razorpay.FormatMinor(*p.Fee, 2))
		if p.Tax != nil {
			fee += fmt.Sprintf(" (GST INR %s)", razorpay.FormatMinor(*p.Tax, 2))
		}
		parts = append(parts, fee)
	}
	return strings.Join(parts, "; ")
}
