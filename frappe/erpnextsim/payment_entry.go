package erpnextsim

import (
	"fmt"
	"strings"
)

// paymentEntries is the Payment Entry doctype: missing values and validation (V1-V14,
// internal transfers), submit and cancel with their GL, exchange gain or loss, and the
// outstanding, schedules and Payment Requests of the invoices they pay.
type paymentEntries struct {
	db       *store
	ledger   *ledger
	links    *links
	parties  *parties
	invoices *salesInvoices
	terms    *paymentTerms
	requests *paymentRequests
	bankTxns *bankTransactions
	company  string
}

const peDT = "Payment Entry"

// insertPaymentEntry is POST /api/resource/Payment Entry (items 7, 8): link
// check, validate (§3.2 V1–V16), framework mandatory, duplicate name, and with
// "docstatus": 1 the submit checks S1, S2 and effects (§3.4) in one call.
func (pes *paymentEntries) insertPaymentEntry(c *call, body map[string]any) (*fErr, step) {
	pe := fromBody(peDT, body, nil)
	ds := pe.docstatus()
	if ds == 2 {
		_, e := docstatusTransition(0, 2)
		return e, nil
	}
	name := pes.db.clientName(body)
	if e := pes.db.claimName(c, peDT, name); e != nil {
		return e, nil
	}
	display := name
	if display == "" {
		display = pes.db.seriesName("ACC-PAY-", false)
	}
	pe.f["docstatus"] = ds
	if e := pes.validatePE(c, pe, display, true); e != nil {
		return e, nil
	}
	if name != "" && pes.db.get(peDT, name) != nil {
		return duplicateName(peDT, name), nil
	}
	if ds == 1 {
		if e := pes.checkSubmitPE(c, pe, display); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		n := name
		if n == "" {
			n = pes.db.seriesName("ACC-PAY-", true)
		} else {
			pes.db.noteName("ACC-PAY-", n)
		}
		pes.db.stampNew(pe, n, c.user)
		pes.db.put(pe)
		if ds == 1 {
			pes.applySubmitPE(c, pe)
		}
		return renderUnsaved(pe, c.keepNulls(), "references", "deductions")
	}
}

// updatePaymentEntry is PUT /api/resource/Payment Entry/{name} (§1.7):
// save, submit ({"docstatus":1}), cancel ({"docstatus":2}), update after submit.
func (pes *paymentEntries) updatePaymentEntry(c *call, cur *record, body map[string]any) (*fErr, step) {
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
		touchInvoices(c, cur)
		return nil, func() any {
			pes.applyCancelPE(c, cur)
			return cur.render(c.keepNulls())
		}
	case "update_after_submit":
		pe := fromBody(peDT, body, cur)
		if e := updateAfterSubmit(cur, pe); e != nil {
			return e, nil
		}
		return nil, func() any {
			pes.db.touch(pe, c.user)
			pes.db.stampRows(pe, pe.str("modified"), c.user)
			pes.db.put(pe)
			return pe.render(c.keepNulls())
		}
	}
	pe := fromBody(peDT, body, cur)
	pe.f["docstatus"] = to
	if e := pes.validatePE(c, pe, cur.name(), false); e != nil {
		return e, nil
	}
	if to == 1 {
		if e := pes.checkSubmitPE(c, pe, cur.name()); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		pes.db.touch(pe, c.user)
		pes.db.stampRows(pe, pe.str("modified"), c.user)
		pes.db.put(pe)
		if to == 1 {
			pes.applySubmitPE(c, pe)
		}
		return pe.render(c.keepNulls())
	}
}

// updateAfterSubmit refuses changes to fields without allow_on_submit (§1.7,
// recording 23-update-after-submit-*).
func updateAfterSubmit(cur, next *record) *fErr {
	for _, f := range cur.meta().fields {
		if f.typ == ftTable || f.allowOnSubmit {
			continue
		}
		a, b := display(cur.f[f.name]), display(next.f[f.name])
		if a != b {
			return throw(" Not allowed to change <strong>" + f.label + "</strong> after submission from <strong>" + a + "</strong> to <strong>" + b + "</strong>").
				as("UpdateAfterSubmitError").withTitle("Cannot Update After Submit")
		}
	}
	return nil
}

