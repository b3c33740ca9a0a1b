package erpnextsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// paymentTerms is Payment Term and Payment Terms Template: the schedule an invoice takes from
// its template, term-wise allocation, and the paid amounts a Payment Entry moves.
type paymentTerms struct {
	db    *store
	links *links
}

// Payment terms (spec §3.1 references[].payment_term, §3.4 item 2, §3.8, §4),
// following erpnext v15 as read in the recorded 15.71.1 tree:
//   - controllers/accounts_controller.py set_payment_schedule / set_due_date: an invoice
//     with a Payment Terms Template gets one Payment Schedule row per term (amount =
//     grand total × portion, the last row taking the rounding rest, due = posting date +
//     credit days), and its due_date becomes the latest term's due date;
//   - payment_entry.py get_payment_entry / get_reference_as_per_payment_terms: when the
//     template has allocate_payment_based_on_payment_terms, one reference row per term
//     with an outstanding, allocated = the term's outstanding (payment_amount −
//     paid_amount), total_amount / outstanding_amount = the invoice's (or party_amount),
//     due_date = the invoice's;
//   - validate_allocated_amount_with_latest_data (V14): a row without payment_term on
//     such an invoice is refused first; a term with nothing left is "has already been
//     fully paid."; more than the term's outstanding is "Allocated Amount cannot be
//     greater than outstanding amount.";
//   - update_payment_schedule (on_submit / on_cancel): rows with a payment_term move that
//     term's paid_amount and outstanding by the allocated amount;
//   - sales_invoice.py is_overdue: Overdue when what was paid (total − outstanding) is
//     less than the schedule amounts already due (due_date before today).

// PaymentTermSpec is one term of a Payment Terms Template.
type PaymentTermSpec struct {
	Name           string // Payment Term name, e.g. "Advance 50"; created if missing
	InvoicePortion string // percentage of the invoice, decimal text, e.g. "50"
	CreditDays     int    // due date = invoice posting date + CreditDays ("Day(s) after invoice date")
	Description    string // optional
}

// PaymentTermsTemplateSpec describes a Payment Terms Template for
// AddPaymentTermsTemplate; attach it to an invoice with
// InvoiceSpec.PaymentTermsTemplate.
type PaymentTermsTemplateSpec struct {
	Name string // template name, e.g. "50-50"
	// AllocateByTerms is allocate_payment_based_on_payment_terms: get_payment_entry then
	// makes one reference row per term, and every Payment Entry row against such an
	// invoice must name its payment_term (§3.2 V14).
	AllocateByTerms bool
	Terms           []PaymentTermSpec // portions must add up to 100
}

// AddPaymentTermsTemplate creates a Payment Terms Template and the Payment
// Terms it names that do not exist yet.
func (s *Site) AddPaymentTermsTemplate(spec PaymentTermsTemplateSpec) error {
	if spec.Name == "" || len(spec.Terms) == 0 {
		return errors.New("erpnextsim: AddPaymentTermsTemplate needs Name and Terms")
	}
	var sum dec
	for _, t := range spec.Terms {
		p, err := parseDec(t.InvoicePortion)
		if err != nil || p <= 0 || t.Name == "" {
			return fmt.Errorf("erpnextsim: payment term %q: needs a name and a positive InvoicePortion", t.Name)
		}
		sum += p
	}
	if sum != units(100) {
		return fmt.Errorf("erpnextsim: payment terms of %q add up to %s%%, not 100%%", spec.Name, sum.plain())
	}
	s.db.mu.Lock()
	exists := s.db.get(pttDT, spec.Name) != nil
	s.db.mu.Unlock()
	if exists {
		return fmt.Errorf("erpnextsim: Payment Terms Template %q already exists", spec.Name)
	}
	var rows []any
	for _, t := range spec.Terms {
		term := map[string]any{"payment_term_name": t.Name, "invoice_portion": t.InvoicePortion, "description": t.Description,
			"due_date_based_on": "Day(s) after invoice date", "credit_days": json.Number(strconv.Itoa(t.CreditDays))}
		s.db.mu.Lock()
		missing := s.db.get("Payment Term", t.Name) == nil
		s.db.mu.Unlock()
		if missing {
			if _, err := s.run(func(c *call) (*fErr, step) { return s.terms.insertPaymentTerm(c, term) }); err != nil {
				return err
			}
		}
		row := map[string]any{"payment_term": t.Name}
		for k, v := range term {
			if k != "payment_term_name" {
				row[k] = v
			}
		}
		rows = append(rows, row)
	}
	body := map[string]any{"template_name": spec.Name, "allocate_payment_based_on_payment_terms": json.Number(strconv.Itoa(b2i(spec.AllocateByTerms))),
		"terms": rows}
	_, err := s.run(func(c *call) (*fErr, step) { return s.terms.insertPaymentTermsTemplate(c, body) })
	return err
}

