package erpnextsim

import "time"

// salesInvoices is the Sales Invoice doctype: its defaults and validation (credit notes and
// payment schedules included), submit and cancel with their GL, and the status by date.
type salesInvoices struct {
	db      *store
	ledger  *ledger
	links   *links
	parties *parties
	terms   *paymentTerms
	company string
	now     func() time.Time
}

const siDT = "Sales Invoice"

// insertSalesInvoice is POST /api/resource/Sales Invoice: customer, items
// [{item_code, qty, rate}], optional due_date, currency (+ conversion_rate),
// posting_date, docstatus 1 to submit. Totals are Σ qty×rate; outstanding is
// the rounded grand total (spec §4). Taxes, returns and payment terms are not
// modelled.
func (sis *salesInvoices) insertSalesInvoice(c *call, body map[string]any) (*fErr, step) {
	si := fromBody(siDT, body, nil)
	ds := si.docstatus()
	if ds == 2 {
		_, e := docstatusTransition(0, 2)
		return e, nil
	}
	name := sis.db.clientName(body)
	if c.fixedName != "" {
		name = c.fixedName
	}
	display := name
	if display == "" {
		display = sis.db.seriesName("ACC-SINV-", false)
	}
	if e := sis.validateSI(c, si, display, true); e != nil {
		return e, nil
	}
	if name != "" && sis.db.get(siDT, name) != nil {
		return duplicateName(siDT, name), nil
	}
	if ds == 1 {
		if e := sis.ledger.checkFiscalYear(si.str("posting_date"), si.str("company")); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		n := name
		if n == "" {
			n = sis.db.seriesName("ACC-SINV-", true)
		} else {
			sis.db.noteName("ACC-SINV-", n)
		}
		sis.db.stampNew(si, n, c.user)
		sis.db.put(si)
		if ds == 1 {
			sis.applySubmitSI(c, si)
		}
		out := renderUnsaved(si, c.keepNulls(), "items")
		if ds == 1 {
			preLedger(out)
		}
		return out
	}
}

// updateSalesInvoice handles PUT: save a draft, submit, cancel (refused while
// a live Payment Entry references the invoice).
func (sis *salesInvoices) updateSalesInvoice(c *call, cur *record, body map[string]any) (*fErr, step) {
	to := cur.docstatus()
	if v, ok := body["docstatus"]; ok {
		to = int64(cint(v))
	}
	action, e := docstatusTransition(cur.docstatus(), to)
	if e != nil {
		return e, nil
	}
	switch action {
	case "cancel":
		if pe := sis.linkedEntry(cur.name(), func(pe *record) bool { return pe.docstatus() == 1 }); pe != nil {
			return throw("Cannot delete or cancel because Sales Invoice " + cur.name() + " is linked with Payment Entry " + pe.name()).as("LinkExistsError"), nil
		}
		return nil, func() any {
			cur.f["docstatus"] = int64(2)
			cur.f["status"] = "Cancelled"
			sis.db.touch(cur, c.user)
			sis.db.stampRows(cur, cur.str("modified"), c.user)
			sis.ledger.cancelGL(siDT, cur.name())
			return cur.render(c.keepNulls())
		}
	case "update_after_submit":
		si := fromBody(siDT, body, cur)
		if e := updateAfterSubmit(cur, si); e != nil {
			return e, nil
		}
		return nil, func() any {
			sis.db.touch(si, c.user)
			sis.db.put(si)
			return si.render(c.keepNulls())
		}
	}
	si := fromBody(siDT, body, cur)
	si.f["docstatus"] = to
	if e := sis.validateSI(c, si, cur.name(), true); e != nil {
		return e, nil
	}
	if to == 1 {
		if e := sis.ledger.checkFiscalYear(si.str("posting_date"), si.str("company")); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		sis.db.touch(si, c.user)
		sis.db.stampRows(si, si.str("modified"), c.user)
		sis.db.put(si)
		if to == 1 {
			sis.applySubmitSI(c, si)
		}
		return si.render(c.keepNulls())
	}
}

