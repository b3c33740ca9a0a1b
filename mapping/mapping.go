// Package mapping turns one Razorpay payment, the ERPNext administrator's rules and facts
// already looked up in ERPNext into a booking plan, or a reason to park. It is pure: no I/O,
// no clock, no logging. Money stays in int64 minor units here; decimal text for Frappe is made
// by the caller from these integers (DESIGN.md §5).
package mapping

import (
	"fmt"
	"regexp"
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
	ReasonNoRate            = "no exchange rate"
	ReasonNoCreditNote      = "no credit note"
	ReasonPaymentRequest    = "payment request"
	ReasonDispute           = "dispute"
	ReasonReceiptMissing    = "receipt not booked"
	ReasonCustomerFee       = "customer-borne fee"
	ReasonAmbiguousCustomer = "ambiguous customer"
	ReasonAmount            = "invalid amount"
	ReasonAccount           = "another account"
	ReasonRounding          = "rounding"
	// ReasonRefundDisagrees: a refund.failed event for a refund Razorpay reports not failed.
	ReasonRefundDisagrees = "refund status disagrees"
)

// Park is a reason to stop and ask a person. It is returned as an error by the planners.
type Park struct {
	Reason string // one of the Reason constants
	Detail string // what exactly, with ids and amounts
}

// Error is "reason: detail", the text kept as a parked event's reason.
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
	Fees            FeeRules
	// RoundOff is the company's round_off_account and round_off_cost_center: where the
	// rounding of a payment of an invoice's grand total goes (RoundOffDifference).
	RoundOff RoundOff
	// RefundsWithoutCreditNote is "park" or "unallocated" (a Pay entry with no references).
	RefundsWithoutCreditNote string
	// DescriptionPattern, when set, finds an invoice name in the payment's (or link's)
	// description: its first capture group, or the whole match.
	DescriptionPattern *regexp.Regexp
}

// RoundOff is a company's round-off account and its cost center ("" when it has none).
type RoundOff struct {
	Account    string
	CostCenter string
}

// FeeRules is mapping.fees: Mode "none" books the gross amount; "deduction" books the net
// amount received and the fee as deduction rows (fee − GST and GST) with CostCenter.
type FeeRules struct {
	Mode       string
	FeeAccount string
	TaxAccount string
	CostCenter string
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
	if re := rules.DescriptionPattern; re != nil {
		for _, d := range []string{descOf(p), descOfLink(l)} {
			if m := re.FindStringSubmatch(d); m != nil {
				if len(m) > 1 {
					add("description", m[1])
				} else {
					add("description", m[0])
				}
			}
		}
	}
	// ERPNext's own checkout and payment links carry the Payment Request name in notes; it is
	// always worth trying (as a Payment Request → its invoice) after the configured sources.
	if p != nil {
		add("notes.payment_request", p.Notes["payment_request"])
	}
	if o != nil {
		add("notes.payment_request", o.Notes["payment_request"])
	}
	if l != nil {
		add("notes.payment_request", l.Notes["payment_request"])
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

func descOf(p *razorpay.Payment) string {
	if p == nil {
		return ""
	}
	return p.Description
}

func descOfLink(l *razorpay.PaymentLink) string {
	if l == nil {
		return ""
	}
	return l.Description
}

// NotCaptured says why p is not money received, "" when it is: its status must be "captured"
// (or "refunded": captured, then refunded since; spec/razorpay.md §3.1). A snapshot without a
// status is taken at its captured flag; a status that contradicts captured: true (e.g.
// "failed" with captured true) is not booked: a person checks the payment first.
func NotCaptured(p *razorpay.Payment) string {
	switch {
	case p.Status == "captured" || p.Status == "refunded" || p.Status == "" && bool(p.Captured):
		return ""
	case bool(p.Captured):
		return fmt.Sprintf("payment %s has status %q but captured true: only a payment whose status is captured is booked; check it in the Razorpay Dashboard, then replay or dismiss this event", p.ID, p.Status)
	case p.Status == "":
		return fmt.Sprintf("payment %s has no status and is not captured", p.ID)
	}
	return fmt.Sprintf("payment %s is %s, not captured", p.ID, p.Status)
}
