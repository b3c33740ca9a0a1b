// Package erpnextsim is an in-memory ERPNext v15 site served as an
// http.Handler: the Frappe v1 REST surface and the Payment Entry / Sales
// Invoice accounting a Razorpay booking connector relies on, following
// shared/spec/erpnext.md §9 item by item and, where they differ, the
// recordings of a real Frappe 15.72.4 / ERPNext 15.71.1 site in
// shared/reference/erpnext-recorded (their README lists every difference).
//
// It is used with httptest by the booking tests, by `razorpay-erpnext demo`
// and served by `razorpay-erpnext simulate erpnext`. It answers what the real
// site answers and is deliberately no kinder (shared/reference/erpnext-recorded-
// connector/README lists the differences it once had): a list that joins a child
// table with an unqualified order_by column both tables have answers 500
// OperationalError 1052 (R01, R02); a list without order_by has no ORDER BY and
// comes back in primary-key (name) order; text comparisons are case-insensitive
// like the site's utf8mb4_unicode_ci collation; two concurrent inserts of one
// client name deadlock (1213, R03); a row held elsewhere makes a write wait and
// time out (1205, HoldRowLock, R05); two concurrent Payment Entries can over-pay
// an invoice (§3.7); invoices are rounded (rounded_total, recordings 81-*); and
// writes can be committed although the client sees an error (faults:
// DropResponseAfterCommit, GatewayErrorAfterCommit, CommitLate). The API user
// holds exactly Accounts User + Sales User unless Options.APIRoles says otherwise.
//
// # Scale
//
// Lists filtered on an indexed column (index.go: reference_no, party, invoice and
// Payment Request of a reference row, cheque_no, voucher_no, …) read only the
// documents the index names, and GL balances come from running books (books.go),
// so the connector's calls cost the same at 100,000 Payment Entries as at 100
// (bench_test.go). Options.Profile serves calls with a real site's service times
// and worker count (ProfileRealV15); Site.Insert seeds documents without HTTP.
//
// # The default site
//
// New builds one company modelled on the recorded site (see the constants):
// company "Example Company" (abbr "EC", currency INR, time zone Asia/Kolkata),
// the standard Indian chart of accounts of the recording plus
// "Input Tax GST - EC", cost center "Main - EC", a fiscal year April–March
// containing the simulator's today, Modes of Payment "Razorpay" (Bank →
// "Razorpay Clearing - EC", an account of type Cash, as the README recommends;
// Options.ClearingAccountType "Bank" makes it the recorded site's) and "Cash"
// (→ "Cash - EC"), and one API user
// (roles Accounts User + Sales User). There are no customers and
// no invoices: add them with AddCustomer, AddSalesInvoice, LoadSeed or over
// REST (POST /api/resource/Customer, POST /api/resource/Sales Invoice).
//
// # Beyond the first pass
//
// Credit notes (InvoiceSpec.IsReturn; refunds by a Pay entry with a negative allocation,
// recordings 40-43), Payment Requests (make_payment_request, AddPaymentRequest; 44, 46, 47),
// Integration Requests readable only by a System Manager (Options.Users,
// AddIntegrationRequest; 45), foreign-currency receipts with an "Exchange Gain Or Loss"
// Journal Entry (AddCustomerSpec, ReceivableUSD; 48, 49), Accounts Settings acc_frozen_upto
// (SetFrozenUpto; 52) and the site-wide rate limiter (SetRateLimit; 31). Contacts with
// email/phone/link child tables and their child-filter lookups (AddContact; §6, 56), Comments
// through frappe.desk.form.utils.add_comment (Site.Comments; 51), System Settings readable only
// by a System Manager (54), and the frappe.client save/submit/set_value/delete helpers with the
// `modified` check (§1.6, §8.3; 23, 25). Payment Terms Templates (AddPaymentTermsTemplate,
// InvoiceSpec.PaymentTermsTemplate): a payment_schedule per term, term-wise allocation in
// get_payment_entry and V14, schedule paid amounts moved on submit/cancel, Overdue from the
// schedule. The ledger checks of §3.2 S2 on submit (group account, account of another company,
// deduction account not in company currency; AddAccount, AddCompany), balances as
// get_balance_on sums them (each entry rounded half away from zero). Successful writes can
// carry _server_messages as recorded. Faults and ground truth are also reachable over HTTP
// under /__sim/ (see Site.State and FaultSettings).
//
// # Settlements
//
// The settlement half follows shared/reference/erpnext-recorded-settlement (recordings 60-80)
// item by item (settlement_meta.go lists the files): Account, Company, Bank and Bank Account
// created over REST as a System Manager sets a site up; Journal Entries (Bank Entry) with their
// refusals at the recorded time, GL rows and cancel with reversing entries; Bank Transactions
// as a bank statement import makes them; get_linked_payments, reconcile_vouchers (with
// ERPNext's rule that an entry is cleared only when every Bank-type GL row of it is allocated)
// and get_balance_on; Payment Entries of type Internal Transfer. A test or the demo seeds a
// Bank Account and imports Bank Transactions through the REST API, as a user would;
// SetUpSettlements (POST /__sim/setup/settlements) makes the recorded set-up in one call, and
// PUT /api/resource/Account changes an account's type (accounts_update.go).
//
// # Money
//
// Amounts are exact decimals in nano-units (ERPNext's decimal(21,9)); no
// float64 arithmetic. Base amounts, the ledger and invoice outstanding are
// rounded to 2 decimals with banker's rounding (recording 55-*). JSON numbers
// are rendered like Python floats ("1000.0", "10.125").
package erpnextsim

// Names of the default site's records (modelled on the recorded site, README
// "Site data"). Tests and the demo refer to these instead of literals.
const (
	DefaultCompany    = "Example Company"        // the only company; default_currency INR
	DefaultAbbr       = "EC"                     // company abbreviation, suffix of account names
	DefaultCurrency   = "INR"                    // company currency
	DefaultReceivable = "Debtors - EC"           // Receivable; company default_receivable_account
	ReceivableUSD     = "Debtors USD - EC"       // Receivable in USD, for USD customers (recordings 48-*, 49-*)
	DefaultBank       = "Bank Account - EC"      // Bank; company default_bank_account (made by the 15.71 setup wizard)
	RazorpayClearing  = "Razorpay Clearing - EC" // Cash (Bank on the recorded site); Mode of Payment "Razorpay" default account
	FeeAccount        = "Razorpay Fees - EC"     // Expense (Indirect Expenses); for fee deductions
	GSTInputAccount   = "Input Tax GST - EC"     // Tax (Tax Assets); GST charged on the fee
	CashAccount       = "Cash - EC"              // Cash; company default_cash_account, Mode of Payment "Cash"
	IncomeAccount     = "Sales - EC"             // income account of simulated invoice items
	CostCenter        = "Main - EC"              // company cost_center
	ModeOfPayment     = "Razorpay"               // Mode of Payment, type Bank → RazorpayClearing
	APIUser           = "api@example.com"        // the user Options.APIKey authenticates as
	TimeZone          = "Asia/Kolkata"           // site time zone: "today", creation and modified use it
)
