package frappe

import (
	"encoding/json"
	"fmt"
)

// Settlement doctypes and methods: moving a settlement from the clearing account to the bank
// with a Journal Entry and matching it to the bank statement (reference/erpnext-recorded-
// settlement, recordings 60-80 of a Frappe 15.72.4 / ERPNext 15.71.1 site). Amounts are decimal
// text as the server sends them ("9764.0"); convert with exact decimal arithmetic, never
// float64. Dates are "YYYY-MM-DD".

// Doctype names of the settlement half.
const (
	DoctypeJournalEntryAccount     = "Journal Entry Account" // child of Journal Entry; a list filter on it joins the child table
	DoctypeBank                    = "Bank"                  // named by bank_name (60-create-bank)
	DoctypeBankAccount             = "Bank Account"          // named "{account_name} - {bank}" (60-create-bank-account-doc)
	DoctypeBankTransaction         = "Bank Transaction"      // a bank statement line, ACC-BTN-.YYYY.-
	DoctypeBankTransactionPayments = "Bank Transaction Payments"
)

// Whitelisted methods of the settlement half (paths as recorded).
const (
	// MethodGetLinkedPayments lists the vouchers a Bank Transaction may be matched with; args
	// LinkedPaymentsArgs, message []LinkedPayment (68-*, 71-*, 72-*, 76-*). Without from_date
	// and to_date it answers [] (68-get-linked-payments-no-dates). A transaction whose Bank
	// Account does not exist is 500 IndexError (68-get-linked-payments-bt-with-unknown-bank-
	// account); Guest gets 403 (69-get-linked-payments-guest).
	MethodGetLinkedPayments = "erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.get_linked_payments"
	// MethodReconcileVouchers allocates vouchers to a Bank Transaction; args from
	// ReconcileVouchersArgs, message the BankTransaction after the save (69-reconcile-vouchers).
	// The Accounts User may call it. A fully reconciled transaction is 417 "Bank Transaction
	// {name} is already fully reconciled" (71-reconcile-vouchers-again); a voucher without a GL
	// row on the Bank Account's GL account (unknown, draft, other account) is 417 "{doctype}
	// {name} is not affecting bank account {account}" (71-reconcile-vouchers-unknown-voucher).
	MethodReconcileVouchers = "erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.reconcile_vouchers"
	// MethodGetBalanceOn is an account's balance: GET with args account and date ("YYYY-MM-DD";
	// without it every entry counts), message a JSON number in the account's currency, debit
	// minus credit, negative allowed (80-balance-*). An unknown account is 404
	// DoesNotExistError "Account {name} not found" (80-balance-unknown-account).
	MethodGetBalanceOn = "erpnext.accounts.utils.get_balance_on"
)

// VoucherTypeBankEntry is the Journal Entry voucher_type of a settlement entry. A Bank Entry is
// submitted only with cheque_no and cheque_date ("Reference No & Reference Date is required
// for Bank Entry", 62-je-bank-entry-no-cheque-no); cheque_no without cheque_date is refused even
// as a draft (MandatoryError "Please enter Reference date", 62-je-bank-entry-no-cheque-date).
const VoucherTypeBankEntry = "Bank Entry"

// Bank Transaction statuses (66-*, 69-*, 72-bt-cancel-system-manager): a draft is Pending; a
// submitted one Unreconciled while unallocated_amount > 0, else Reconciled.
const (
	BankTransactionPending      = "Pending"
	BankTransactionUnreconciled = "Unreconciled"
	BankTransactionReconciled   = "Reconciled"
	BankTransactionCancelled    = "Cancelled"
)

// Document types get_linked_payments searches (LinkedPaymentsArgs.DocumentTypes).
// LinkedExactMatch keeps only vouchers whose amount equals the transaction's unallocated
// amount; it does not constrain the reference (72-get-linked-payments-other-reference-exact).
const (
	LinkedPaymentEntry    = "payment_entry"
	LinkedJournalEntry    = "journal_entry"
	LinkedBankTransaction = "bank_transaction"
	LinkedExactMatch      = "exact_match"
)