const pttDT = "Payment Terms Template"

// templateSchedule builds an invoice's Payment Schedule from its template:
// amount = total × portion / 100 (rounded), the last row takes the rest.
func (tm *paymentTerms) templateSchedule(si *record, total, rate dec) []*record {
	tmpl := tm.db.get(pttDT, si.str("payment_terms_template"))
	if tmpl == nil {
		return nil
	}
	posting, err := time.Parse("2006-01-02", si.str("posting_date"))
	if err != nil {
		return nil
	}
	var out []*record
	var used dec
	terms := tmpl.rows("terms")
	for i, t := range terms {
		amount := total.mul(t.dec("invoice_portion")).div(units(100)).round(2)
		if i == len(terms)-1 {
			amount = total - used
		}
		used += amount
		base := amount.mul(rate).round(2)
		ps := newRecord("Payment Schedule")
		for k, v := range map[string]any{"payment_term": t.str("payment_term"), "description": t.str("description"),
			"due_date": posting.AddDate(0, 0, int(t.int("credit_days"))).Format("2006-01-02"), "invoice_portion": t.dec("invoice_portion"),
			"discount_type": "Percentage", "discount": dec(0), "payment_amount": amount, "outstanding": amount, "paid_amount": dec(0),
			"discounted_amount": dec(0), "base_payment_amount": base, "base_outstanding": base, "base_paid_amount": dec(0)} {
			ps.f[k] = v
		}
		out = append(out, ps)
	}
	return out
}

// termBased reports whether an invoice's template allocates payments by term.
func (tm *paymentTerms) termBased(inv *record) bool {
	t := tm.db.get(pttDT, inv.str("payment_terms_template"))
	return t != nil && t.int("allocate_payment_based_on_payment_terms") == 1
}

// scheduleRow is the invoice's Payment Schedule row of a payment term, nil if none.
func scheduleRow(inv *record, term string) *record {
	if term == "" {
		return nil
	}
	for _, ps := range inv.rows("payment_schedule") {
		if strings.EqualFold(ps.str("payment_term"), term) {
			return ps
		}
	}
	return nil
}

// termOutstanding is payment_amount − paid_amount of an invoice's term as a validation
// sees it (cached per call like c.outstanding, §3.7).
func (c *call) termOutstanding(inv *record, term string) dec {
	key := strings.ToLower(inv.name() + "\x00" + term)
	if v, ok := c.seen[key]; ok && c.stale {
		return v
	}
	var v dec
	if ps := scheduleRow(inv, term); ps != nil {
		v = ps.dec("payment_amount") - ps.dec("paid_amount")
	}
	c.seen[key] = v
	return v
}

