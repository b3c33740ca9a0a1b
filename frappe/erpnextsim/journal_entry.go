package erpnextsim

import (
	"net/http"
	"strings"
)

// journalEntries is the Journal Entry doctype: defaults, validation, submit and cancel with
// their GL, and the Bank Transactions a cancel unlinks.
type journalEntries struct {
	db       *store
	users    *users
	ledger   *ledger
	links    *links
	bankTxns *bankTransactions
	company  string
}

// Journal Entry over REST (recordings 61-*…65-*), following erpnext v15 journal_entry.py as
// read in the recorded 15.71.1 tree (nateabowman/frappe-bench, apps/erpnext; not copied). An
// insert runs, in Frappe's order: link validation (LinkValidationError "Could not find Row
// #{idx}: Account: {acc}"), validate (je_validate.go), and with docstatus 1 before_submit (the
// balance: "Total Debit must be equal to Total Credit. The difference is {d}"), the primary key
// (409 DuplicateEntryError on a repeated client name, 61-je-insert-client-name-duplicate), then
// on_submit: the Bank Entry reference ("Reference No & Reference Date is required for Bank
// Entry") and the ledger checks of checkGL (group account, account of another company). A
// refused insert names the series number it would have taken, and the next insert takes it
// (63-je-account-of-other-company then -draft).
//
// The client-supplied name is kept on 15.72 as for Payment Entry (61-je-insert-client-name-*).
// POST answers mark every row "__unsaved": 1, as recorded. Cancel (frappe.client.cancel or PUT
// docstatus 2) posts reversing GL entries (64-je-gl-entries-after-cancel) and unlinks the
// entry from every Bank Transaction that allocated it (64-je-cancel-reconciled,
// 64-bt-get-after-je-cancel). Not modelled (501): rows with reference_type, foreign-currency
// rows without an exchange_rate; merge_similar_account_heads does not merge GL rows.

func init() {
	insertHooks[jeDT] = func(s *Site) insertHook { return s.journals.insertJournalEntry }
	updateHooks[jeDT] = func(s *Site) updateHook { return s.journals.updateJournalEntry }
}

func (jes *journalEntries) insertJournalEntry(c *call, body map[string]any) (*fErr, step) {
	je := fromBody(jeDT, body, nil)
	ds, e := insertDocstatus(je)
	if e != nil {
		return e, nil
	}
	name, display := jes.db.newDocName(body, "ACC-JV-")
	if e := jes.db.claimName(c, jeDT, name); e != nil {
		return e, nil
	}
	jes.jeDefaults(je)
	if e := jes.links.validateLinks(je, false); e != nil {
		return e, nil
	}
	if e := jes.validateJE(je, display, true); e != nil {
		return e, nil
	}
	if ds == 1 {
		if e := jeBalanced(je); e != nil {
			return e, nil
		}
	}
	if name != "" && jes.db.get(jeDT, name) != nil {
		return duplicateName(jeDT, name), nil
	}
	if ds == 1 {
		if e := jes.checkSubmitJE(c, je, display); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		jes.db.stampNew(je, jes.db.takeDocName(name, "ACC-JV-"), c.user)
		jes.db.put(je)
		if ds == 1 {
			jes.ledger.postGL(jeDT, je, je.str("posting_date"), jeGLLines(je), c.user)
		}
		return renderUnsaved(je, c.keepNulls(), "accounts")
	}
}

// renderUnsaved renders r with "__unsaved": 1 on the rows of tables, as Frappe marks rows it
// changed while saving in its POST answers (Journal Entry accounts, Payment Entry references
// and deductions, Sales Invoice items: every recorded insert, drafts included). The stored
// rows are not touched.
func renderUnsaved(r *record, keepNulls bool, tables ...string) obj {
	o := r.render(keepNulls)
	for i := range o {
		if !containsString(tables, o[i].k) {
			continue
		}
		rows, _ := o[i].v.([]any)
		for j, row := range rows {
			if ro, ok := row.(obj); ok {
				rows[j] = append(ro, kv{"__unsaved", int64(1)})
			}
		}
	}
	return o
}

// jeDefaults are the doctype defaults frappe.new_doc gives a Journal Entry and its rows; the
// row cost_center default ":Company" is the default company's cost center (61-je-get-submitted:
// every row has "Main - EC").
func (jes *journalEntries) jeDefaults(je *record) {
	setDefault(je, "voucher_type", "Journal Entry")
	setDefault(je, "naming_series", "ACC-JV-.YYYY.-")
	setDefault(je, "company", jes.company)
	setDefault(je, "posting_date", jes.db.today())
	setDefault(je, "write_off_based_on", "Accounts Receivable")
	for _, k := range []string{"apply_tds", "multi_currency", "is_system_generated"} {
		setDefault(je, k, int64(0))
	}
	setDefault(je, "write_off_amount", dec(0))
	costCenter := ""
	if co := jes.db.get("Company", jes.company); co != nil {
		costCenter = co.str("cost_center")
	}
	for _, row := range je.rows("accounts") {
		setDefault(row, "is_advance", "No")
		if costCenter != "" {
			setDefault(row, "cost_center", costCenter)
		}
	}
}

