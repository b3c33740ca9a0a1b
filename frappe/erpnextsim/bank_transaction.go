package erpnextsim

import "fmt"

// bankTransactions is the Bank Transaction doctype: validation, allocation of its payment
// entries, and the clearance dates those set on vouchers.
type bankTransactions struct {
	db           *store
	users        *users
	ledger       *ledger
	links        *links
	bankAccounts *bankAccounts
	company      string
}

// Bank Transaction: a line of the bank statement, as a user's statement import creates it
// (recordings 66-*, 67-*, 72-bt-*), following erpnext v15 bank_transaction.py as read in the
// recorded 15.71.1 tree (not copied):
//
//   - named ACC-BTN-.YYYY.- (a refused insert names the number it would have taken, 67-*);
//     status "Pending" as a draft (66-bt-insert-draft), then set_status: "Unreconciled" while
//     unallocated_amount > 0, else "Reconciled", and "Cancelled" (72-bt-cancel-system-manager);
//   - allocated_amount = Σ payment_entries rows, unallocated_amount = |withdrawal − deposit| −
//     allocated (both kept on cancel, 72-bt-get-after-cancel);
//   - company is the Bank Account's (fetched), else the user's default company;
//   - bank_account is NOT link-validated: a missing Bank Account is saved as given
//     (66-bt-unknown-bank-account, 66-bt-gl-account-as-bank-account) and fails later in
//     get_linked_payments (500 IndexError);
//   - currency must be the Bank Account's GL account currency (66-bt-currency-mismatch);
//   - transaction_id is unique across all transactions, drafts and cancelled ones included:
//     417 UniqueValidationError "Transaction ID must be unique" (67-bt-duplicate-transaction-id);
//   - rows sent at allocated_amount 0 are allocated on submit (bank_allocation.go);
//   - cancel needs the cancel right (Accounts Manager, System Manager; the Accounts User gets
//     403, 72-bt-cancel-api-user-403) and takes every voucher's clearance_date back
//     (72-je-get-after-bt-cancel).

func init() {
	insertHooks[btDT] = func(s *Site) insertHook { return s.bankTxns.insertBankTransaction }
	updateHooks[btDT] = func(s *Site) updateHook { return s.bankTxns.updateBankTransaction }
}

func (bts *bankTransactions) insertBankTransaction(c *call, body map[string]any) (*fErr, step) {
	bt := fromBody(btDT, body, nil)
	ds, e := insertDocstatus(bt)
	if e != nil {
		return e, nil
	}
	name, display := bts.db.newDocName(body, "ACC-BTN-")
	setDefault(bt, "naming_series", "ACC-BTN-.YYYY.-")
	setDefault(bt, "status", "Pending")
	setDefault(bt, "company", bts.company)
	bt.f["docstatus"] = ds
	res, e := bts.validateBT(bt, display, "")
	if e != nil {
		return e, nil
	}
	if name != "" && bts.db.get(btDT, name) != nil {
		return duplicateName(btDT, name), nil
	}
	return nil, func() any {
		bts.db.stampNew(bt, bts.db.takeDocName(name, "ACC-BTN-"), c.user)
		if ds == 1 {
			bts.db.touch(bt, c.user) // set_status's db_set moves modified past creation (66-bt-insert-submitted)
		}
		bts.db.put(bt)
		bts.applyClearances(c, res.clears)
		bts.applyLinks(c, res.links)
		return bt.render(c.keepNulls())
	}
}

// validateBT runs a save of bt (a private copy) up to the database write: links (bank_account
// exempt, company fetched from it), before_validate, validate, before_submit when docstatus is 1,
// mandatory fields, and the unique transaction_id (self = the stored name, "" when new).
func (bts *bankTransactions) validateBT(bt *record, name, self string) (allocation, *fErr) {
	var res allocation
	for _, k := range []string{"deposit", "withdrawal"} {
		setDefault(bt, k, dec(0))
	}
	if e := bts.links.validateLinks(bt, false); e != nil {
		return res, e
	}
	ba := bts.db.get(baDT, bt.str("bank_account"))
	if ba != nil && ba.str("company") != "" {
		bt.f["company"] = ba.str("company")
	}
	updateAllocated(bt)
	if e := duplicateReferences(bt); e != nil {
		return res, e
	}
	if e := bts.btCurrency(bt, ba); e != nil {
		return res, e
	}
	if bt.docstatus() == 1 {
		var e *fErr
		if res, e = bts.allocateRows(bt); e != nil {
			return res, e
		}
		setBTStatus(bt)
	}
	if e := validateMandatory(bt, name, nil); e != nil {
		return res, e
	}
	if id := bt.str("transaction_id"); bts.db.uniqueTaken(btDT, "transaction_id", id, self) != nil {
		return res, uniqueViolation(btDT, name, "Transaction ID", "transaction_id", id)
	}
	return res, nil
}

