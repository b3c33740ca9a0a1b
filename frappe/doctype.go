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
	DoctypeJournalEntry          = "Journal Entry"
	DoctypeGLEntry               = "GL Entry"
)

// MethodMakePaymentRequest is ERPNext's whitelisted Payment Request builder: args dt, dn,
// submit_doc, mute_email; "message" is the new Payment Request with nulls kept (spec §3.9,
// recorded 44-make-payment-request-submit).
const MethodMakePaymentRequest = "erpnext.accounts.doctype.payment_request.payment_request.make_payment_request"

// MethodAddComment is the desk's comment method: args reference_doctype, reference_name,
// content, comment_email, comment_by; it needs only read permission on the document, while
// POST /api/resource/Comment is refused to non-System Managers (recorded 51-*).
const MethodAddComment = "frappe.desk.form.utils.add_comment"

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
	Name                     string      `json:"name,omitempty"`
	Customer                 string      `json:"customer,omitempty"`
	Company                  string      `json:"company,omitempty"`
	Currency                 string      `json:"currency,omitempty"`
	PartyAccountCurrency     string      `json:"party_account_currency,omitempty"`
	DebitTo                  string      `json:"debit_to,omitempty"`
	Status                   string      `json:"status,omitempty"` // e.g. "Unpaid", "Partly Paid", "Paid", "Cancelled"
	DueDate                  string      `json:"due_date,omitempty"`
	PostingDate              string      `json:"posting_date,omitempty"`
	Modified                 string      `json:"modified,omitempty"`
	ReturnAgainst            string      `json:"return_against,omitempty"`              // the original invoice of a credit note
	UpdateOutstandingForSelf int         `json:"update_outstanding_for_self,omitempty"` // 1: a credit note carries its own (negative) outstanding (recorded 40-*)
	Docstatus                int         `json:"docstatus,omitempty"`
	IsReturn                 int         `json:"is_return,omitempty"`
	GrandTotal               json.Number `json:"grand_total,omitempty"`
	RoundedTotal             json.Number `json:"rounded_total,omitempty"`
	BaseGrandTotal           json.Number `json:"base_grand_total,omitempty"`
	OutstandingAmount        json.Number `json:"outstanding_amount,omitempty"` // in the party account currency
	ConversionRate           json.Number `json:"conversion_rate,omitempty"`
	// RoundingAdjustment is rounded_total − grand_total in the invoice currency (0 when the
	// site or the invoice disables rounding; 8.35 → 8.00 gives −0.35, recorded 81-*).
	RoundingAdjustment json.Number `json:"rounding_adjustment,omitempty"`
	// What get_payment_entry copies from the invoice into the entry (15.71 payment_entry.py):
	// cost center, project (else the first item's), contact and letter head.
	CostCenter    string `json:"cost_center,omitempty"`
	Project       string `json:"project,omitempty"`
	ContactPerson string `json:"contact_person,omitempty"`
	LetterHead    string `json:"letter_head,omitempty"`
	// PaymentTermsTemplate names the template the schedule came from ("" for none).
	PaymentTermsTemplate string             `json:"payment_terms_template,omitempty"`
	PaymentSchedule      []PaymentSchedule  `json:"payment_schedule,omitempty"`
	Items                []SalesInvoiceItem `json:"items,omitempty"`
}

// SalesInvoiceItem is the part of an invoice line the connector reads.
type SalesInvoiceItem struct {
	Project string `json:"project,omitempty"`
}

// PaymentSchedule is one row of an invoice's payment_schedule (child doctype "Payment
// Schedule"). Amounts are decimal text in the invoice currency; a term is paid through
// reference rows naming its PaymentTerm when the template allocates by term.
type PaymentSchedule struct {
	PaymentTerm      string      `json:"payment_term,omitempty"`
	DueDate          string      `json:"due_date,omitempty"`
	PaymentAmount    json.Number `json:"payment_amount,omitempty"`
	PaidAmount       json.Number `json:"paid_amount,omitempty"`
	Outstanding      json.Number `json:"outstanding,omitempty"`
	Discount         json.Number `json:"discount,omitempty"` // early-payment discount (percent or amount) until DiscountDate
	DiscountDate     string      `json:"discount_date,omitempty"`
	DiscountedAmount json.Number `json:"discounted_amount,omitempty"`
}

// DoctypePaymentTermsTemplate is ERPNext's Payment Terms Template; its
// allocate_payment_based_on_payment_terms decides whether a payment is allocated term by term.
const DoctypePaymentTermsTemplate = "Payment Terms Template"

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
	// ExchangeRate is the invoice's rate to company currency; ExchangeGainLoss the company-currency
	// difference between valuing the allocation at the entry's rate and at ExchangeRate, booked by
	// ERPNext in a separate Journal Entry (recorded 49-usd-pe-submitted).
	ExchangeRate              json.Number `json:"exchange_rate,omitempty"`
	ExchangeGainLoss          json.Number `json:"exchange_gain_loss,omitempty"`
	PaymentRequestOutstanding json.Number `json:"payment_request_outstanding,omitempty"` // the linked request's outstanding (recorded 46-*, 47-*)
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