// jeBalanced is before_submit's validate_total_debit_and_credit (62-je-unbalanced-submitted).
func jeBalanced(je *record) *fErr {
	if je.dec("difference") != 0 {
		return erpThrow("Total Debit must be equal to Total Credit. The difference is " + je.dec("difference").py())
	}
	return nil
}

// checkSubmitJE is on_submit: validate_cheque_info (62-je-bank-entry-no-cheque-no), then the
// ledger checks of make_gl_entries (63-je-account-of-other-company, 63-je-group-account).
func (jes *journalEntries) checkSubmitJE(c *call, je *record, name string) *fErr {
	if je.str("voucher_type") == "Bank Entry" && (je.str("cheque_no") == "" || je.str("cheque_date") == "") {
		return erpThrow("Reference No & Reference Date is required for Bank Entry")
	}
	if je.str("cheque_date") != "" && je.str("cheque_no") == "" {
		return erpThrow("Reference No is mandatory if you entered Reference Date")
	}
	return jes.ledger.checkGL(c, jeDT, name, je.str("company"), je.str("posting_date"), nil, jeGLLines(je))
}

// jeGLLines is build_gl_map: one line per row with an amount, against = the row's
// against_account (set only while the entry was a draft, so null on an entry submitted in one
// call: 61-je-gl-entries), remarks = the row's user_remark and the entry's remark.
func jeGLLines(je *record) []glLine {
	var lines []glLine
	for _, r := range je.rows("accounts") {
		if r.dec("debit") == 0 && r.dec("credit") == 0 {
			continue
		}
		var remarks []string
		for _, t := range []string{r.str("user_remark"), je.str("remark")} {
			if t != "" {
				remarks = append(remarks, t)
			}
		}
		lines = append(lines, glLine{account: r.str("account"), partyType: r.str("party_type"), party: r.str("party"),
			debit: r.dec("debit"), credit: r.dec("credit"), debitAcc: r.dec("debit_in_account_currency"),
			creditAcc: r.dec("credit_in_account_currency"), against: r.str("against_account"),
			costCenter: r.str("cost_center"), remarks: strings.Join(remarks, "\n")})
	}
	return lines
}

// updateJournalEntry is PUT /api/resource/Journal Entry/{name} and the frappe.client
// save/submit/cancel helpers (§1.7): save or submit a draft (64-je-submit-draft-put-docstatus-1),
// cancel (64-je-cancel-frappe-client-cancel), no-op update after submit.
func (jes *journalEntries) updateJournalEntry(c *call, cur *record, body map[string]any, viaPut bool) (*fErr, step) {
	to, action, e := transition(cur, body)
	if e != nil {
		// frappe.client.cancel runs JournalEntry.cancel, ERPNext's own override, so its
		// refusal carries _exc_source (64-je-cancel-again); a PUT or frappe.client.save does
		// not pass through ERPNext code.
		e.excSource = !viaPut && c.args["doc"] == nil && c.args["fieldname"] == nil
		return e, nil
	}
	switch action {
	case "cancel":
		if !jes.users.canCancel(c.user, jeDT) {
			return cancelDenied(c.userName(), jeDT), nil
		}
		return nil, func() any {
			jes.cancelJournalEntry(c, cur)
			return cur.render(c.keepNulls())
		}
	case "update_after_submit":
		next := fromBody(jeDT, body, cur)
		if e := updateAfterSubmit(cur, next); e != nil {
			return e, nil
		}
		return nil, func() any {
			jes.db.touch(next, c.user)
			jes.db.stampRows(next, next.str("modified"), c.user)
			jes.db.put(next)
			return next.render(c.keepNulls())
		}
	}
	next := fromBody(jeDT, body, cur)
	next.f["docstatus"] = to
	jes.jeDefaults(next)
	if e := jes.links.validateLinks(next, false); e != nil {
		return e, nil
	}
	if e := jes.validateJE(next, cur.name(), false); e != nil {
		return e, nil
	}
	if to == 1 {
		if e := jeBalanced(next); e != nil {
			return e, nil
		}
		if e := jes.checkSubmitJE(c, next, cur.name()); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		jes.db.touch(next, c.user)
		jes.db.stampRows(next, next.str("modified"), c.user)
		jes.db.put(next)
		if to == 1 {
			jes.ledger.postGL(jeDT, next, next.str("posting_date"), jeGLLines(next), c.user)
		}
		c.status = http.StatusOK
		return next.render(c.keepNulls())
	}
}

// cancelJournalEntry is on_cancel: docstatus 2, reversing GL entries, and the entry removed
// from the Bank Transactions that allocated it (remove_from_bank_transaction).
func (jes *journalEntries) cancelJournalEntry(c *call, je *record) {
	je.f["docstatus"] = int64(2)
	jes.db.touch(je, c.user)
	jes.db.stampRows(je, je.str("modified"), c.user)
	jes.ledger.cancelGL(jeDT, je.name())
	jes.bankTxns.removeFromBankTransactions(c, jeDT, je.name())
}
