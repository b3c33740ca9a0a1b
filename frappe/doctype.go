package frappe

import "encoding/json"

// ERPNext doctype names as used in /api/resource paths and filters.
const (
	DoctypePaymentEntry          = "Payment Entry"
	DoctypePaymentEntryReference = "Payment Entry Reference"
	DoctypePaymentEntryDeduction = "Payment Entry Deduction"
	DoctypeSalesInvoice          = "Sales Invoice"
	DoctypePaymentRequest        = "Payment Request"
	DoctypeIntegrationRequest    = "Integration Request"
	DoctypeModeOfPayment         = "Mode of Payment"
	DoctypeModeOfPaymentAccount  = "Mode of Payment Account"
	DoctypeCustomer              = "Customer"
	DoctypeContact               = "Contact"
	DoctypeAccount               = "Account"
	DoctypeComment               = "Comment"
	DoctypeCompany               = "Company"
)

// MethodGetPaymentEntry is ERPNext's whitelisted builder of an unsaved Payment Entry for a
// document: args dt, dn, and optionally party_amount and bank_account; it returns the document
// with "__islocal": 1 and no name (spec/erpnext.md §3; recorded 26-get-payment-entry-*).
const MethodGetPaymentEntry = "erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"

// Docstatus values (spec/erpnext.md §1.7).
const (
	DocstatusDraft     = 0
	DocstatusSubmitted = 1
	DocstatusCancelled = 2
)

// SalesInvoice is the part of an ERPNext Sales Invoice the connector reads. Currency and Float
// fields are decimal text as the server sent it (e.g. "1000.0"); convert with exact decimal
// arithmetic, never float64. Dates are "YYYY-MM-DD"; Modified is "YYYY-MM-DD HH:MM:SS.ffffff" in
// the site's time zone.
type SalesInvoice struct {
	Name                 string      `json:"name,omitempty"`
	Customer             string      `json:"customer,omitempty"`
	Company              string      `json:"company,omitempty"`
	Currency             string      `json:"currency,omitempty"`
	PartyAccountCurrency string      `json:"party_account_currency,omitempty"`
	DebitTo              string      `json:"debit_to,omitempty"`
	Status               string      `json:"status,omitempty"` // e.g. "Unpaid", "Partly Paid", "Paid", "Cancelled"
	DueDate              string      `json:"due_date,omitempty"`
	PostingDate          string      `json:"posting_date,omitempty"`
	Modified             string      `json:"modified,omitempty"`
	ReturnAgainst        string      `json:"return_against,omitempty"`
	Docstatus            int         `json:"docstatus,omitempty"`
	IsReturn             int         `json:"is_return,omitempty"`
	GrandTotal           json.Number `json:"grand_total,omitempty"`
	RoundedTotal         json.Number `json:"rounded_total,omitempty"`
	BaseGrandTotal       json.Number `json:"base_grand_total,omitempty"`
	OutstandingAmount    json.Number `json:"outstanding_amount,omitempty"` // in the party account currency
	ConversionRate       json.Number `json:"conversion_rate,omitempty"`
}

// PaymentEntry is the part of an ERPNext Payment Entry the connector reads (spec/erpnext.md §3).
// Amounts are decimal text: PaidAmount in the paid_from account currency, ReceivedAmount in the
// paid_to account currency.
type PaymentEntry struct {
	Name                 string                  `json:"name,omitempty"`
	Status               string                  `json:"status,omitempty"`
	PaymentType          string                  `json:"payment_type,omitempty"` // "Receive", "Pay", "Internal Transfer"
	Company              string                  `json:"company,omitempty"`
	PostingDate          string                  `json:"posting_date,omitempty"`
	PartyType            string                  `json:"party_type,omitempty"`
	Party                string                  `json:"party,omitempty"`
	ModeOfPayment        string                  `json:"mode_of_payment,omitempty"`
	PaidFrom             string                  `json:"paid_from,omitempty"`
	PaidTo               string                  `json:"paid_to,omitempty"`
	ReferenceNo          string                  `json:"reference_no,omitempty"`
	ReferenceDate        string                  `json:"reference_date,omitempty"`
	Remarks              string                  `json:"remarks,omitempty"`
	Modified             string                  `json:"modified,omitempty"`
	Docstatus            int                     `json:"docstatus,omitempty"`
	PaidAmount           json.Number             `json:"paid_amount,omitempty"`
	ReceivedAmount       json.Number             `json:"received_amount,omitempty"`
	TotalAllocatedAmount json.Number             `json:"total_allocated_amount,omitempty"`
	UnallocatedAmount    json.Number             `json:"unallocated_amount,omitempty"`
	DifferenceAmount     json.Number             `json:"difference_amount,omitempty"`
	SourceExchangeRate   json.Number             `json:"source_exchange_rate,omitempty"`
	TargetExchangeRate   json.Number             `json:"target_exchange_rate,omitempty"`
	References           []PaymentEntryReference `json:"references,omitempty"`
	Deductions           []PaymentEntryDeduction `json:"deductions,omitempty"`
}

