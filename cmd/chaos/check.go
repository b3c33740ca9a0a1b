package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// erpEntry is the part of a Payment Entry of /__sim/state the checks read; amounts in paise.
type erpEntry struct {
	Name, Type, ReferenceNo string
	Docstatus               int
	Paid, Received          int64
	Allocated               map[string]int64 // Sales Invoice → allocated amount
}

// inboxRow and bookingRow are the connector's store rows the checks read.
type inboxRow struct {
	EventID, Event, Key, Status, LastError string
}

type bookingRow struct {
	Key, Kind, State, Doctype, Name string
}

// truth is everything the checks compare: the scenario (what Razorpay did), ERPNext's entries,
// and the connector's inbox and bookings.
type truth struct {
	Scenario *scenario
	Entries  []erpEntry
	Inbox    []inboxRow
	Bookings []bookingRow
}

// checkReport is the outcome of the checks. Money is in paise; the JSON shows rupees.
type checkReport struct {
	ReceiptsExpected   int            `json:"receipts_expected"`
	ReceiptsBooked     int            `json:"receipts_booked"`
	RefundsExpected    int            `json:"refunds_expected_booked"`
	RefundsBooked      int            `json:"refunds_booked"`
	RefundsParked      int            `json:"refunds_parked_no_credit_note"`
	RefundsNoReceipt   int            `json:"refunds_parked_receipt_not_booked"`
	DuplicateEntries   int            `json:"duplicate_entries"`
	Missing            int            `json:"missing"`
	PaymentsParked     int            `json:"payments_parked_invoice_settled"`
	UnexpectedParked   int            `json:"parked_unexpected"`
	Dead               int            `json:"dead"`
	NotFinished        int            `json:"not_finished"`
	DraftEntries       int            `json:"draft_entries"`
	InvoiceMismatches  int            `json:"invoice_mismatches"`
	BookingsMismatches int            `json:"bookings_mismatches"`
	InboxByStatus      map[string]int `json:"inbox_by_status"`
	BankExpected       money          `json:"bank_expected"`
	BankActual         money          `json:"bank_actual"`
	ParkedAmount       money          `json:"parked_amount"`
	AmountDifference   money          `json:"amount_difference"`
	Violations         []string       `json:"violations"`
}

// money is paise shown as rupee text in JSON ("1234.50").
type money int64

func (m money) MarshalJSON() ([]byte, error) { return json.Marshal(razorpay.INR(int64(m)).Decimal()) }

// maxExamples bounds the examples kept per kind of violation.
const maxExamples = 5

// violations collects violation messages by kind, keeping the first few examples of each.
type violations struct {
	counts   map[string]int
	examples map[string][]string
}

func (v *violations) add(kind, format string, args ...any) {
	if v.counts == nil {
		v.counts, v.examples = map[string]int{}, map[string][]string{}
	}
	v.counts[kind]++
	if len(v.examples[kind]) < maxExamples {
		v.examples[kind] = append(v.examples[kind], fmt.Sprintf(format, args...))
	}
}

func (v *violations) list() []string {
	kinds := make([]string, 0, len(v.counts))
	for k := range v.counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := []string{}
	for _, k := range kinds {
		out = append(out, fmt.Sprintf("%s: %d (e.g. %s)", k, v.counts[k], strings.Join(v.examples[k], "; ")))
	}
	return out
}

// check compares the books with the ground truth (see README "Reliability").
func check(t truth) checkReport {
	c := &checker{rep: checkReport{InboxByStatus: map[string]int{}}, submitted: map[string][]erpEntry{},
		byName: map[string]erpEntry{}, parked: map[string]string{}, booked: map[string]bool{}}
	c.entries(t.Entries)
	c.inbox(t.Inbox)
	c.payments(t.Scenario)
	c.refunds(t.Scenario)
	rep := &c.rep
	rep.UnexpectedParked += checkParkedPayments(t.Scenario, c.booked, c.parked, &c.v)
	rep.InvoiceMismatches = checkInvoices(t.Scenario, c.submitted, c.booked, &c.v)
	rep.BookingsMismatches = checkBookings(t.Bookings, c.submitted, c.byName, &c.v)
	var bankActual int64
	for _, es := range c.submitted {
		for _, e := range es {
			if e.Type == "Receive" {
				bankActual += e.Received
			} else {
				bankActual -= e.Paid
			}
		}
	}
	rep.BankExpected, rep.BankActual, rep.ParkedAmount = money(c.bankExpected), money(bankActual), money(c.parkedAmount)
	rep.AmountDifference = money(bankActual - (c.bankExpected + c.parkedAmount))
	if rep.AmountDifference != 0 {
		c.v.add("amount difference", "bank side %s, expected %s (gross − fees − refunds) with parked items %s",
			razorpay.INR(bankActual).Decimal(), razorpay.INR(c.bankExpected).Decimal(), razorpay.INR(c.parkedAmount).Decimal())
	}
	rep.Violations = c.v.list()
	return *rep
}

