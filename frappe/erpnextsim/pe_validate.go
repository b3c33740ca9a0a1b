package erpnextsim

import (
	"fmt"
	"strings"
)

// validatePE runs the insert/save pipeline of §3.2 on pe (a private copy),
// filling computed fields (§3.3). name is the document's (future) name, used
// in MandatoryError. The order of the steps decides which error comes first.
func (pes *paymentEntries) validatePE(c *call, pe *record, name string, isNew bool) *fErr {
	if e := pes.links.validateLinks(pe, false); e != nil {
		return e
	}
	setDefault(pe, "company", pes.company)
	setDefault(pe, "posting_date", pes.db.today())
	setDefault(pe, "naming_series", "ACC-PAY-.YYYY.-")
	setDefault(pe, "payment_order_status", "Initiated")
	setDefault(pe, "is_opening", "No")
	for _, k := range []string{"book_advance_payments_in_separate_party_account", "reconcile_on_advance_payment_date", "apply_tax_withholding_amount", "custom_remarks"} {
		setDefault(pe, k, int64(0))
	}
	company := pes.db.get("Company", pe.str("company"))
	if company == nil {
		return throw("Could not find Company: " + pe.str("company")).as("LinkValidationError")
	}
	pe.f["company"] = company.name()
	if pe.str("payment_type") == "Internal Transfer" {
		return pes.validateInternalTransfer(c, pe, company, name) // internal_transfer.go
	}
	firstInv, e := pes.peMissingValues(c, pe, company, isNew)
	if e != nil {
		return e
	}
	companyCur := company.str("default_currency")
	if e := peRates(pe, companyCur, firstInv); e != nil {
		return e
	}
	if e := pes.peReferenceDocs(pe); e != nil {
		return e
	}
	// V7 set_amounts (received overwritten for same-currency after the mandatory check)
	fromCur, toCur := pe.str("paid_from_account_currency"), pe.str("paid_to_account_currency")
	setAmounts(pe, pe.str("payment_type"), fromCur != "" && fromCur == toCur, companyCur)
	// V8 clear_unallocated_reference_document_rows
	var kept []*record
	for _, row := range pe.rows("references") {
		if row.dec("allocated_amount") != 0 {
			kept = append(kept, row)
		}
	}
	pe.f["references"] = kept
	if e := pes.peChecks(c, pe, companyCur); e != nil {
		return e
	}
	peFinish(pe, companyCur)
	// F framework checks
	if e := validateMandatory(pe, name, nil); e != nil {
		return e
	}
	for _, k := range []string{"reference_no", "party_name", "title", "contact_email"} {
		if v := pe.str(k); len([]rune(v)) > 140 {
			return throw(fmt.Sprintf("%s %s: '<strong>%s</strong>' (%s) will get truncated, as max characters allowed is 140",
				peDT, name, pe.meta().field(k).label, v)).as("CharacterLengthExceededError")
		}
	}
	return nil
}

// peSides names the party-account and bank-account fields for a payment type.
func peSides(pt string) (party, bank string) {
	if pt == "Pay" {
		return "paid_to", "paid_from"
	}
	return "paid_from", "paid_to"
}

// peRates is V3 (payment type) and V5 (exchange rates, then "… is mandatory").
func peRates(pe *record, companyCur string, firstInv *record) *fErr {
	pt := pe.str("payment_type")
	if pt != "Receive" && pt != "Pay" {
		return erpThrow("Payment Type must be one of Receive, Pay and Internal Transfer")
	}
	fromCur, toCur := pe.str("paid_from_account_currency"), pe.str("paid_to_account_currency")
	if pe.str("paid_from") != "" {
		if fromCur == companyCur {
			pe.f["source_exchange_rate"] = units(1)
		} else if pe.dec("source_exchange_rate") == 0 && firstInv != nil {
			pe.f["source_exchange_rate"] = firstInv.dec("conversion_rate")
		}
	}
	if toCur != "" && toCur == fromCur {
		pe.f["target_exchange_rate"] = pe.dec("source_exchange_rate")
	} else if toCur == companyCur {
		pe.f["target_exchange_rate"] = units(1)
	}
	for _, k := range []struct{ f, label string }{{"paid_amount", "Paid Amount"}, {"received_amount", "Received Amount"},
		{"source_exchange_rate", "Source Exchange Rate"}, {"target_exchange_rate", "Target Exchange Rate"}} {
		if pe.dec(k.f) == 0 {
			return erpThrow(k.label + " is mandatory")
		}
	}
	return nil
}

