package erpnextsim

import (
	"strings"
)

// fieldType is the Frappe field type, reduced to what changes behaviour here.
type fieldType int

const (
	ftData     fieldType = iota // Data, Select, Small Text, Text, Time: a string
	ftLink                      // Link: a string naming a document of options
	ftDynLink                   // Dynamic Link: options names the field holding the doctype
	ftDate                      // Date: "YYYY-MM-DD"
	ftDatetime                  // Datetime: "YYYY-MM-DD HH:MM:SS.ffffff"
	ftCurrency                  // Currency: dec
	ftFloat                     // Float: dec
	ftInt                       // Int and Check: int64
	ftTable                     // Table: []*record of doctype options
)

func (t fieldType) numeric() bool { return t == ftCurrency || t == ftFloat || t == ftInt }

// field is one column of a doctype.
type field struct {
	name, label, options string
	typ                  fieldType
	reqd                 bool // reqd: 1 in the doctype JSON (framework mandatory check, §3.2 F)
	allowOnSubmit        bool // allow_on_submit: may change after submit (§1.7)
	fetchDeps            bool // other fields fetch from this Link: Frappe's link check skips a missing target (README difference 2)
}

// meta describes a doctype: its fields in doctype order and how it is named.
type meta struct {
	name        string
	fields      []*field
	byName      map[string]*field
	submittable bool
	child       bool
	series      string // naming series prefix without the year, e.g. "ACC-PAY-"
}

// standardFields are the columns every doctype has; child tables add parent columns.
var standardFields = []string{"name", "owner", "creation", "modified", "modified_by", "docstatus", "idx"}
var childStandardFields = []string{"parent", "parentfield", "parenttype"}

func (m *meta) field(name string) *field { return m.byName[name] }

// hasColumn reports whether name may be used in a query (fields/filters/order_by).
func (m *meta) hasColumn(name string) bool {
	if m.byName[name] != nil && m.byName[name].typ != ftTable {
		return true
	}
	for _, s := range standardFields {
		if s == name {
			return true
		}
	}
	if m.child {
		for _, s := range childStandardFields {
			if s == name {
				return true
			}
		}
	}
	return false
}

// columnType is the type of a queryable column, standard ones included.
func (m *meta) columnType(name string) fieldType {
	if f := m.byName[name]; f != nil {
		return f.typ
	}
	switch name {
	case "docstatus", "idx":
		return ftInt
	case "creation", "modified":
		return ftDatetime
	}
	return ftData
}

// parseFields reads the compact field table: one "name|Type|Label|options|flags"
// line per field; flags r = reqd, s = allow_on_submit, f = fetch dependents.
func parseFields(spec string) []*field {
	var out []*field
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		p := strings.Split(strings.TrimSpace(line), "|")
		if len(p) < 5 {
			continue
		}
		f := &field{name: p[0], label: p[2], options: p[3]}
		switch p[1] {
		case "Link":
			f.typ = ftLink
		case "Dynamic Link":
			f.typ = ftDynLink
		case "Date":
			f.typ = ftDate
		case "Datetime":
			f.typ = ftDatetime
		case "Currency":
			f.typ = ftCurrency
		case "Float", "Percent":
			f.typ = ftFloat
		case "Int", "Check":
			f.typ = ftInt
		case "Table":
			f.typ = ftTable
		default:
			f.typ = ftData
		}
		f.reqd = strings.Contains(p[4], "r")
		f.allowOnSubmit = strings.Contains(p[4], "s")
		f.fetchDeps = strings.Contains(p[4], "f")
		if f.label == "" {
			f.label = f.name
		}
		out = append(out, f)
	}
	return out
}

// metas holds every doctype the simulator models, by name.
var metas = map[string]*meta{}

func register(name string, spec string, opts func(*meta)) *meta {
	m := &meta{name: name, fields: parseFields(spec), byName: map[string]*field{}}
	for _, f := range m.fields {
		m.byName[f.name] = f
	}
	if opts != nil {
		opts(m)
	}
	metas[name] = m
	return m
}

func init() {
	register("Payment Entry", paymentEntryFields, func(m *meta) { m.submittable = true; m.series = "ACC-PAY-" })
	register("Payment Entry Reference", paymentEntryReferenceFields, func(m *meta) { m.child = true })
	register("Payment Entry Deduction", paymentEntryDeductionFields, func(m *meta) { m.child = true })
	register("Sales Invoice", salesInvoiceFields, func(m *meta) { m.submittable = true; m.series = "ACC-SINV-" })
	register("Sales Invoice Item", salesInvoiceItemFields, func(m *meta) { m.child = true })
	register("Payment Schedule", paymentScheduleFields, func(m *meta) { m.child = true })
	register("Mode of Payment", modeOfPaymentFields, nil)
	register("Mode of Payment Account", modeOfPaymentAccountFields, func(m *meta) { m.child = true })
	register("Customer", customerFields, nil)
	register("Party Account", "company|Link|Company|Company|\naccount|Link|Default Account|Account|\nadvance_account|Link|Advance Account|Account|", func(m *meta) { m.child = true })
	register("Account", accountFields, nil)
	register("Company", companyFields, nil)
	register("Cost Center", costCenterFields, nil)
	register("Fiscal Year", fiscalYearFields, nil)
	register("GL Entry", glEntryFields, nil)
	register("Currency", currencyFields, nil)
	register("DocType", "module|Data|Module||", nil)
	// Child tables that exist on the real doctypes but hold no rows here.
	for _, name := range []string{"Advance Taxes and Charges", "Sales Taxes and Charges", "Sales Invoice Timesheet",
		"Packed Item", "Sales Invoice Payment", "Sales Invoice Advance", "Sales Team", "Pricing Rule Detail"} {
		register(name, "", func(m *meta) { m.child = true })
	}
}

