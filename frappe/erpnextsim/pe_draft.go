package erpnextsim

// entryDrafts answers get_payment_entry: the draft Payment Entry ERPNext proposes for an
// invoice, split by Payment Request and payment term.
type entryDrafts struct {
	db       *store
	ledger   *ledger
	terms    *paymentTerms
	requests *paymentRequests
}

// getPaymentEntry is ERPNext's get_payment_entry for a Sales Invoice (§3.8,
// recordings 26-*, 57-*): an unsaved Payment Entry, nothing written.
// posting_date is the simulator's today; reference_no is not set; paid_to is
// the bank_account argument, else the company's default bank account; with
// party_amount the row's total/outstanding/allocated are party_amount too
// (recording 57, over the spec). A fully paid invoice yields a "Pay" entry
// with zero amounts. An invoice whose Payment Terms Template allocates by term
// gets one row per term with an outstanding (see payment_terms.go).
func (d *entryDrafts) getPaymentEntry(c *call) (*fErr, step) {
	dt, dn := c.str("dt"), c.str("dn")
	if dt != siDT {
		if metas[dt] == nil && !knownUnmodelled[dt] {
			return doctypeError(c, dt, "read"), nil
		}
		return notModelled("get_payment_entry for " + dt), nil
	}
	inv := d.db.get(dt, dn)
	if inv == nil {
		return notFound(dt, dn), nil
	}
	q := peQuery{user: c.user, inv: inv, company: d.db.get("Company", inv.str("company")), today: d.db.today(), out: inv.dec("outstanding_amount")}
	if v, ok := c.args["party_amount"]; ok && v != nil && str(v) != "" {
		q.partyAmount, q.hasPartyAmount = decOf(v), true
	}
	q.pt = "Receive"
	if q.out <= 0 {
		q.pt = "Pay"
	}
	q.bank = c.str("bank_account")
	if q.bank == "" {
		q.bank = q.company.str("default_bank_account")
	}
	if q.bank == "" {
		q.bank = q.company.str("default_cash_account")
	}
	q.refDate = c.str("reference_date")
	if q.refDate == "" {
		q.refDate = q.today
	}
	return nil, func() any { return d.draftPaymentEntry(q) }
}

// peQuery is what get_payment_entry was asked and what it read of the invoice and its company.
type peQuery struct {
	user, today, refDate string
	inv, company         *record
	out                  dec // the invoice's outstanding_amount
	partyAmount          dec
	hasPartyAmount       bool
	pt                   string // payment_type: Receive, or Pay for an invoice with nothing outstanding
	bank                 string // the bank or cash account of the entry
}

// draftPaymentEntry renders the unsaved Payment Entry of getPaymentEntry.
func (d *entryDrafts) draftPaymentEntry(q peQuery) any {
	pe := newRecord(peDT)
	amount := q.out.abs()
	if q.hasPartyAmount {
		amount = q.partyAmount.abs()
	}
	d.draftHeader(pe, q, amount)
	d.draftAccounts(pe, q)
	rowRate := units(1)
	if rate := q.inv.dec("conversion_rate"); q.inv.str("party_account_currency") != q.company.str("default_currency") && q.pt == "Receive" {
		// Bank in company currency, party in the invoice currency: valued at the invoice's
		// rate, no Currency Exchange record needed (recording 48-usd-get-payment-entry).
		base := amount.mul(rate).round(2)
		pe.f["source_exchange_rate"], rowRate = rate, rate
		for _, k := range []string{"base_paid_amount", "received_amount", "base_received_amount", "base_total_allocated_amount"} {
			pe.f[k] = base
		}
	}
	row := d.draftReference(q, rowRate)
	rows := []*record{row}
	if d.terms.termBased(q.inv) {
		rows = draftTermReferences(pe, q, row, amount, rowRate)
	}
	pe.f["references"] = d.requests.splitByPaymentRequests(rows, q.inv, q.pt)
	pe.f["__islocal"], pe.f["__unsaved"] = int64(1), int64(1)
	return pe.render(false)
}