// checker holds what the checks gather on their way.
type checker struct {
	rep       checkReport
	v         violations
	submitted map[string][]erpEntry // reference_no → submitted entries
	byName    map[string]erpEntry
	parked    map[string]string // business key → reason of a parked row
	booked    map[string]bool   // payment ids with a submitted receipt

	bankExpected, parkedAmount int64 // paise
}

// entries indexes ERPNext's entries and counts drafts and duplicates.
func (c *checker) entries(all []erpEntry) {
	for _, e := range all {
		c.byName[e.Name] = e
		switch e.Docstatus {
		case 1:
			c.submitted[e.ReferenceNo] = append(c.submitted[e.ReferenceNo], e)
		case 0:
			c.rep.DraftEntries++
			c.v.add("draft entries", "%s (reference_no %s)", e.Name, e.ReferenceNo)
		}
	}
	for ref, es := range c.submitted {
		if len(es) > 1 {
			c.rep.DuplicateEntries += len(es) - 1
			c.v.add("duplicate entries", "%s booked %d times", ref, len(es))
		}
	}
}

// inbox notes parked keys and counts dead and unfinished events.
func (c *checker) inbox(rows []inboxRow) {
	for _, r := range rows {
		c.rep.InboxByStatus[r.Status]++
		switch r.Status {
		case "parked":
			c.parked[r.Key] = r.LastError
		case "dead":
			c.rep.Dead++
			c.v.add("dead events", "%s %s %s: %s", r.EventID, r.Event, r.Key, shorten(r.LastError))
		case "pending", "processing":
			c.rep.NotFinished++
			c.v.add("events not finished", "%s %s %s is %s", r.EventID, r.Event, r.Key, r.Status)
		}
	}
}

// payments checks that every payment is booked or parked.
func (c *checker) payments(sc *scenario) {
	for _, p := range sc.Payments {
		c.rep.ReceiptsExpected++
		c.bankExpected += p.Amount - p.Fee
		switch {
		case len(c.submitted[p.ID]) > 0:
			c.rep.ReceiptsBooked++
			c.booked[p.ID] = true
		case c.parked[p.ID] != "":
			c.parkedAmount -= p.Amount - p.Fee
			c.rep.PaymentsParked++ // checkParkedPayments judges the reason
		default:
			c.rep.Missing++
			c.v.add("missing", "payment %s (%s) on %s: neither booked nor parked", p.ID, razorpay.INR(p.Amount).Decimal(), p.Invoice)
		}
	}
}

// The park reasons a refund may end in here: its payment's receipt is not booked
// (mapping.ReasonReceiptMissing), or its invoice has no credit note (mapping.ReasonNoCreditNote).
const (
	receiptMissing = "receipt not booked"
	noCreditNote   = "no credit note"
)