func display(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case dec:
		return x.py()
	case int64:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// outstanding is the invoice outstanding a validation sees. With
// NoInvoiceLock the commit phase reuses what the first validation read
// (§3.7: no lock is taken on the invoice while a Payment Entry validates).
func (c *call) outstanding(inv *record) dec {
	key := strings.ToLower(inv.name())
	if v, ok := c.seen[key]; ok && c.stale {
		return v
	}
	v := inv.dec("outstanding_amount")
	c.seen[key] = v
	return v
}

func (c *call) keepNulls() bool { return c.nulls }

// checkSubmitPE are the on_submit checks of §3.2 in ERPNext's order: S1
// difference, then S2 (checkGL) on the ledger lines the entry would post.
// name is the entry's (future) name, shown in the GL Entry messages.
func (pes *paymentEntries) checkSubmitPE(c *call, pe *record, name string) *fErr {
	touchInvoices(c, pe)
	if pe.dec("difference_amount") != 0 {
		return erpThrow("Difference Amount must be zero")
	}
	var deductions []string
	for _, d := range pe.rows("deductions") {
		if d.dec("amount") != 0 {
			deductions = append(deductions, d.str("account"))
		}
	}
	return pes.ledger.checkGL(c, peDT, name, pe.str("company"), pe.str("posting_date"), deductions, peGLLines(pe))
}

// applySubmitPE is §3.4: invoice outstanding −= allocated (rounded to the
// ledger's 2 decimals), invoice modified bumped and status recomputed, ledger
// posted, status Submitted. Rows show the invoice outstanding afterwards.
func (pes *paymentEntries) applySubmitPE(c *call, pe *record) {
	pes.moveOutstanding(c, pe, -1)
	pes.terms.moveSchedule(pe, -1)
	pes.requests.movePaymentRequests(c, pe, -1)
	lines := peGLLines(pe)
	pes.ledger.postGL(peDT, pe, pe.str("posting_date"), lines, c.user)
	pes.bookExchangeGainLoss(c, pe)
	pe.f["status"] = "Submitted"
}

// peGLLines are the ledger lines of a Payment Entry in ERPNext's build_gl_map
// order: party lines (one per reference row, then the unallocated part), the
// bank line, the deduction lines.
func peGLLines(pe *record) []glLine {
	pt := pe.str("payment_type")
	if pt == "Internal Transfer" {
		return internalTransferGLLines(pe) // internal_transfer.go
	}
	var lines []glLine
	party, partyType := pe.str("party"), pe.str("party_type")
	unalloc := pe.dec("unallocated_amount")
	if pt == "Receive" {
		for _, row := range pe.rows("references") {
			a := row.dec("allocated_amount")
			lines = append(lines, glLine{account: pe.str("paid_from"), partyType: partyType, party: party,
				credit: baseAllocated(pe, row, DefaultCurrency), creditAcc: a, against: pe.str("paid_to"),
				againstType: row.str("reference_doctype"), againstNo: row.str("reference_name")})
		}
		if unalloc != 0 {
			lines = append(lines, glLine{account: pe.str("paid_from"), partyType: partyType, party: party,
				credit: unalloc.mul(pe.dec("source_exchange_rate")).round(2), creditAcc: unalloc, against: pe.str("paid_to")})
		}
		lines = append(lines, glLine{account: pe.str("paid_to"), debit: pe.dec("base_received_amount"),
			debitAcc: pe.dec("received_amount"), against: party})
	} else {
		// one party line per reference row, against its document (erpnext-recorded-connector/
		// H04: the refund's Debtors row names the credit note), then the unallocated part
		for _, row := range pe.rows("references") {
			a := row.dec("allocated_amount").abs()
			lines = append(lines, glLine{account: pe.str("paid_to"), partyType: partyType, party: party,
				debit: baseAllocated(pe, row, DefaultCurrency).abs(), debitAcc: a, against: pe.str("paid_from"),
				againstType: row.str("reference_doctype"), againstNo: row.str("reference_name")})
		}
		if unalloc != 0 {
			lines = append(lines, glLine{account: pe.str("paid_to"), partyType: partyType, party: party,
				debit: unalloc.mul(pe.dec("target_exchange_rate")).round(2), debitAcc: unalloc, against: pe.str("paid_from")})
		}
		lines = append(lines, glLine{account: pe.str("paid_from"), credit: pe.dec("base_paid_amount"), creditAcc: pe.dec("paid_amount"), against: party})
	}
	// deductions carry their row's cost center (H03; the round-off rows of 81-*-gl-entries)
	for _, d := range pe.rows("deductions") {
		lines = append(lines, glLine{account: d.str("account"), debit: d.dec("amount"), debitAcc: d.dec("amount"), against: party,
			costCenter: d.str("cost_center")})
	}
	return lines
}

// applyCancelPE is §3.5: outstanding and status restored, invoice modified
// bumped, ledger entries cancelled, status Cancelled.
func (pes *paymentEntries) applyCancelPE(c *call, pe *record) {
	pe.f["docstatus"] = int64(2)
	pe.f["status"] = "Cancelled"
	pes.db.touch(pe, c.user)
	pes.db.stampRows(pe, pe.str("modified"), c.user)
	pes.moveOutstanding(c, pe, +1)
	pes.terms.moveSchedule(pe, +1)
	pes.requests.movePaymentRequests(c, pe, +1)
	pes.ledger.cancelGL(peDT, pe.name())
	pes.cancelExchangeGainLoss(c, pe)
	pes.bankTxns.removeFromBankTransactions(c, peDT, pe.name()) // bank_transaction.go
}

// touchInvoices records the Sales Invoices a submit or cancel of pe updates (their outstanding).
func touchInvoices(c *call, pe *record) {
	for _, row := range pe.rows("references") {
		if row.str("reference_doctype") == siDT {
			c.touchRow(siDT, row.str("reference_name"))
		}
	}
}

func nz(d dec) dec {
	if d == 0 {
		return units(1)
	}
	return d
}

// moveOutstanding adds sign × allocated to every referenced invoice's live
// outstanding (never to a stale copy: concurrent entries both apply).
func (pes *paymentEntries) moveOutstanding(c *call, pe *record, sign dec) {
	for _, row := range pe.rows("references") {
		inv := pes.db.get(row.str("reference_doctype"), row.str("reference_name"))
		if inv == nil || row.str("reference_doctype") != "Sales Invoice" {
			continue
		}
		delta := row.dec("allocated_amount").mul(nz(row.dec("exchange_rate"))).round(2)
		if inv.str("party_account_currency") == inv.str("currency") && inv.str("currency") != DefaultCurrency {
			delta = row.dec("allocated_amount").round(2)
		}
		inv.f["outstanding_amount"] = inv.dec("outstanding_amount") + sign*delta
		pes.db.touch(inv, c.user)
		inv.f["status"] = pes.invoices.siStatus(inv)
		if inv.str("party_account_currency") == DefaultCurrency {
			row.f["outstanding_amount"] = inv.dec("outstanding_amount") // a foreign row keeps what it read (recording 49-usd-pe-submitted)
		}
	}
}