// draftHeader sets the entry's own fields: party, amounts in one currency, no taxes.
func (d *entryDrafts) draftHeader(pe *record, q peQuery, amount dec) {
	inv := q.inv
	for k, v := range map[string]any{
		"owner": q.user, "docstatus": int64(0), "idx": int64(0), "naming_series": "ACC-PAY-.YYYY.-", "payment_type": q.pt,
		"payment_order_status": "Initiated", "posting_date": q.today, "company": inv.str("company"), "party_type": "Customer",
		"party": inv.str("customer"), "party_name": inv.str("customer_name"), "book_advance_payments_in_separate_party_account": int64(0),
		"reconcile_on_advance_payment_date": int64(0), "party_balance": d.ledger.balance("", "Customer", inv.str("customer"), q.today),
		"paid_amount": amount, "received_amount": amount, "base_paid_amount": amount, "base_received_amount": amount,
		"source_exchange_rate": units(1), "target_exchange_rate": units(1),
		"paid_amount_after_tax": dec(0), "base_paid_amount_after_tax": dec(0), "received_amount_after_tax": dec(0),
		"base_received_amount_after_tax": dec(0), "total_allocated_amount": amount, "base_total_allocated_amount": amount,
		"unallocated_amount": dec(0), "difference_amount": dec(0), "apply_tax_withholding_amount": int64(0),
		"base_total_taxes_and_charges": dec(0), "total_taxes_and_charges": dec(0), "reference_date": q.refDate,
		"status": "Draft", "custom_remarks": int64(0), "is_opening": "No", "taxes": []*record{}, "deductions": []*record{},
	} {
		pe.f[k] = v
	}
	if q.pt == "Pay" && !q.hasPartyAmount && q.out == 0 {
		pe.f["total_allocated_amount"], pe.f["base_total_allocated_amount"] = dec(0), dec(0)
	}
}

// draftAccounts sets paid_from and paid_to (the party's receivable and the bank, swapped for
// Pay) with their currency, type and balance.
func (d *entryDrafts) draftAccounts(pe *record, q peQuery) {
	partySide, bankSide := "paid_from", "paid_to"
	if q.pt == "Pay" {
		partySide, bankSide = "paid_to", "paid_from"
	}
	for side, acct := range map[string]string{partySide: q.inv.str("debit_to"), bankSide: q.bank} {
		a := d.db.get("Account", acct)
		if a == nil {
			continue
		}
		pe.f[side] = a.name()
		pe.f[side+"_account_currency"] = a.str("account_currency")
		if t := a.str("account_type"); t != "" {
			pe.f[side+"_account_type"] = t
		}
		pe.f[side+"_account_balance"] = d.ledger.balance(a.name(), "", "", q.today)
	}
}

// draftReference is the entry's one reference row: the whole invoice, or party_amount of it.
func (d *entryDrafts) draftReference(q peQuery, rowRate dec) *record {
	inv := q.inv
	row := newRecord("Payment Entry Reference")
	rowTotal := inv.dec("rounded_total")
	if rowTotal == 0 {
		rowTotal = inv.dec("grand_total")
	}
	rowOut, rowAlloc := q.out, q.out
	if q.hasPartyAmount {
		rowTotal, rowOut, rowAlloc = q.partyAmount, q.partyAmount, q.partyAmount
	}
	for k, v := range map[string]any{"docstatus": int64(0), "idx": int64(1), "reference_doctype": siDT, "reference_name": inv.name(),
		"due_date": inv.str("due_date"), "payment_term_outstanding": dec(0), "total_amount": rowTotal, "outstanding_amount": rowOut,
		"allocated_amount": rowAlloc, "exchange_rate": rowRate, "exchange_gain_loss": dec(0), "account": inv.str("debit_to"),
		"payment_request_outstanding": dec(0), "parentfield": "references", "parenttype": peDT, "__islocal": int64(1),
		"modified": d.db.peekStamp(), "modified_by": q.user} {
		row.f[k] = v
	}
	if q.out == 0 && !q.hasPartyAmount {
		row.f["exchange_rate"] = dec(0)
		delete(row.f, "account")
		delete(row.f, "modified")
		delete(row.f, "modified_by")
	}
	return row
}

// draftTermReferences is get_reference_as_per_payment_terms: one copy of row per term with an
// outstanding, allocating that term's outstanding whatever party_amount says (15.71.1 does not
// spread party_amount over the terms: the difference shows in difference_amount). It sets the
// entry's allocated totals, and for Receive its unallocated and difference amounts.
func draftTermReferences(pe *record, q peQuery, row *record, amount, rowRate dec) []*record {
	inv, company := q.inv, q.company
	var rows []*record
	var alloc dec
	for _, ps := range inv.rows("payment_schedule") {
		t := ps.dec("payment_amount") - ps.dec("paid_amount")
		if inv.str("currency") != company.str("default_currency") && inv.str("party_account_currency") == company.str("default_currency") {
			t = t.mul(inv.dec("conversion_rate")).round(2)
		}
		if t == 0 {
			continue
		}
		r := row.clone()
		r.f["payment_term"], r.f["payment_term_outstanding"], r.f["allocated_amount"] = ps.str("payment_term"), t, t
		rows = append(rows, r)
		alloc += t
	}
	pe.f["total_allocated_amount"] = alloc.abs()
	pe.f["base_total_allocated_amount"] = alloc.abs().mul(rowRate).round(2)
	if q.pt == "Receive" {
		var unalloc dec
		if alloc < amount {
			unalloc = amount - alloc
		}
		pe.f["unallocated_amount"] = unalloc
		pe.f["difference_amount"] = (pe.dec("base_total_allocated_amount") + unalloc.mul(rowRate) - pe.dec("base_received_amount")).round(2)
	}
	return rows
}