// knownUnmodelled are real v15 doctypes the simulator does not model yet: they
// answer 501 instead of pretending to be empty or unknown.
var knownUnmodelled = map[string]bool{
	"Journal Entry": true, "Journal Entry Account": true, "Payment Request": true, "Payment Ledger Entry": true,
	"Contact": true, "Address": true, "Item": true, "Sales Order": true, "Dunning": true, "Bank Account": true,
	"Accounts Settings": true, "Project": true, "Customer Group": true, "Territory": true,
}

// noPermission are doctypes the API user's roles (Accounts User/Manager, Sales
// User/Manager) cannot read or create (recordings 29-*, 45-*, 51-*, 54-*).
var noPermission = map[string]bool{
	"Integration Request": true, "Comment": true, "System Settings": true, "User": true, "Role": true,
}

var modeOfPaymentFields = `
mode_of_payment|Data|Mode of Payment||r
enabled|Check|Enabled||
type|Select|Type||
accounts|Table|Accounts|Mode of Payment Account|
`

var customerFields = `
naming_series|Select|Series||
salutation|Data|Salutation||
customer_name|Data|Customer Name||r
customer_type|Select|Customer Type||r
customer_group|Data|Customer Group||
territory|Data|Territory||
gender|Data|Gender||
default_currency|Link|Billing Currency|Currency|
default_price_list|Data|Default Price List||
is_internal_customer|Check|Is Internal Customer||
disabled|Check|Disabled||
customer_primary_contact|Link|Customer Primary Contact|Contact|
email_id|Data|Email Id||
mobile_no|Data|Mobile No||
tax_id|Data|Tax ID||
language|Data|Print Language||
accounts|Table|Accounts|Party Account|
`

var accountFields = `
account_name|Data|Account Name||r
account_number|Data|Account Number||
is_group|Check|Is Group||
company|Link|Company|Company|r
root_type|Select|Root Type||
report_type|Select|Report Type||
account_currency|Link|Currency|Currency|
parent_account|Link|Parent Account|Account|r
account_type|Select|Account Type||
tax_rate|Float|Rate||
freeze_account|Select|Frozen||
balance_must_be|Select|Balance must be||
lft|Int|Lft||
rgt|Int|Rgt||
old_parent|Data|Old Parent||
include_in_gross|Check|Include in gross||
disabled|Check|Disable||
`

var companyFields = `
company_name|Data|Company||r
abbr|Data|Abbr||r
default_currency|Link|Default Currency|Currency|r
country|Data|Country||r
default_bank_account|Link|Default Bank Account|Account|
default_cash_account|Link|Default Cash Account|Account|
default_receivable_account|Link|Default Receivable Account|Account|
default_payable_account|Link|Default Payable Account|Account|
default_income_account|Link|Default Income Account|Account|
round_off_account|Link|Round Off Account|Account|
write_off_account|Link|Write Off Account|Account|
exchange_gain_loss_account|Link|Exchange Gain / Loss Account|Account|
cost_center|Link|Default Cost Center|Cost Center|
round_off_cost_center|Link|Round Off Cost Center|Cost Center|
book_advance_payments_in_separate_party_account|Check|Book Advance Payments in Separate Party Account||
reconcile_on_advance_payment_date|Check|Reconcile on Advance Payment Date||
default_advance_received_account|Link|Default Advance Received Account|Account|
`

var costCenterFields = `
cost_center_name|Data|Cost Center Name||r
cost_center_number|Data|Cost Center Number||
parent_cost_center|Link|Parent Cost Center|Cost Center|
company|Link|Company|Company|r
is_group|Check|Is Group||
disabled|Check|Disabled||
lft|Int|Lft||
rgt|Int|Rgt||
`

var fiscalYearFields = `
year|Data|Year Name||r
disabled|Check|Disabled||
is_short_year|Check|Is Short/Long Year||
year_start_date|Date|Year Start Date||r
year_end_date|Date|Year End Date||r
`

var glEntryFields = `
posting_date|Date|Posting Date||
transaction_date|Date|Transaction Date||
account|Link|Account|Account|
party_type|Link|Party Type|DocType|
party|Dynamic Link|Party|party_type|
cost_center|Link|Cost Center|Cost Center|
debit|Currency|Debit Amount||
credit|Currency|Credit Amount||
account_currency|Link|Account Currency|Currency|
debit_in_account_currency|Currency|Debit Amount in Account Currency||
credit_in_account_currency|Currency|Credit Amount in Account Currency||
against|Text|Against||
against_voucher_type|Link|Against Voucher Type|DocType|
against_voucher|Dynamic Link|Against Voucher|against_voucher_type|
voucher_type|Link|Voucher Type|DocType|
voucher_no|Dynamic Link|Voucher No|voucher_type|
remarks|Text|Remarks||
is_opening|Select|Is Opening||
is_advance|Select|Is Advance||
fiscal_year|Link|Fiscal Year|Fiscal Year|
company|Link|Company|Company|
is_cancelled|Check|Is Cancelled||
`

var currencyFields = `
currency_name|Data|Currency Name||r
enabled|Check|Enabled||
fraction|Data|Fraction||
fraction_units|Int|Fraction Units||
symbol|Data|Symbol||
`