// btCurrency is validate_currency: the transaction's currency must be its Bank Account's GL
// account currency.
func (bts *bankTransactions) btCurrency(bt, ba *record) *fErr {
	if bt.str("currency") == "" || ba == nil || ba.str("account") == "" {
		return nil
	}
	acct := bts.db.get("Account", ba.str("account"))
	if acct == nil || acct.str("account_currency") == bt.str("currency") {
		return nil
	}
	return erpThrow(fmt.Sprintf("Transaction currency: <strong>%s</strong> cannot be different from Bank Account(<strong>%s</strong>) currency: <strong>%s</strong>",
		bt.str("currency"), bt.str("bank_account"), acct.str("account_currency")))
}

// updateBankTransaction is PUT /api/resource/Bank Transaction/{name} and the frappe.client
// helpers: save or submit a draft, cancel, or an update after submit (reference_number, party
// and payment_entries may change: removed rows are delinked, rows at 0 allocated).
func (bts *bankTransactions) updateBankTransaction(c *call, cur *record, body map[string]any, viaPut bool) (*fErr, step) {
	to, action, e := transition(cur, body)
	if e != nil {
		return e, nil
	}
	switch action {
	case "cancel":
		if !bts.users.canCancel(c.user, btDT) {
			return cancelDenied(c.userName(), btDT), nil
		}
		return nil, func() any {
			bts.delinkRows(c, cur, cur.rows("payment_entries"))
			cur.f["docstatus"] = int64(2)
			setBTStatus(cur)
			bts.db.touch(cur, c.user)
			bts.db.stampRows(cur, cur.str("modified"), c.user)
			return cur.render(c.keepNulls())
		}
	case "update_after_submit":
		return bts.btAfterSubmit(c, cur, body)
	}
	next := fromBody(btDT, body, cur)
	next.f["docstatus"] = to
	res, e := bts.validateBT(next, cur.name(), cur.name())
	if e != nil {
		return e, nil
	}
	return nil, func() any { return bts.storeBT(c, next, res) }
}

// storeBT stores next, a saved copy of a stored transaction, and applies what its allocation
// decided to the other documents.
func (bts *bankTransactions) storeBT(c *call, next *record, res allocation) any {
	bts.db.touch(next, c.user)
	bts.db.stampRows(next, next.str("modified"), c.user)
	bts.db.put(next)
	bts.applyClearances(c, res.clears)
	bts.applyLinks(c, res.links)
	return next.render(c.keepNulls())
}

// btAfterSubmit is an update after submit: only allow_on_submit fields may differ (the computed
// totals and status aside), then before_update_after_submit.
func (bts *bankTransactions) btAfterSubmit(c *call, cur *record, body map[string]any) (*fErr, step) {
	next := fromBody(btDT, body, cur)
	probe := next.clone()
	for _, k := range []string{"allocated_amount", "unallocated_amount", "status"} {
		probe.f[k] = cur.f[k]
	}
	if e := updateAfterSubmit(cur, probe); e != nil {
		return e, nil
	}
	if e := duplicateReferences(next); e != nil {
		return e, nil
	}
	updateAllocated(next)
	kept := map[string]bool{}
	for _, r := range next.rows("payment_entries") {
		kept[r.name()] = true
	}
	var gone []*record
	for _, r := range cur.rows("payment_entries") {
		if !kept[r.name()] {
			gone = append(gone, r)
		}
	}
	res, e := bts.allocateRows(next)
	if e != nil {
		return e, nil
	}
	setBTStatus(next)
	return nil, func() any {
		bts.delinkRows(c, cur, gone)
		return bts.storeBT(c, next, res)
	}
}