// JournalEntry is an ERPNext Journal Entry: the settlement entry the connector posts (Bank
// Entry) and the "Exchange Gain Or Loss" journal ERPNext books for a foreign-currency receipt
// (recorded 49-usd-*). On insert send VoucherType, Company, PostingDate, ChequeNo (the UTR),
// ChequeDate, UserRemark and Accounts with the *InAccountCurrency amounts; Name (kept by Frappe
// 15.72, a repeat is 409 DuplicateEntryError, 61-je-insert-client-name-*) and Docstatus 1 to
// submit in one call. The site computes TotalDebit, TotalCredit, Difference (debit − credit),
// Title (the first row's account), Remark ("Note: {user_remark}\nReference #{cheque_no} dated
// {dd-mm-yyyy}") and every row's Debit/Credit, AccountType and CostCenter (61-je-get-submitted).
// A Journal Entry has no status field; ClearanceDate is set by a bank reconciliation only when
// every Bank-type row is allocated (70-je-get-after-reconcile, 72-je-get-after-reconcile-non-
// bank-clearing).
type JournalEntry struct {
	Name          string                `json:"name,omitempty"` // "ACC-JV-2026-00005", or the client's
	VoucherType   string                `json:"voucher_type,omitempty"`
	Company       string                `json:"company,omitempty"`
	PostingDate   string                `json:"posting_date,omitempty"`
	ChequeNo      string                `json:"cheque_no,omitempty"` // the reference, e.g. the UTR
	ChequeDate    string                `json:"cheque_date,omitempty"`
	UserRemark    string                `json:"user_remark,omitempty"`
	Remark        string                `json:"remark,omitempty"` // computed from user_remark and the reference
	Title         string                `json:"title,omitempty"`
	ClearanceDate string                `json:"clearance_date,omitempty"`
	PayToRecdFrom string                `json:"pay_to_recd_from,omitempty"`
	Modified      string                `json:"modified,omitempty"`
	Docstatus     int                   `json:"docstatus,omitempty"`
	MultiCurrency int                   `json:"multi_currency,omitempty"`
	TotalDebit    json.Number           `json:"total_debit,omitempty"`
	TotalCredit   json.Number           `json:"total_credit,omitempty"`
	Difference    json.Number           `json:"difference,omitempty"`
	Accounts      []JournalEntryAccount `json:"accounts,omitempty"`
}

// JournalEntryAccount is one row of JournalEntry.Accounts (child doctype "Journal Entry
// Account"). Send the amounts as DebitInAccountCurrency / CreditInAccountCurrency: the site
// recomputes Debit/Credit (company currency) from them, so a row with only Debit or Credit is
// refused "Row {idx}: Both Debit and Credit values cannot be zero" (63-je-debit-credit-only-
// draft). A Receivable/Payable account needs PartyType and Party (63-je-receivable-without-
// party); CostCenter defaults to the company's on every row.
type JournalEntryAccount struct {
	Name                    string      `json:"name,omitempty"`
	Idx                     int         `json:"idx,omitempty"`
	Account                 string      `json:"account,omitempty"`
	AccountType             string      `json:"account_type,omitempty"` // the account's, e.g. "Bank"
	AccountCurrency         string      `json:"account_currency,omitempty"`
	PartyType               string      `json:"party_type,omitempty"`
	Party                   string      `json:"party,omitempty"`
	CostCenter              string      `json:"cost_center,omitempty"`
	ReferenceType           string      `json:"reference_type,omitempty"`
	ReferenceName           string      `json:"reference_name,omitempty"`
	UserRemark              string      `json:"user_remark,omitempty"`
	ExchangeRate            json.Number `json:"exchange_rate,omitempty"`
	Debit                   json.Number `json:"debit,omitempty"`
	Credit                  json.Number `json:"credit,omitempty"`
	DebitInAccountCurrency  json.Number `json:"debit_in_account_currency,omitempty"`
	CreditInAccountCurrency json.Number `json:"credit_in_account_currency,omitempty"`
}

// BankAccount is an ERPNext Bank Account document: Account is its GL account, the one bank
// reconciliation matches vouchers against (66-bank-account-list-by-gl-account: the Accounts User
// may list them by account).
type BankAccount struct {
	Name             string `json:"name,omitempty"` // "{account_name} - {bank}", e.g. "HDFC Current - HDFC Bank"
	AccountName      string `json:"account_name,omitempty"`
	Account          string `json:"account,omitempty"` // GL account, e.g. "HDFC Bank - EC"
	Bank             string `json:"bank,omitempty"`
	Company          string `json:"company,omitempty"`
	BankAccountNo    string `json:"bank_account_no,omitempty"`
	IBAN             string `json:"iban,omitempty"`
	IsCompanyAccount int    `json:"is_company_account,omitempty"`
	IsDefault        int    `json:"is_default,omitempty"`
	Disabled         int    `json:"disabled,omitempty"`
}

// BankTransaction is a bank statement line (66-*, 67-*, 69-*, 72-*). TransactionID is unique
// on the site, drafts and cancelled lines included (417 UniqueValidationError "Transaction ID
// must be unique", 67-bt-duplicate-transaction-id); BankAccount is not link-validated (a wrong
// name is saved and fails later, 66-bt-unknown-bank-account). AllocatedAmount is the sum of
// PaymentEntries; UnallocatedAmount = |withdrawal − deposit| − allocated. Cancelling needs the
// Accounts Manager or System Manager (the Accounts User gets 403, 72-bt-cancel-api-user-403).
type BankTransaction struct {
	Name              string                   `json:"name,omitempty"` // "ACC-BTN-2026-00002"
	Date              string                   `json:"date,omitempty"`
	Status            string                   `json:"status,omitempty"` // BankTransactionPending, …
	BankAccount       string                   `json:"bank_account,omitempty"`
	Company           string                   `json:"company,omitempty"`
	Currency          string                   `json:"currency,omitempty"`
	Description       string                   `json:"description,omitempty"`
	ReferenceNumber   string                   `json:"reference_number,omitempty"`
	TransactionID     string                   `json:"transaction_id,omitempty"`
	TransactionType   string                   `json:"transaction_type,omitempty"`
	PartyType         string                   `json:"party_type,omitempty"`
	Party             string                   `json:"party,omitempty"`
	Modified          string                   `json:"modified,omitempty"`
	Docstatus         int                      `json:"docstatus,omitempty"`
	Deposit           json.Number              `json:"deposit,omitempty"`
	Withdrawal        json.Number              `json:"withdrawal,omitempty"`
	AllocatedAmount   json.Number              `json:"allocated_amount,omitempty"`
	UnallocatedAmount json.Number              `json:"unallocated_amount,omitempty"`
	PaymentEntries    []BankTransactionPayment `json:"payment_entries,omitempty"`
}