// PaymentEntryReference is one allocation row of a Payment Entry (child doctype "Payment Entry
// Reference"). AllocatedAmount is negative for a refund against a return (DESIGN.md §5).
type PaymentEntryReference struct {
	Name              string      `json:"name,omitempty"`
	ReferenceDoctype  string      `json:"reference_doctype,omitempty"`
	ReferenceName     string      `json:"reference_name,omitempty"`
	PaymentTerm       string      `json:"payment_term,omitempty"`
	PaymentRequest    string      `json:"payment_request,omitempty"`
	DueDate           string      `json:"due_date,omitempty"`
	Idx               int         `json:"idx,omitempty"`
	TotalAmount       json.Number `json:"total_amount,omitempty"`
	OutstandingAmount json.Number `json:"outstanding_amount,omitempty"`
	AllocatedAmount   json.Number `json:"allocated_amount,omitempty"`
}

// PaymentEntryDeduction is one deduction row of a Payment Entry (child doctype "Payment Entry
// Deduction"), e.g. the gateway fee; Amount is decimal text in the company currency.
type PaymentEntryDeduction struct {
	Account     string      `json:"account,omitempty"`
	CostCenter  string      `json:"cost_center,omitempty"`
	Description string      `json:"description,omitempty"`
	Amount      json.Number `json:"amount,omitempty"`
}

// ModeOfPayment is an ERPNext Mode of Payment with its per-company default accounts
// (spec/erpnext.md §7; recorded 30-mode-of-payment-doc).
type ModeOfPayment struct {
	Name          string                 `json:"name,omitempty"`
	ModeOfPayment string                 `json:"mode_of_payment,omitempty"`
	Type          string                 `json:"type,omitempty"` // "Cash", "Bank", "General", "Phone"
	Enabled       int                    `json:"enabled,omitempty"`
	Accounts      []ModeOfPaymentAccount `json:"accounts,omitempty"`
}

// ModeOfPaymentAccount is one row of ModeOfPayment.Accounts (child doctype "Mode of Payment
// Account").
type ModeOfPaymentAccount struct {
	Company        string `json:"company,omitempty"`
	DefaultAccount string `json:"default_account,omitempty"`
}

// Customer is the part of an ERPNext Customer the connector reads (spec/erpnext.md §6).
type Customer struct {
	Name          string `json:"name,omitempty"`
	CustomerName  string `json:"customer_name,omitempty"`
	CustomerType  string `json:"customer_type,omitempty"`
	CustomerGroup string `json:"customer_group,omitempty"`
	Territory     string `json:"territory,omitempty"`
	Disabled      int    `json:"disabled,omitempty"`
}

// Account is the part of an ERPNext Account (chart of accounts) the connector reads
// (spec/erpnext.md §7).
type Account struct {
	Name            string `json:"name,omitempty"`
	AccountName     string `json:"account_name,omitempty"`
	Company         string `json:"company,omitempty"`
	AccountType     string `json:"account_type,omitempty"` // e.g. "Bank", "Receivable"
	AccountCurrency string `json:"account_currency,omitempty"`
	RootType        string `json:"root_type,omitempty"` // "Asset", "Liability", "Income", "Expense", "Equity"
	IsGroup         int    `json:"is_group,omitempty"`
	Disabled        int    `json:"disabled,omitempty"`
}