// applySubmitSI posts the invoice's ledger: receivable debit, income credit,
// rounding difference to the round-off account.
func (sis *salesInvoices) applySubmitSI(c *call, si *record) {
	rate := si.dec("conversion_rate")
	against := si.name()
	if orig := sis.returnOriginal(si); orig != nil {
		against = orig.name()
		orig.f["outstanding_amount"] = orig.dec("outstanding_amount") + partyTotal(si)
		sis.db.touch(orig, c.user)
		orig.f["status"] = sis.siStatus(orig)
	}
	lines := []glLine{{account: si.str("debit_to"), partyType: "Customer", party: si.str("customer"),
		debit:    si.dec("base_rounded_total") + b2d(si.dec("base_rounded_total") == 0)*si.dec("base_grand_total"),
		debitAcc: partyTotal(si), againstType: siDT, againstNo: against, against: IncomeAccount}}
	for _, it := range si.rows("items") {
		lines = append(lines, glLine{account: it.str("income_account"), credit: it.dec("amount").mul(rate).round(2),
			creditAcc: it.dec("amount").mul(rate).round(2), against: si.str("customer"), costCenter: it.str("cost_center")})
	}
	if adj := si.dec("base_rounding_adjustment"); adj != 0 {
		// Cr Round Off the rounding up, Dr it the rounding down (postGL turns the negative
		// credit), on the company's round-off account and cost center (81-*-gl-entries)
		acct, cc := "Round Off - EC", CostCenter
		if co := sis.db.get("Company", si.str("company")); co != nil {
			acct, cc = co.str("round_off_account"), co.str("round_off_cost_center")
		}
		lines = append(lines, glLine{account: acct, credit: adj, creditAcc: adj, against: si.str("customer"), costCenter: cc})
	}
	sis.ledger.postGL(siDT, si, si.str("posting_date"), lines, c.user)
	si.f["status"] = sis.siStatus(si)
}

func b2d(b bool) dec { return dec(b2i(b)) }

// siStatus is the Sales Invoice status of spec §4, first match wins; Overdue
// (from the payment schedule, see overdue) before Partly Paid.
func (sis *salesInvoices) siStatus(si *record) string {
	switch si.docstatus() {
	case 0:
		return "Draft"
	case 2:
		return "Cancelled"
	}
	if si.int("is_return") == 1 {
		return "Return"
	}
	out := si.dec("outstanding_amount")
	total := si.dec("rounded_total")
	if si.int("disable_rounded_total") == 1 || total == 0 {
		total = si.dec("grand_total")
	}
	if si.str("party_account_currency") != si.str("currency") {
		total = si.dec("base_rounded_total")
		if si.int("disable_rounded_total") == 1 || total == 0 {
			total = si.dec("base_grand_total")
		}
	}
	today := sis.db.today()
	switch {
	case overdue(si, total, out, today):
		return "Overdue"
	case out > 0 && out < total:
		return "Partly Paid"
	case out > 0:
		return "Unpaid"
	case out <= 0:
		return "Paid"
	}
	return "Submitted"
}

// refreshStatuses plays ERPNext's daily overdue job once per site day (checked at every
// request), so an invoice turns Overdue as the clock passes its due date (without touching
// modified). Within a day only writes change a status, and they recompute it themselves.
func (sis *salesInvoices) refreshStatuses() {
	today := sis.db.today()
	if today == sis.db.statusDay {
		return
	}
	sis.db.statusDay = today
	for _, si := range sis.db.docs[siDT] {
		if si.docstatus() == 1 {
			si.f["status"] = sis.siStatus(si)
		}
	}
}

// linkedEntry returns the Payment Entry with a reference row naming invoice that keep
// accepts, first by name (from the references.reference_name index); nil when none.
func (sis *salesInvoices) linkedEntry(invoice string, keep func(*record) bool) *record {
	var best *record
	for _, pe := range sis.db.lookup(peDT, "references.reference_name", indexKey(invoice)) {
		if keep(pe) && (best == nil || pe.name() < best.name()) {
			best = pe
		}
	}
	return best
}