// peReferenceDocs is V6: each allocated row must reference a submitted
// Sales Invoice of the party, booked on the party account.
func (pes *paymentEntries) peReferenceDocs(pe *record) *fErr {
	partyField, _ := peSides(pe.str("payment_type"))
	partyAccount := pe.str(partyField)
	for _, row := range pe.rows("references") {
		if row.dec("allocated_amount") == 0 {
			continue
		}
		dt, dn := row.str("reference_doctype"), row.str("reference_name")
		switch dt {
		case "Sales Invoice":
		case "Sales Order", "Journal Entry", "Dunning", "Payment Entry":
			return notModelled("references to " + dt)
		default:
			return erpThrow("Reference Doctype must be one of 'Sales Order', 'Sales Invoice', 'Journal Entry', 'Dunning' or 'Payment Entry'")
		}
		inv := pes.db.get(dt, dn)
		if inv == nil {
			return erpThrow(dt + " " + dn + " does not exist")
		}
		if inv.str("customer") != pe.str("party") {
			return erpThrow(dt + " " + dn + " is not associated with Customer " + pe.str("party"))
		}
		if inv.str("debit_to") != partyAccount {
			return erpThrow(dt + " " + dn + " is associated with " + inv.str("debit_to") + ", but Party Account is " + partyAccount)
		}
		if inv.docstatus() != 1 {
			return erpThrow(dt + " " + dn + " must be submitted")
		}
	}
	return nil
}

// peChecks are V9 (bank reference), V10 (title, remarks), V11 (duplicate
// rows), V12 (negative outstanding) and V14 (latest outstanding, §3.7 view).
func (pes *paymentEntries) peChecks(c *call, pe *record, companyCur string) *fErr {
	pt := pe.str("payment_type")
	_, bankField := peSides(pt)
	if pe.str(bankField+"_account_type") == "Bank" && (pe.str("reference_no") == "" || pe.str("reference_date") == "") {
		return erpThrow("Reference No and Reference Date is mandatory for Bank transaction")
	}
	pe.f["title"] = pe.str("party_name")
	if pe.int("custom_remarks") == 0 {
		pe.f["remarks"] = peRemarks(pe, pt, companyCur)
	}
	seenRows := map[string]bool{}
	for i, row := range pe.rows("references") {
		key := strings.ToLower(row.str("reference_doctype") + "\x00" + row.str("reference_name") + "\x00" + row.str("payment_term") + "\x00" + row.str("payment_request"))
		if seenRows[key] {
			return erpThrow(fmt.Sprintf("Row #%d: Duplicate entry in References %s %s", i+1, row.str("reference_doctype"), row.str("reference_name")))
		}
		seenRows[key] = true
	}
	var sumAlloc dec
	for _, row := range pe.rows("references") {
		sumAlloc += row.dec("allocated_amount")
	}
	if sumAlloc < 0 && pt == "Receive" {
		return erpThrow("Cannot receive from customer against negative outstanding").withTitle("Incorrect Payment Type")
	}
	if e := pes.requests.checkPaymentRequests(pe); e != nil {
		return e
	}
	pes.terms.splitNotice(c, pe)
	for i, row := range pe.rows("references") {
		inv := pes.db.get("Sales Invoice", row.str("reference_name"))
		if inv == nil {
			continue
		}
		latest := c.outstanding(inv)
		alloc := row.dec("allocated_amount")
		if pes.terms.termBased(inv) {
			// validate_allocated_amount_with_latest_data compares a term-based invoice term by term
			if row.str("payment_term") == "" {
				return erpThrow(fmt.Sprintf("<strong>%s</strong> has Payment Term based allocation enabled. Select a Payment Term for Row #<strong>%d</strong> in Payment References section",
					row.str("reference_name"), i+1))
			}
			if t := c.termOutstanding(inv, row.str("payment_term")); t < latest {
				latest = t
			}
			if latest < 0 {
				latest = 0
			}
		}
		if latest == 0 {
			return erpThrow("Sales Invoice " + row.str("reference_name") + " has already been fully paid.")
		}
		if (alloc > 0 && alloc > latest) || (alloc < 0 && alloc < latest) {
			return erpThrow(fmt.Sprintf("Row #%d: Allocated Amount cannot be greater than outstanding amount.", i+1))
		}
	}
	return nil
}

// peFinish is V16: status from docstatus, amounts in words, empty tables.
func peFinish(pe *record, companyCur string) {
	pe.f["status"] = map[int64]string{0: "Draft", 1: "Submitted", 2: "Cancelled"}[pe.docstatus()]
	wordsAmount := pe.dec("base_paid_amount")
	if pe.str("payment_type") == "Pay" {
		wordsAmount = pe.dec("base_received_amount")
	}
	pe.f["base_in_words"] = moneyInWords(wordsAmount, companyCur)
	pe.f["in_words"] = moneyInWords(wordsAmount, companyCur)
	for _, t := range []string{"taxes", "deductions", "references"} {
		if _, ok := pe.f[t]; !ok {
			pe.f[t] = []*record{}
		}
	}
	for _, row := range pe.rows("deductions") {
		setDefault(row, "is_exchange_gain_loss", int64(0))
	}
}

func setDefault(r *record, k string, v any) {
	if cur, ok := r.f[k]; !ok || cur == nil || cur == "" {
		r.f[k] = v
	}
}