// refunds checks that refunds of booked payments are booked when they have a credit note and
// parked when not, and that refunds of payments that parked are parked for want of the receipt.
func (c *checker) refunds(sc *scenario) {
	for _, r := range sc.Refunds {
		c.bankExpected -= r.Amount
		receipt := c.booked[r.PaymentID]
		if r.CreditNote && receipt {
			c.rep.RefundsExpected++
		}
		why := c.parked[r.ID]
		switch {
		case len(c.submitted[r.ID]) > 0:
			c.rep.RefundsBooked++
			if !r.CreditNote || !receipt {
				c.v.add("refunds booked without a credit note or receipt", "%s of %s (credit note %v, receipt booked %v)", r.ID, r.PaymentID, r.CreditNote, receipt)
			}
		case why != "":
			c.parkedAmount += r.Amount
			switch {
			case !receipt && strings.HasPrefix(why, receiptMissing):
				c.rep.RefundsNoReceipt++
			case receipt && !r.CreditNote && strings.HasPrefix(why, noCreditNote):
				c.rep.RefundsParked++
			default:
				c.rep.UnexpectedParked++
				c.v.add("refunds parked unexpectedly", "%s of %s (credit note %v, receipt booked %v): %s", r.ID, r.PaymentID, r.CreditNote, receipt, shorten(why))
			}
		default:
			c.rep.Missing++
			c.v.add("missing", "refund %s (%s) of %s: neither booked nor parked", r.ID, razorpay.INR(r.Amount).Decimal(), r.PaymentID)
		}
	}
}

// settledReason starts the park reason of a payment whose invoice was paid in full by others
// (mapping.ReasonInvoiceSettled): the only park a receipt may end in here.
const settledReason = "invoice already settled"

// checkParkedPayments accepts a parked payment only when it parked because its invoice was
// already settled and the payments booked on that invoice do cover its total (an over-paid
// invoice of several payments: the last one to arrive finds nothing outstanding).
func checkParkedPayments(sc *scenario, booked map[string]bool, parked map[string]string, v *violations) int {
	bad := 0
	for _, inv := range sc.Invoices {
		var paid int64
		for _, p := range inv.Payments {
			if booked[p.ID] {
				paid += p.Amount
			}
		}
		for _, p := range inv.Payments {
			why, ok := parked[p.ID]
			if !ok || booked[p.ID] {
				continue
			}
			if !strings.HasPrefix(why, settledReason) || paid < inv.Total {
				bad++
				v.add("payments parked", "%s (%s) on %s (total %s, booked %s): %s", p.ID, razorpay.INR(p.Amount).Decimal(), inv.Name,
					razorpay.INR(inv.Total).Decimal(), razorpay.INR(paid).Decimal(), shorten(why))
			}
		}
	}
	return bad
}

// checkInvoices checks that each invoice's submitted receipts allocate exactly min(total, the
// payments of it that were booked).
func checkInvoices(sc *scenario, submitted map[string][]erpEntry, booked map[string]bool, v *violations) int {
	bad := 0
	for _, inv := range sc.Invoices {
		var paid, allocated int64
		for _, p := range inv.Payments {
			if booked[p.ID] {
				paid += p.Amount
			}
			for _, e := range submitted[p.ID] {
				allocated += e.Allocated[inv.Name]
			}
		}
		if want := min(inv.Total, paid); allocated != want {
			bad++
			v.add("invoice allocations", "%s: allocated %s, want min(total %s, paid %s) = %s", inv.Name,
				razorpay.INR(allocated).Decimal(), razorpay.INR(inv.Total).Decimal(), razorpay.INR(paid).Decimal(), razorpay.INR(want).Decimal())
		}
	}
	return bad
}

// checkBookings compares the bookings table with ERPNext: every booked row names a submitted
// entry with its business key as reference_no, every submitted entry has its booked row, and
// no claim is left in flight.
func checkBookings(rows []bookingRow, submitted map[string][]erpEntry, byName map[string]erpEntry, v *violations) int {
	bad := 0
	bookedName := map[string]string{}
	for _, b := range rows {
		switch b.State {
		case "booked":
			bookedName[b.Key] = b.Name
			e, ok := byName[b.Name]
			if !ok || e.Docstatus != 1 || e.ReferenceNo != b.Key {
				bad++
				v.add("bookings without their entry", "%s → %s %s (in ERPNext: found %v, docstatus %d, reference_no %q)",
					b.Key, b.Doctype, b.Name, ok, e.Docstatus, e.ReferenceNo)
			}
		case "in_flight":
			bad++
			v.add("bookings left in flight", "%s", b.Key)
		}
	}
	for ref, es := range submitted {
		for _, e := range es {
			if bookedName[ref] != e.Name {
				bad++
				v.add("entries without their booking", "%s %s (booking names %q)", ref, e.Name, bookedName[ref])
			}
		}
	}
	return bad
}

// shorten keeps error texts in the report short.
func shorten(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