// moveSchedule is update_payment_schedule: sign × allocated on the paid amount of
// every row's term (−1 on submit takes it off the outstanding, +1 on cancel).
func (tm *paymentTerms) moveSchedule(pe *record, sign dec) {
	for _, row := range pe.rows("references") {
		inv := tm.db.get(siDT, row.str("reference_name"))
		if inv == nil || row.str("reference_doctype") != siDT {
			continue
		}
		ps := scheduleRow(inv, row.str("payment_term"))
		if ps == nil {
			continue
		}
		a := row.dec("allocated_amount")
		base := a.mul(nz(inv.dec("conversion_rate"))).round(2)
		if inv.str("party_account_currency") != inv.str("currency") {
			base = a
		}
		ps.f["paid_amount"] = ps.dec("paid_amount") - sign*a
		ps.f["outstanding"] = ps.dec("outstanding") + sign*a
		ps.f["base_paid_amount"] = ps.dec("base_paid_amount") - sign*base
		ps.f["base_outstanding"] = ps.dec("base_outstanding") + sign*base
	}
}

// overdue is sales_invoice.py is_overdue: with a payment schedule, what was paid
// (total − outstanding) falls short of the amounts already due; without one, the
// due date has passed.
func overdue(si *record, total, out dec, today string) bool {
	if out <= 0 {
		return false
	}
	sched := si.rows("payment_schedule")
	if si.int("is_pos") == 1 || len(sched) == 0 {
		return si.str("due_date") < today
	}
	field := "payment_amount"
	if si.str("party_account_currency") != si.str("currency") {
		field = "base_payment_amount"
	}
	var payable dec
	for _, ps := range sched {
		if ps.str("due_date") < today {
			payable += ps.dec(field)
		}
	}
	return total-out < payable
}

// splitNotice is the alert validate_allocated_amount_with_latest_data leaves when it reads the
// latest outstanding of an invoice that allocates by payment term: get_outstanding_reference_
// documents splits it into one row per term with an outstanding and says so, once per
// referenced invoice (erpnext-recorded-connector/R09).
func (tm *paymentTerms) splitNotice(c *call, pe *record) {
	seen := map[string]bool{}
	for _, row := range pe.rows("references") {
		inv := tm.db.get(siDT, row.str("reference_name"))
		if inv == nil || row.str("reference_doctype") != siDT || seen[inv.name()] || !tm.termBased(inv) {
			continue
		}
		seen[inv.name()] = true
		n := 0
		for _, ps := range inv.rows("payment_schedule") {
			if ps.dec("outstanding") > 0 {
				n++
			}
		}
		if n > 1 {
			c.infos = append(c.infos, srvMsg{message: fmt.Sprintf("Splitting Sales Invoice <strong>%s</strong> into %d rows as per Payment Terms", inv.name(), n),
				title: "Message", alert: true})
		}
	}
}

var paymentTermFields = `
payment_term_name|Data|Payment Term Name||
invoice_portion|Float|Invoice Portion||
mode_of_payment|Link|Mode of Payment|Mode of Payment|
due_date_based_on|Select|Due Date Based On||
credit_days|Int|Credit Days||
credit_months|Int|Credit Months||
discount_type|Select|Discount Type||
discount|Float|Discount||
description|Data|Description||
`

var paymentTermsTemplateFields = `
template_name|Data|Template Name||
allocate_payment_based_on_payment_terms|Check|Allocate Payment Based On Payment Terms||
terms|Table|Payment Terms|Payment Terms Template Detail|r
`

var paymentTermsTemplateDetailFields = `
payment_term|Link|Payment Term|Payment Term|
description|Data|Description||
invoice_portion|Float|Invoice Portion||r
mode_of_payment|Link|Mode of Payment|Mode of Payment|
due_date_based_on|Select|Due Date Based On||r
credit_days|Int|Credit Days||
credit_months|Int|Credit Months||
discount_type|Select|Discount Type||
discount|Float|Discount||
`

func init() {
	register("Payment Term", paymentTermFields, nil)
	register(pttDT, paymentTermsTemplateFields, nil)
	register("Payment Terms Template Detail", paymentTermsTemplateDetailFields, func(m *meta) { m.child = true })
}
