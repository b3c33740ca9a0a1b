package erpnextsim

import (
	"fmt"
	"strings"
)

// How a Bank Transaction allocates vouchers and clears them, following erpnext v15
// bank_transaction.py (allocate_payment_entries, get_clearance_details,
// get_related_bank_gl_entries, get_total_allocated_amount) as read in the recorded 15.71.1 tree
// (not copied). For each row still at allocated_amount 0:
//
//   - the voucher's bank amount is Σ|credit − debit| (account currency) of its live GL entries
//     on the Bank Account's GL account; a voucher with none there (unknown, draft, another
//     account) is 417 "{doctype} {name} is not affecting bank account {account}"
//     (71-reconcile-vouchers-unknown-voucher, -draft-je);
//   - less what submitted Bank Transactions already allocated to it on that account; the row
//     gets min(that, what is left of the transaction) (71-reconcile-vouchers-amount-above-
//     unallocated: the voucher's "amount" plays no part); nothing left on either side drops
//     the row silently (71-reconcile-je-already-allocated-elsewhere);
//   - the voucher is cleared (clearance_date = the latest transaction date, its modified
//     bumped) only when this allocation completes its bank amount AND every other Bank-type
//     account it touches is fully allocated too: a settlement entry crediting a clearing
//     account of type Bank is never cleared (70-je-get-after-reconcile, 76-pe-get-after-
//     reconcile), one crediting an untyped account is (72-je-get-after-reconcile-non-bank-…).
//
// A negative remainder reproduces ERPNext's latent 500: its message "Voucher {0} is
// over-allocated by {1}" is formatted with one argument (IndexError).

// btAllocation is what submitted Bank Transactions allocated to a voucher on one GL account.
type btAllocation struct {
	total  dec
	latest string // the latest transaction date, "YYYY-MM-DD"
}

// clearance sets (date "" clears) the clearance_date of a voucher.
type clearance struct{ doctype, name, date string }

// voucherBankGL is get_related_bank_gl_entries for one voucher: per account of type Bank, the
// Σ|credit − debit| in account currency of the voucher's live GL entries. ERPNext keys the
// result by the names as stored and looks it up with the names as given, so matching is exact.
func (bts *bankTransactions) voucherBankGL(doctype, name string) map[string]dec {
	out := map[string]dec{}
	for _, g := range bts.ledger.voucherGL(doctype, name) {
		if g.int("is_cancelled") != 0 {
			continue
		}
		if a := bts.db.get("Account", g.str("account")); a == nil || a.str("account_type") != "Bank" {
			continue
		}
		out[g.str("account")] += (g.dec("credit_in_account_currency") - g.dec("debit_in_account_currency")).abs()
	}
	return out
}

// voucherAllocations is get_total_allocated_amount for one voucher: the rows of submitted Bank
// Transactions allocating it, summed per GL account of their Bank Account ("" when the Bank
// Account does not exist), with the latest transaction date.
func (bts *bankTransactions) voucherAllocations(doctype, name string) map[string]btAllocation {
	out := map[string]btAllocation{}
	for _, bt := range bts.db.docs[btDT] {
		if bt.docstatus() != 1 {
			continue
		}
		acct := bts.bankAccounts.bankGLAccount(bt.str("bank_account"))
		for _, row := range bt.rows("payment_entries") {
			if !strings.EqualFold(row.str("payment_document"), doctype) || !strings.EqualFold(row.str("payment_entry"), name) {
				continue
			}
			a := out[acct]
			a.total += row.dec("allocated_amount")
			a.latest = max(a.latest, bt.str("date"))
			out[acct] = a
		}
	}
	return out
}

// allocation is what allocateRows decided: rows to add to other transactions (a transaction
// matched against this one), and clearances.
type allocation struct {
	clears []clearance
	links  []btLink
}

// btLink appends a row allocating amount of transaction from to transaction bt.
type btLink struct {
	bt, from string
	amount   dec
}