// BankTransactionPayment is one row of BankTransaction.PaymentEntries (child doctype "Bank
// Transaction Payments"): a voucher allocated to the line (70-bt-get-after-reconcile).
type BankTransactionPayment struct {
	Name            string      `json:"name,omitempty"`
	Idx             int         `json:"idx,omitempty"`
	PaymentDocument string      `json:"payment_document,omitempty"` // "Journal Entry", "Payment Entry"
	PaymentEntry    string      `json:"payment_entry,omitempty"`    // the voucher's name
	AllocatedAmount json.Number `json:"allocated_amount,omitempty"`
	ClearanceDate   string      `json:"clearance_date,omitempty"`
}

// LinkedPaymentsArgs are get_linked_payments' arguments (15.71.1 signature). Without FromDate
// and ToDate nothing matches; with FilterByReferenceDate 1 the reference dates bound the
// search instead. DocumentTypes holds LinkedPaymentEntry, LinkedJournalEntry, … and optionally
// LinkedExactMatch.
type LinkedPaymentsArgs struct {
	BankTransactionName   string   `json:"bank_transaction_name"`
	DocumentTypes         []string `json:"document_types"`
	FromDate              string   `json:"from_date,omitempty"`
	ToDate                string   `json:"to_date,omitempty"`
	FilterByReferenceDate int      `json:"filter_by_reference_date,omitempty"`
	FromReferenceDate     string   `json:"from_reference_date,omitempty"`
	ToReferenceDate       string   `json:"to_reference_date,omitempty"`
}

// LinkedPayment is one row of get_linked_payments, highest Rank first. Rank = 1 + (reference
// equals the transaction's reference_number) + (amount equals its unallocated amount) [+ same
// party for Payment Entries], computed on the full amounts; PaidAmount then has what submitted
// Bank Transactions already allocated to the voucher subtracted, so it may be "0.0" and still
// listed (71-get-linked-payments-after-reconcile). For a Payment Entry PaidAmount is its
// base_paid_amount_after_tax, not what reached the bank (76-get-linked-payments-internal-
// transfer). Party and PartyType are null for settlement entries.
type LinkedPayment struct {
	Rank          int         `json:"rank"`
	Doctype       string      `json:"doctype"` // "Journal Entry", "Payment Entry", "Bank Transaction"
	Name          string      `json:"name"`
	PaidAmount    json.Number `json:"paid_amount"`
	ReferenceNo   string      `json:"reference_no"`   // cheque_no for a Journal Entry
	ReferenceDate string      `json:"reference_date"` // cheque_date for a Journal Entry
	Party         string      `json:"party"`
	PartyType     string      `json:"party_type"`
	PostingDate   string      `json:"posting_date"`
	Currency      string      `json:"currency"`
}

// ReconcileVoucher is one voucher to allocate to a Bank Transaction. Amount is sent but ignored
// by ERPNext 15.71.1: the allocation is min(the voucher's bank GL amount − earlier allocations,
// the transaction's unallocated amount) (71-reconcile-vouchers-amount-above-unallocated), and a
// voucher with nothing left is dropped without an error (71-reconcile-je-already-allocated-
// elsewhere).
type ReconcileVoucher struct {
	PaymentDoctype string      `json:"payment_doctype"` // "Journal Entry", "Payment Entry"
	PaymentName    string      `json:"payment_name"`
	Amount         json.Number `json:"amount,omitempty"`
}

// ReconcileVouchersArgs are reconcile_vouchers' arguments for Client.Call: vouchers must travel
// as a JSON string (69-reconcile-vouchers); a JSON list makes the site's json.loads fail with a
// 500 TypeError.
func ReconcileVouchersArgs(bankTransaction string, vouchers ...ReconcileVoucher) (map[string]string, error) {
	if vouchers == nil {
		vouchers = []ReconcileVoucher{}
	}
	b, err := json.Marshal(vouchers)
	if err != nil {
		return nil, fmt.Errorf("frappe: encode vouchers for %s: %w", bankTransaction, err)
	}
	return map[string]string{"bank_transaction_name": bankTransaction, "vouchers": string(b)}, nil
}