// PaymentRequest is the part of an ERPNext Payment Request the connector reads (spec §3.9,
// recorded 44-*, 47-*). Status is "Draft", "Requested", "Initiated", "Partially Paid",
// "Payment Ordered", "Paid", "Failed" or "Cancelled"; amounts are decimal text in Currency.
type PaymentRequest struct {
	Name               string      `json:"name,omitempty"`                 // "ACC-PRQ-2026-00001"
	PaymentRequestType string      `json:"payment_request_type,omitempty"` // "Inward" for customers
	Company            string      `json:"company,omitempty"`
	PartyType          string      `json:"party_type,omitempty"`
	Party              string      `json:"party,omitempty"`
	ReferenceDoctype   string      `json:"reference_doctype,omitempty"`
	ReferenceName      string      `json:"reference_name,omitempty"`
	Currency           string      `json:"currency,omitempty"`
	Status             string      `json:"status,omitempty"`
	PaymentGateway     string      `json:"payment_gateway,omitempty"`
	ModeOfPayment      string      `json:"mode_of_payment,omitempty"`
	EmailTo            string      `json:"email_to,omitempty"`
	Modified           string      `json:"modified,omitempty"`
	Docstatus          int         `json:"docstatus,omitempty"`
	GrandTotal         json.Number `json:"grand_total,omitempty"`
	OutstandingAmount  json.Number `json:"outstanding_amount,omitempty"`
}

// IntegrationRequest is a Frappe Integration Request (spec §5.1, recorded 45-*): readable only by
// a System Manager. Data is JSON text (the Razorpay checkout stores razorpay_payment_id there);
// Status is "", "Queued", "Authorized", "Completed", "Cancelled" or "Failed".
type IntegrationRequest struct {
	Name                      string `json:"name,omitempty"`                        // 10-character hash, e.g. "stv7lfv77m"
	IntegrationRequestService string `json:"integration_request_service,omitempty"` // e.g. "Razorpay"
	Status                    string `json:"status,omitempty"`
	ReferenceDoctype          string `json:"reference_doctype,omitempty"`
	ReferenceDocname          string `json:"reference_docname,omitempty"`
	Data                      string `json:"data,omitempty"`
	Output                    string `json:"output,omitempty"`
	Error                     string `json:"error,omitempty"`
	RequestID                 string `json:"request_id,omitempty"`
	RequestDescription        string `json:"request_description,omitempty"`
	IsRemoteRequest           int    `json:"is_remote_request,omitempty"`
	Creation                  string `json:"creation,omitempty"`
	Modified                  string `json:"modified,omitempty"`
}

// Contact is a Frappe Contact with its child tables (spec §6, recorded 56-*). EmailID and
// MobileNo mirror the primary rows.
type Contact struct {
	Name      string         `json:"name,omitempty"`
	FirstName string         `json:"first_name,omitempty"`
	LastName  string         `json:"last_name,omitempty"`
	FullName  string         `json:"full_name,omitempty"`
	EmailID   string         `json:"email_id,omitempty"`
	MobileNo  string         `json:"mobile_no,omitempty"`
	Phone     string         `json:"phone,omitempty"`
	EmailIDs  []ContactEmail `json:"email_ids,omitempty"`
	PhoneNos  []ContactPhone `json:"phone_nos,omitempty"`
	Links     []DynamicLink  `json:"links,omitempty"`
}

// ContactEmail is one row of Contact.EmailIDs (child doctype "Contact Email").
type ContactEmail struct {
	EmailID   string `json:"email_id,omitempty"`
	IsPrimary int    `json:"is_primary,omitempty"`
}

// ContactPhone is one row of Contact.PhoneNos (child doctype "Contact Phone"); numbers are
// stored as typed.
type ContactPhone struct {
	Phone             string `json:"phone,omitempty"`
	IsPrimaryPhone    int    `json:"is_primary_phone,omitempty"`
	IsPrimaryMobileNo int    `json:"is_primary_mobile_no,omitempty"`
}

// DynamicLink is one row of Contact.Links (child doctype "Dynamic Link"), e.g. LinkDoctype
// "Customer", LinkName the customer's name.
type DynamicLink struct {
	LinkDoctype string `json:"link_doctype,omitempty"`
	LinkName    string `json:"link_name,omitempty"`
	LinkTitle   string `json:"link_title,omitempty"`
}

// Company is the part of an ERPNext Company the connector reads (spec §7).
type Company struct {
	Name                     string `json:"name,omitempty"`
	Abbr                     string `json:"abbr,omitempty"`
	DefaultCurrency          string `json:"default_currency,omitempty"`
	DefaultBankAccount       string `json:"default_bank_account,omitempty"`
	DefaultCashAccount       string `json:"default_cash_account,omitempty"`
	DefaultReceivableAccount string `json:"default_receivable_account,omitempty"`
	CostCenter               string `json:"cost_center,omitempty"` // use for deduction rows
	ExchangeGainLossAccount  string `json:"exchange_gain_loss_account,omitempty"`
	RoundOffAccount          string `json:"round_off_account,omitempty"`
	WriteOffAccount          string `json:"write_off_account,omitempty"`
}
