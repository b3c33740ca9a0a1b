package erpnextsim

// The settlement half of the site (erpnext-recorded-settlement, recordings 60-80): Journal
// Entry (journal_entry.go, je_validate.go), Bank and Bank Account (bank.go), Bank Transaction
// (bank_transaction.go, bank_allocation.go), the bank reconciliation methods
// (bank_reconciliation.go), get_balance_on (balance_on.go), Internal Transfer Payment Entries
// (internal_transfer.go), and Account and Company over REST (accounts_rest.go).
//
// Field tables list the columns in the order the recorded 15.71 site serialised them with nulls
// kept (64-je-cancel-frappe-client-cancel, 72-bt-cancel-system-manager); Bank and Bank Account
// follow erpnext v15 bank.json / bank_account.json (read, not copied) and the recorded POST
// answers (60-create-bank, 60-create-bank-account-doc).

const (
	btDT   = "Bank Transaction"
	btpDT  = "Bank Transaction Payments"
	baDT   = "Bank Account"
	bankDT = "Bank"
	jeaDT  = "Journal Entry Account"

	getLinkedPaymentsCmd = "erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.get_linked_payments"
	reconcileVouchersCmd = "erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.reconcile_vouchers"
	getBalanceOnCmd      = "erpnext.accounts.utils.get_balance_on"
)

// insertHook and updateHook let doctypes defined outside resource.go plug into POST/PUT
// /api/resource, as the handler a methodHooks entry binds plugs a method into /api/method.
type (
	insertHook func(c *call, body map[string]any) (*fErr, step)
	updateHook func(c *call, cur *record, body map[string]any, viaPut bool) (*fErr, step)
)

// insertHooks, updateHooks and methodHooks bind, per doctype or method, the handler of the
// part of a site that owns it; New binds them into its rest (rest.bindHooks).
var (
	insertHooks = map[string]func(s *Site) insertHook{}
	updateHooks = map[string]func(s *Site) updateHook{}
	methodHooks = map[string]func(s *Site) handler{}
)

var journalEntryFields = `
is_system_generated|Check|Is System Generated||
title|Data|Title||
voucher_type|Select|Entry Type||r
naming_series|Select|Series||r
finance_book|Link|Finance Book|Finance Book|
process_deferred_accounting|Link|Process Deferred Accounting|Process Deferred Accounting|
reversal_of|Link|Reversal Of|Journal Entry|
tax_withholding_category|Link|Tax Withholding Category|Tax Withholding Category|
from_template|Link|From Template|Journal Entry Template|
company|Link|Company|Company|r
posting_date|Date|Posting Date||r
apply_tds|Check|Apply Tax Withholding Amount||
cheque_no|Data|Reference Number||
cheque_date|Date|Reference Date||
user_remark|Small Text|User Remark||
total_debit|Currency|Total Debit||
total_credit|Currency|Total Credit||
difference|Currency|Difference (Dr - Cr)||
multi_currency|Check|Multi Currency||
total_amount_currency|Link|Currency|Currency|
total_amount|Currency|Total Amount||
total_amount_in_words|Data|Total Amount in Words||
clearance_date|Date|Clearance Date||
remark|Small Text|Remark||
paid_loan|Data|Paid Loan||
inter_company_journal_entry_reference|Link|Inter Company Journal Entry Reference|Journal Entry|
bill_no|Data|Bill No||
bill_date|Date|Bill Date||
due_date|Date|Due Date||
write_off_based_on|Select|Write Off Based On||
write_off_amount|Currency|Write Off Amount||
pay_to_recd_from|Data|Pay To / Recd From||
letter_head|Link|Letter Head|Letter Head|
select_print_heading|Link|Print Heading|Print Heading|
mode_of_payment|Link|Mode of Payment|Mode of Payment|
payment_order|Link|Payment Order|Payment Order|
is_opening|Select|Is Opening||
stock_entry|Link|Stock Entry|Stock Entry|
auto_repeat|Link|Auto Repeat|Auto Repeat|
amended_from|Link|Amended From|Journal Entry|
accounts|Table|Accounting Entries|Journal Entry Account|
`

var journalEntryAccountFields = `
account|Link|Account|Account|r
account_type|Data|Account Type||
bank_account|Link|Bank Account|Bank Account|
party_type|Link|Party Type|DocType|
party|Dynamic Link|Party|party_type|
cost_center|Link|Cost Center|Cost Center|
project|Link|Project|Project|
account_currency|Link|Account Currency|Currency|
exchange_rate|Float|Exchange Rate||
debit_in_account_currency|Currency|Debit||
debit|Currency|Debit in Company Currency||
credit_in_account_currency|Currency|Credit||
credit|Currency|Credit in Company Currency||
reference_type|Select|Reference Type||
reference_name|Dynamic Link|Reference Name|reference_type|
reference_due_date|Date|Reference Due Date||
reference_detail_no|Data|Reference Detail No||
is_advance|Select|Is Advance||
user_remark|Small Text|User Remark||
against_account|Text|Against Account||
`

var bankTransactionFields = `
naming_series|Select|Series||r
date|Date|Date||
status|Select|Status||
bank_account|Link|Bank Account|Bank Account|f
company|Link|Company|Company|
amended_from|Link|Amended From|Bank Transaction|
deposit|Currency|Deposit||
withdrawal|Currency|Withdrawal||
currency|Link|Currency|Currency|
description|Small Text|Description||
reference_number|Data|Reference Number||s
transaction_id|Data|Transaction ID||
transaction_type|Data|Transaction Type||
payment_entries|Table|Payment Entries|Bank Transaction Payments|s
allocated_amount|Currency|Allocated Amount||
unallocated_amount|Currency|Unallocated Amount||
party_type|Link|Party Type|DocType|s
party|Dynamic Link|Party|party_type|s
bank_party_name|Data|Party Name (Bank Statement)||
bank_party_account_number|Data|Party Account No. (Bank Statement)||
bank_party_iban|Data|Party IBAN (Bank Statement)||
`