// allocateRows is allocate_payment_entries on bt (a private copy): it fills the rows at 0,
// drops those with nothing to allocate, updates allocated/unallocated, and returns what to
// apply to other documents.
func (bts *bankTransactions) allocateRows(bt *record) (allocation, *fErr) {
	var out allocation
	rows := bt.rows("payment_entries")
	if len(rows) == 0 {
		return out, nil
	}
	glAccount := bts.bankAccounts.bankGLAccount(bt.str("bank_account"))
	type pre struct {
		gl    map[string]dec
		alloc map[string]btAllocation
	}
	pres := make([]pre, len(rows))
	for i, r := range rows {
		pres[i] = pre{bts.voucherBankGL(r.str("payment_document"), r.str("payment_entry")), bts.voucherAllocations(r.str("payment_document"), r.str("payment_entry"))}
	}
	remaining := bt.dec("unallocated_amount")
	var kept []*record
	for i, r := range rows {
		if r.dec("allocated_amount") != 0 {
			kept = append(kept, r)
			continue
		}
		allocable, clear, date, e := bts.clearanceDetails(bt, r, pres[i].gl, pres[i].alloc, glAccount)
		if e != nil {
			return out, e
		}
		if allocable < 0 {
			e := serverError("IndexError", "IndexError: Replacement index 1 out of range for positional args tuple")
			e.excSource = true
			return out, e
		}
		if remaining <= 0 {
			continue
		}
		if allocable == 0 {
			if clear {
				out.clears = append(out.clears, clearance{r.str("payment_document"), r.str("payment_entry"), date})
			}
			continue
		}
		clear = clear && allocable <= remaining
		r.f["allocated_amount"] = min(allocable, remaining)
		remaining = (remaining - r.dec("allocated_amount")).round(2)
		kept = append(kept, r)
		switch {
		case r.str("payment_document") == btDT:
			out.links = append(out.links, btLink{bt: r.str("payment_entry"), from: bt.name(), amount: r.dec("allocated_amount")})
		case clear:
			out.clears = append(out.clears, clearance{r.str("payment_document"), r.str("payment_entry"), date})
		}
	}
	bt.f["payment_entries"] = kept
	updateAllocated(bt)
	return out, nil
}

// clearanceDetails is get_clearance_details for one row: what may still be allocated, whether
// allocating it clears the voucher, and the clearance date.
func (bts *bankTransactions) clearanceDetails(bt, row *record, gl map[string]dec, alloc map[string]btAllocation, glAccount string) (dec, bool, string, *fErr) {
	date := bt.str("date")
	if date == "" {
		date = bts.db.today()
	}
	doctype, name := row.str("payment_document"), row.str("payment_entry")
	if doctype == btDT {
		other := bts.db.get(btDT, name)
		if other == nil {
			return 0, false, "", serverError("AttributeError", "AttributeError: 'NoneType' object has no attribute 'bank_account'")
		}
		if other.str("bank_account") != glAccount { // ERPNext compares a Bank Account name with a GL account name
			return 0, false, "", erpThrow(fmt.Sprintf("Bank Account %s in Bank Transaction %s is not matching with Bank Account %s", other.str("bank_account"), name, pyNone(glAccount)))
		}
		return other.dec("unallocated_amount").abs(), true, date, nil
	}
	amount, ok := gl[glAccount]
	if !ok || glAccount == "" {
		return 0, false, "", erpThrow(fmt.Sprintf("%s %s is not affecting bank account %s", doctype, name, pyNone(glAccount)))
	}
	if amount <= 0 {
		return 0, false, "", erpThrow(fmt.Sprintf("Invalid amount in accounting entries of %s %s for Account %s: %s", doctype, name, glAccount, amount.py()))
	}
	match := alloc[glAccount]
	allocable := (amount - match.total).round(2)
	clear := true
	for acct, v := range gl {
		if acct != glAccount && v != alloc[acct].total {
			clear = false
		}
	}
	if match.latest != "" {
		date = max(date, match.latest)
	}
	return allocable, clear, date, nil
}

// pyNone renders an empty value as Python's None does in a formatted message.
func pyNone(v string) string {
	if v == "" {
		return "None"
	}
	return v
}

// updateAllocated is update_allocated_amount: allocated = Σ rows, unallocated =
// |withdrawal − deposit| − allocated, both rounded to 2 decimals.
func updateAllocated(bt *record) {
	var allocated dec
	for _, r := range bt.rows("payment_entries") {
		allocated += r.dec("allocated_amount")
	}
	bt.f["allocated_amount"] = allocated.round(2)
	bt.f["unallocated_amount"] = ((bt.dec("withdrawal") - bt.dec("deposit")).abs() - allocated).round(2)
}