// refDetails overwrites a reference row from its invoice (§3.1: values a
// client sends for these are ignored).
func (pes *paymentEntries) refDetails(c *call, row, inv *record) {
	total := inv.dec("rounded_total")
	if total == 0 {
		total = inv.dec("grand_total")
	}
	rate := units(1)
	if inv.str("party_account_currency") != inv.str("currency") {
		total = inv.dec("base_rounded_total")
		if total == 0 {
			total = inv.dec("base_grand_total")
		}
	} else if inv.str("currency") != DefaultCurrency {
		rate = inv.dec("conversion_rate")
	}
	row.f["due_date"] = inv.f["due_date"]
	row.f["total_amount"] = total
	row.f["outstanding_amount"] = c.outstanding(inv)
	row.f["exchange_rate"] = rate
	row.f["account"] = inv.str("debit_to")
	for _, k := range []string{"payment_term_outstanding", "exchange_gain_loss", "payment_request_outstanding"} {
		setDefault(row, k, dec(0))
	}
	if pr := pes.db.get(prDT, row.str("payment_request")); pr != nil && row.str("payment_request") != "" {
		row.f["payment_request_outstanding"] = pr.dec("outstanding_amount")
	}
}

// setAmounts is §3.3: received = paid for same-currency accounts, base
// amounts rounded to 2 decimals (banker's), totals, unallocated, difference.
func setAmounts(pe *record, pt string, sameCurrency bool, companyCur string) {
	src, tgt := pe.dec("source_exchange_rate"), pe.dec("target_exchange_rate")
	if sameCurrency {
		pe.f["received_amount"] = pe.dec("paid_amount")
		if pe.intLit != nil {
			pe.intLit["received_amount"] = pe.intLit["paid_amount"]
		}
	}
	paid, received := pe.dec("paid_amount"), pe.dec("received_amount")
	basePaid, baseReceived := paid.mul(src).round(2), received.mul(tgt).round(2)
	pe.f["base_paid_amount"], pe.f["base_received_amount"] = basePaid, baseReceived
	var alloc, baseAlloc dec
	for _, row := range pe.rows("references") {
		a := row.dec("allocated_amount")
		alloc += a
		baseAlloc += baseAllocated(pe, row, companyCur)
	}
	alloc, baseAlloc = alloc.abs(), baseAlloc.abs()
	pe.f["total_allocated_amount"], pe.f["base_total_allocated_amount"] = alloc, baseAlloc
	var ded dec
	for _, d := range pe.rows("deductions") {
		ded += d.dec("amount")
	}
	var unalloc dec
	switch pt {
	case "Receive":
		if baseAlloc < baseReceived+ded && alloc < paid+ded.div(src) {
			unalloc = (baseReceived + ded - baseAlloc).div(src)
		}
	case "Pay":
		if baseAlloc < basePaid-ded && alloc < received+ded.div(tgt) {
			unalloc = (basePaid - ded - baseAlloc).div(tgt)
		}
	}
	unalloc = unalloc.round(2)
	pe.f["unallocated_amount"] = unalloc
	var diff dec
	if pt == "Receive" {
		diff = baseAlloc + unalloc.mul(src) - baseReceived
	} else {
		diff = basePaid - (baseAlloc + unalloc.mul(tgt))
	}
	pe.f["difference_amount"] = (diff - ded).round(2)
	pe.f["paid_amount_after_tax"] = paid.round(2)
	pe.f["base_paid_amount_after_tax"] = paid.round(2).mul(src).round(2)
	pe.f["received_amount_after_tax"] = received.round(2)
	pe.f["base_received_amount_after_tax"] = received.round(2).mul(tgt).round(2)
	pe.f["base_total_taxes_and_charges"], pe.f["total_taxes_and_charges"] = dec(0), dec(0)
}

// pyStr is Python's str() of a field value: an integer literal sent in this
// request stays "1000", anything stored reads like a float ("1000.0").
func pyStr(r *record, k string) string {
	if r.intLit[k] {
		return r.dec(k).plain()
	}
	return r.dec(k).py()
}

// peRemarks builds the automatic remarks of a Payment Entry (recorded text).
func peRemarks(pe *record, pt, companyCur string) string {
	var lines []string
	if pt == "Receive" {
		lines = append(lines, fmt.Sprintf("Amount %s %s received from %s", pe.str("paid_from_account_currency"), pyStr(pe, "paid_amount"), pe.str("party")))
	} else {
		lines = append(lines, fmt.Sprintf("Amount %s %s to %s", pe.str("paid_to_account_currency"), pyStr(pe, "received_amount"), pe.str("party"))) // recording 41-refund-pay-negative-allocation-submitted
	}
	if pe.str("reference_no") != "" {
		lines = append(lines, fmt.Sprintf("Transaction reference no %s dated %s", pe.str("reference_no"), pe.str("reference_date")))
	}
	partyField, _ := peSides(pt)
	partyCur := pe.str(partyField + "_account_currency")
	for _, row := range pe.rows("references") {
		lines = append(lines, fmt.Sprintf("Amount %s %s against %s %s", partyCur, pyStr(row, "allocated_amount"), row.str("reference_doctype"), row.str("reference_name")))
	}
	for _, d := range pe.rows("deductions") {
		lines = append(lines, fmt.Sprintf("Amount %s %s deducted against %s", companyCur, pyStr(d, "amount"), d.str("account")))
	}
	return strings.Join(lines, "\n")
}