var bankTransactionPaymentFields = `
payment_document|Link|Payment Document|DocType|r
payment_entry|Dynamic Link|Payment Entry|payment_document|r
allocated_amount|Currency|Allocated Amount||
clearance_date|Date|Clearance Date||
`

var bankFields = `
bank_name|Data|Bank Name||r
swift_number|Data|SWIFT number||
website|Data|Website||
bank_transaction_mapping|Table|Bank Transaction Mapping|Bank Transaction Mapping|
plaid_access_token|Data|Plaid Access Token||
`

var bankAccountFields = `
account_name|Data|Account Name||r
account|Link|Company Account|Account|
bank|Link|Bank|Bank|r
account_type|Link|Account Type|Bank Account Type|
account_subtype|Link|Account Subtype|Bank Account Subtype|
disabled|Check|Disabled||
is_default|Check|Is Default Account||
is_company_account|Check|Is Company Account||
company|Link|Company|Company|
party_type|Link|Party Type|DocType|
party|Dynamic Link|Party|party_type|
iban|Data|IBAN||
branch_code|Data|Branch Code||
bank_account_no|Data|Bank Account No||
integration_id|Data|Integration ID||
last_integration_date|Date|Last Integration Date||
mask|Data|Mask||
`

func init() {
	register(jeDT, journalEntryFields, func(m *meta) { m.submittable = true; m.series = "ACC-JV-" })
	register(jeaDT, journalEntryAccountFields, func(m *meta) { m.child = true })
	register(btDT, bankTransactionFields, func(m *meta) { m.submittable = true; m.series = "ACC-BTN-" })
	register(btpDT, bankTransactionPaymentFields, func(m *meta) { m.child = true })
	register(bankDT, bankFields, nil)
	register("Bank Transaction Mapping", "bank_transaction_field|Select|Field in Bank Transaction||r\nfile_field|Data|Column in Bank File||r", func(m *meta) { m.child = true })
	register(baDT, bankAccountFields, nil)
	for _, dt := range []string{jeDT, jeaDT, baDT} {
		delete(knownUnmodelled, dt)
	}
	// Role permissions from the doctype JSONs (erpnext v15): the Accounts User may create and
	// submit a Bank Transaction but not cancel it (recording 72-bt-cancel-api-user-403); Bank
	// is a System Manager master; Bank Account belongs to the accounts roles (66-bank-account-*).
	accounts := []string{RoleAccountsUser, RoleAccountsManager}
	withAdmin := []string{RoleAccountsUser, RoleAccountsManager, RoleSystemManager}
	docPerms[btDT] = struct{ read, create []string }{read: withAdmin, create: withAdmin}
	docPerms[baDT] = struct{ read, create []string }{read: accounts, create: accounts}
	docPerms[bankDT] = struct{ read, create []string }{read: []string{RoleSystemManager}, create: []string{RoleSystemManager}}
	readOnlyMethods[getLinkedPaymentsCmd] = true
	readOnlyMethods[getBalanceOnCmd] = true
}

// cancelRoles are the roles holding "cancel" on a submittable doctype of this half (doctype
// JSON permissions): the Accounts User cancels Journal Entries (64-je-cancel-*) but not Bank
// Transactions (72-bt-cancel-api-user-403).
var cancelRoles = map[string][]string{
	jeDT: {RoleAccountsUser, RoleAccountsManager},
	btDT: {RoleAccountsManager, RoleSystemManager},
}

// canCancel reports whether user holds "cancel" on doctype dt (Administrator always does).
func (us *users) canCancel(user, dt string) bool {
	if user == admin {
		return true
	}
	for _, r := range us.roles(user) {
		for _, allowed := range cancelRoles[dt] {
			if r == allowed {
				return true
			}
		}
	}
	return false
}

// cancelDenied is the 403 of a cancel without the right: the role message and
// _error_message, no exception (recording 72-bt-cancel-api-user-403).
func cancelDenied(user, dt string) *fErr { return permissionDenied(user, dt, "create") }

// newDocName is the name an insert shows in its messages: the client-supplied name Frappe 15.72
// keeps (61-je-insert-client-name-submitted), else the next number of series, which a refused
// insert does not take (63-je-account-of-other-company, then -draft).
func (db *store) newDocName(body map[string]any, series string) (client, display string) {
	if client = db.clientName(body); client != "" {
		return client, client
	}
	return "", db.seriesName(series, false)
}

// takeDocName commits the name of an insert: the client's (keeping the series ahead of a
// name that looks like one of its members) or the next of series.
func (db *store) takeDocName(client, series string) string {
	if client == "" {
		return db.seriesName(series, true)
	}
	db.noteName(series, client)
	return client
}

// insertDocstatus is the docstatus of a new document; 2 is refused as Frappe's transition
// check does ("Cannot change docstatus from 0 (Draft) to 2 (Cancelled)").
func insertDocstatus(r *record) (int64, *fErr) {
	if ds := r.docstatus(); ds != 2 {
		return ds, nil
	}
	_, e := docstatusTransition(0, 2)
	return 2, e
}

// transition is the docstatus change a save of cur with body asks for (§1.7): the body's
// docstatus, else the stored one, and the action it means.
func transition(cur *record, body map[string]any) (int64, string, *fErr) {
	to := cur.docstatus()
	if v, ok := body["docstatus"]; ok {
		to = int64(cint(v))
	}
	action, e := docstatusTransition(cur.docstatus(), to)
	return to, action, e
}