// setBTStatus is set_status: Cancelled, or for a submitted transaction Unreconciled while
// something is unallocated, else Reconciled; a draft keeps its status ("Pending").
func setBTStatus(bt *record) {
	switch bt.docstatus() {
	case 2:
		bt.f["status"] = "Cancelled"
	case 1:
		if bt.dec("unallocated_amount") > 0 {
			bt.f["status"] = "Unreconciled"
		} else {
			bt.f["status"] = "Reconciled"
		}
	}
}

// applyClearances sets clearance_date on Payment Entries and Journal Entries (the reconcilable
// doctypes the simulator models) with frappe.db.set_value semantics: modified bumped, by user.
func (bts *bankTransactions) applyClearances(c *call, clears []clearance) {
	for _, cl := range clears {
		if cl.doctype != peDT && cl.doctype != jeDT {
			continue
		}
		doc := bts.db.get(cl.doctype, cl.name)
		if doc == nil {
			continue
		}
		if cl.date == "" {
			delete(doc.f, "clearance_date")
		} else {
			doc.f["clearance_date"] = cl.date
		}
		bts.db.touch(doc, c.user)
	}
}

// applyLinks appends the rows of btLinks to their transactions (update_linked_bank_transaction).
func (bts *bankTransactions) applyLinks(c *call, links []btLink) {
	for _, l := range links {
		other := bts.db.get(btDT, l.bt)
		if other == nil {
			continue
		}
		row := newRecord(btpDT)
		row.f["payment_document"], row.f["payment_entry"], row.f["allocated_amount"] = btDT, l.from, l.amount
		other.f["payment_entries"] = append(other.rows("payment_entries"), row)
		bts.resaveBT(c, other)
	}
}

// resaveBT is a save of a stored transaction after its rows changed: totals, status,
// timestamps.
func (bts *bankTransactions) resaveBT(c *call, bt *record) {
	updateAllocated(bt)
	setBTStatus(bt)
	bts.db.touch(bt, c.user)
	bts.db.stampRows(bt, bt.str("modified"), c.user)
}

// removeFromBankTransactions is remove_from_bank_transaction, run when a Payment Entry or
// Journal Entry is cancelled: its rows leave every transaction that is not cancelled, which is
// saved again (back to Unreconciled, 64-bt-get-after-je-cancel); a submitted one delinks the
// voucher (clearance_date cleared).
func (bts *bankTransactions) removeFromBankTransactions(c *call, doctype, name string) {
	for _, bt := range bts.db.all(btDT) {
		if bt.docstatus() == 2 {
			continue
		}
		var kept []*record
		removed := false
		for _, row := range bt.rows("payment_entries") {
			if row.str("payment_document") == doctype && row.str("payment_entry") == name {
				removed = true
				continue
			}
			kept = append(kept, row)
		}
		if !removed {
			continue
		}
		bt.f["payment_entries"] = kept
		if bt.docstatus() == 1 {
			bts.applyClearances(c, []clearance{{doctype, name, ""}})
		}
		bts.resaveBT(c, bt)
	}
}

// delinkRows is delink_payment_entry for rows leaving a transaction (cancel, or rows removed on
// an update after submit): vouchers lose their clearance date, a matched transaction loses its
// row back to this one.
func (bts *bankTransactions) delinkRows(c *call, bt *record, rows []*record) {
	for _, row := range rows {
		if row.str("payment_document") != btDT {
			bts.applyClearances(c, []clearance{{row.str("payment_document"), row.str("payment_entry"), ""}})
			continue
		}
		other := bts.db.get(btDT, row.str("payment_entry"))
		if other == nil {
			continue
		}
		var kept []*record
		for _, r := range other.rows("payment_entries") {
			if !(r.str("payment_document") == btDT && r.str("payment_entry") == bt.name()) {
				kept = append(kept, r)
			}
		}
		other.f["payment_entries"] = kept
		bts.resaveBT(c, other)
	}
}

// duplicateReferences is validate_duplicate_references.
func duplicateReferences(bt *record) *fErr {
	seen := map[[2]string]bool{}
	for _, row := range bt.rows("payment_entries") {
		k := [2]string{row.str("payment_document"), row.str("payment_entry")}
		if seen[k] {
			return erpThrow(fmt.Sprintf("%s %s is allocated twice in this Bank Transaction", k[0], k[1]))
		}
		seen[k] = true
	}
	return nil
}
