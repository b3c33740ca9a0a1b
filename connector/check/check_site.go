package check

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// The checks of `check` that read the ERPNext site's accounting setup: accounts, cost
// center, fiscal year, frozen date, precision, permissions, the reference_no index.

// accountRule is what a configured account must be.
type accountRule struct {
	key, name string
	types     []string // allowed account_type values; nil = any
	root      string   // required root_type; "" = any
}

func (k *checker) accounts(ctx context.Context, paidTo string) {
	rules := []accountRule{}
	if paidTo != "" {
		key := "mapping.paid_to"
		if k.cfg.Mapping.PaidTo == "" {
			key = "mapping.paid_to (from the Mode of Payment)"
		}
		rules = append(rules, accountRule{key: key, name: paidTo, types: []string{"Bank", "Cash"}})
	}
	if f := k.cfg.Mapping.Fees; f.Mode == "deduction" {
		rules = append(rules, accountRule{key: "mapping.fees.fee_account", name: f.FeeAccount, root: "Expense"},
			accountRule{key: "mapping.fees.tax_account", name: f.TaxAccount, types: []string{"Tax"}})
	}
	for _, r := range rules {
		k.account(ctx, r)
	}
}

func (k *checker) account(ctx context.Context, r accountRule) {
	var a struct {
		frappe.Account
		FreezeAccount string `json:"freeze_account"`
	}
	err := k.erp.Get(ctx, frappe.DoctypeAccount, r.name, &a)
	if frappe.IsNotFound(err) {
		k.add(r.key, Fail, fmt.Sprintf("Account %q does not exist", r.name),
			"use the exact account name from the Chart of Accounts, including the company suffix (e.g. \"Razorpay Clearing - EC\")")
		return
	}
	if err != nil {
		k.unreadable(r.key, "Account "+r.name, err, "give the API user the Accounts User role")
		return
	}
	var problems, fixes []string
	if a.Company != k.cfg.Mapping.Company {
		problems = append(problems, fmt.Sprintf("belongs to company %q, not %q", a.Company, k.cfg.Mapping.Company))
		fixes = append(fixes, "pick the account of "+k.cfg.Mapping.Company)
	}
	if a.IsGroup != 0 {
		problems = append(problems, "is a group account (nothing can be posted to it)")
		fixes = append(fixes, "pick a ledger (non-group) account under it")
	}
	if a.Disabled != 0 || a.FreezeAccount == "Yes" {
		problems = append(problems, "is disabled or frozen")
		fixes = append(fixes, "enable or unfreeze it in the Chart of Accounts")
	}
	if r.types != nil && !contains(r.types, a.AccountType) {
		problems = append(problems, fmt.Sprintf("has account type %q, expected %s", a.AccountType, strings.Join(r.types, " or ")))
		fixes = append(fixes, fmt.Sprintf("pick an account of type %s, or set Account Type on this account", strings.Join(r.types, "/")))
	}
	if r.root != "" && a.RootType != r.root {
		problems = append(problems, fmt.Sprintf("is under %q, expected an %s account", a.RootType, r.root))
		fixes = append(fixes, "pick an account under "+r.root+"s (e.g. Indirect Expenses)")
	}
	if a.AccountCurrency != "" && a.AccountCurrency != connector.CompanyCurrency {
		problems = append(problems, fmt.Sprintf("is in %s; Razorpay settles in %s", a.AccountCurrency, connector.CompanyCurrency))
		fixes = append(fixes, "pick an INR account")
	}
	if len(problems) > 0 {
		k.add(r.key, Fail, fmt.Sprintf("Account %q %s", r.name, strings.Join(problems, "; ")), strings.Join(fixes, "; "))
		return
	}
	typ := a.AccountType
	if typ == "" {
		typ = a.RootType
	}
	k.add(r.key, OK, fmt.Sprintf("Account %q: %s, %s, company %q", r.name, typ, orDefault(a.AccountCurrency, connector.CompanyCurrency), a.Company), "")
}

func (k *checker) costCenter(ctx context.Context) {
	cc := k.cfg.Mapping.Fees.CostCenter
	if cc == "" {
		k.add("mapping.fees.cost_center", OK, "not used (fees.mode "+k.cfg.Mapping.Fees.Mode+")", "")
		return
	}
	var c struct {
		Company  string `json:"company"`
		IsGroup  int    `json:"is_group"`
		Disabled int    `json:"disabled"`
	}
	err := k.erp.Get(ctx, "Cost Center", cc, &c)
	switch {
	case frappe.IsNotFound(err):
		k.add("mapping.fees.cost_center", Fail, fmt.Sprintf("Cost Center %q does not exist", cc),
			"use the exact name from Accounting → Cost Center (e.g. \"Main - EC\"); fee deductions need it")
	case err != nil:
		k.unreadable("mapping.fees.cost_center", "Cost Center "+cc, err, "give the API user the Accounts User role")
	case c.Company != k.cfg.Mapping.Company:
		k.add("mapping.fees.cost_center", Fail, fmt.Sprintf("Cost Center %q belongs to %q", cc, c.Company), "pick a cost center of "+k.cfg.Mapping.Company)
	case c.IsGroup != 0 || c.Disabled != 0:
		k.add("mapping.fees.cost_center", Fail, fmt.Sprintf("Cost Center %q is a group or disabled", cc), "pick an enabled, non-group cost center")
	default:
		k.add("mapping.fees.cost_center", OK, fmt.Sprintf("Cost Center %q exists in %q", cc, c.Company), "")
	}
}

func (k *checker) fiscalYear(ctx context.Context) {
	today := k.today()
	var rows []struct {
		Name     string `json:"name"`
		Disabled int    `json:"disabled"`
	}
	err := k.erp.List(ctx, "Fiscal Year", frappe.ListOptions{
		Fields:  []string{"name", "disabled"},
		Filters: []frappe.Filter{{"year_start_date", "<=", today}, {"year_end_date", ">=", today}},
		Limit:   10,
	}, &rows)
	if err != nil {
		k.unreadable("erpnext.fiscal_year", "Fiscal Year", err, "give the API user the Accounts User role")
		return
	}
	for _, r := range rows {
		if r.Disabled == 0 {
			k.add("erpnext.fiscal_year", OK, fmt.Sprintf("Fiscal Year %s covers %s", r.Name, today), "")
			return
		}
	}
	k.add("erpnext.fiscal_year", Fail, "no enabled Fiscal Year covers "+today+"; every receipt would fail with FiscalYearError",
		"create the Fiscal Year in Accounting → Fiscal Year (and add the company to it if it lists companies)")
}

func (k *checker) frozen(ctx context.Context) {
	var s struct {
		AccFrozenUpto string `json:"acc_frozen_upto"`
	}
	err := k.erp.Get(ctx, "Accounts Settings", "Accounts Settings", &s)
	if err != nil {
		k.unreadable("erpnext.accounts_frozen", "Accounts Settings", err,
			"confirm in Accounts Settings that \"Accounts Frozen Till Date\" is empty or before the go-live date")
		return
	}
	today := k.today()
	switch {
	case s.AccFrozenUpto == "":
		k.add("erpnext.accounts_frozen", OK, "no accounts-frozen date", "")
	case s.AccFrozenUpto >= today:
		k.add("erpnext.accounts_frozen", Fail, "accounts are frozen up to "+s.AccFrozenUpto+"; today's receipts would be refused",
			"clear or move back \"Accounts Frozen Till Date\" in Accounts Settings")
	default:
		k.add("erpnext.accounts_frozen", Warn, "accounts are frozen up to "+s.AccFrozenUpto+"; payments dated on or before it park",
			"nothing to do unless older payments must still be booked")
	}
}

func (k *checker) precision(ctx context.Context) {
	var s struct {
		CurrencyPrecision any `json:"currency_precision"`
	}
	err := k.erp.Get(ctx, "System Settings", "System Settings", &s)
	if err != nil {
		k.unreadable("erpnext.currency_precision", "System Settings", err,
			"the connector writes 2 decimals (Frappe's default when Currency Precision is empty); ask a System Manager to confirm System Settings → Currency Precision is empty or at least 2")
		return
	}
	p := strings.TrimSpace(fmt.Sprint(s.CurrencyPrecision))
	if p == "" || p == "<nil>" {
		k.add("erpnext.currency_precision", OK, "empty: 2 decimals from the number format", "")
		return
	}
	if n, err := strconv.Atoi(p); err != nil || n < connector.SitePrecision {
		k.add("erpnext.currency_precision", Fail, "Currency Precision is "+p+"; paise would be lost", "set System Settings → Currency Precision to 2 (or leave it empty)")
		return
	}
	k.add("erpnext.currency_precision", OK, "Currency Precision "+p, "")
}

func (k *checker) permissions(ctx context.Context) {
	var pes []struct {
		Name string `json:"name"`
	}
	readable := func(item, doctype string, out any, fix string) bool {
		err := k.erp.List(ctx, doctype, frappe.ListOptions{Fields: []string{"name"}, OrderBy: "creation desc", Limit: 1}, out)
		if status(err) == http.StatusForbidden {
			k.add(item, Fail, "the API user may not read "+doctype+": "+connector.Reason(err), fix)
			return false
		}
		if err != nil {
			k.unreadable(item, doctype, err, fix)
			return false
		}
		k.add(item, OK, "the API user may read "+doctype, "")
		return true
	}
	readable("erpnext.permission.sales_invoice", frappe.DoctypeSalesInvoice, &[]map[string]any{}, "give the API user the Accounts User role")
	if readable("erpnext.permission.payment_entry", frappe.DoctypePaymentEntry, &pes, "give the API user the Accounts User role") {
		docname := "" // no Payment Entry yet: the role permissions of the doctype (frappe.has_permission without a document)
		if len(pes) > 0 {
			docname = pes[0].Name
		}
		for _, ptype := range []string{"create", "submit"} {
			k.mayPaymentEntry(ctx, ptype, docname)
		}
	}
	k.integrationRequests(ctx)
}

// mayPaymentEntry asks frappe.client.has_permission whether the API user may ptype Payment
// Entries (recorded R12: {"has_permission": true}).
func (k *checker) mayPaymentEntry(ctx context.Context, ptype, docname string) {
	const fix = "give the API user the Accounts User role (Create and Submit on Payment Entry)"
	item := "erpnext.permission.payment_entry_" + ptype
	var res struct {
		HasPermission bool `json:"has_permission"`
	}
	err := k.erp.Call(ctx, frappe.MethodHasPermission, map[string]any{"doctype": frappe.DoctypePaymentEntry, "docname": docname, "perm_type": ptype}, &res)
	switch {
	case err != nil:
		k.unreadable(item, frappe.MethodHasPermission, err, fix)
	case !res.HasPermission:
		k.add(item, Fail, k.who()+" may not "+ptype+" Payment Entries: no receipt can be booked", fix)
	default:
		k.add(item, OK, k.who()+" may "+ptype+" Payment Entries", "")
	}
}

// integrationRequests checks the one permission beyond Accounts User + Sales User the
// configuration can ask for: Read on Integration Request, which reconcile's sweep of ERPNext's
// own checkout needs (System Manager has it; recorded 45-*, R13).
func (k *checker) integrationRequests(ctx context.Context) {
	const item = "erpnext.permission.integration_request"
	if !k.cfg.Reconcile.IntegrationRequests {
		k.add(item, OK, "not needed (reconcile.integration_requests: false): reconcile does not sweep ERPNext's own checkout for payments it never booked", "")
		return
	}
	var rows []map[string]any
	err := k.erp.List(ctx, frappe.DoctypeIntegrationRequest, frappe.ListOptions{Fields: []string{"name"}, Limit: 1}, &rows)
	switch {
	case status(err) == http.StatusForbidden:
		k.add(item, Fail, k.who()+" may not read Integration Request (403; Accounts User and Sales User do not grant it): reconcile's Integration Request sweep, which finds payments taken through ERPNext's own checkout that ERPNext never booked, cannot run",
			"give one of the API user's roles Read on Integration Request (Role Permissions Manager; System Manager has it), or set reconcile.integration_requests: false")
	case err != nil:
		k.unreadable(item, frappe.DoctypeIntegrationRequest, err, "give one of the API user's roles Read on Integration Request, or set reconcile.integration_requests: false")
	default:
		k.add(item, OK, k.who()+" may read Integration Request: reconcile sweeps ERPNext's own checkout", "")
	}
}

// who names the API user in a line ("the API user" when get_logged_user did not answer).
func (k *checker) who() string {
	if k.user != "" {
		return k.user
	}
	return "the API user"
}

func (k *checker) userPermissions(ctx context.Context) {
	const fix = "ask a System Manager to confirm the API user has no User Permissions on Company, Customer, Sales Invoice or Payment Entry: hidden rows make lookups miss and payments would be booked twice or parked"
	if k.user == "" {
		k.add("erpnext.user_permissions", Warn, "cannot tell which user the API key belongs to (frappe.auth.get_logged_user did not answer)", fix)
		return
	}
	var rows []struct {
		Allow    string `json:"allow"`
		ForValue string `json:"for_value"`
	}
	err := k.erp.List(ctx, "User Permission", frappe.ListOptions{
		Fields:  []string{"allow", "for_value"},
		Filters: []frappe.Filter{{"user", "=", k.user}, {"allow", "in", []string{"Company", "Customer", "Sales Invoice", "Payment Entry"}}},
		All:     true,
	}, &rows)
	if err != nil {
		k.unreadable("erpnext.user_permissions", "User Permission", err, fix)
		return
	}
	if len(rows) > 0 {
		var s []string
		for _, r := range rows {
			s = append(s, r.Allow+"="+r.ForValue)
		}
		k.add("erpnext.user_permissions", Fail, k.user+" is restricted by User Permissions: "+strings.Join(s, ", "),
			"remove these User Permissions for the API user: it must see every Sales Invoice and Payment Entry of the company")
		return
	}
	k.add("erpnext.user_permissions", OK, "no User Permissions restrict "+k.user, "")
}

func (k *checker) referenceIndex(ctx context.Context) {
	var rows []map[string]any
	err := k.erp.List(ctx, "Property Setter", frappe.ListOptions{
		Fields: []string{"name", "value"},
		Filters: []frappe.Filter{{"doc_type", "=", frappe.DoctypePaymentEntry}, {"field_name", "=", "reference_no"},
			{"property", "=", "search_index"}},
		Limit: 1,
	}, &rows)
	if err == nil && len(rows) == 1 && fmt.Sprint(rows[0]["value"]) == "1" {
		k.add("erpnext.reference_no_index", OK, "Payment Entry reference_no is indexed (Property Setter search_index)", "")
		return
	}
	k.add("erpnext.reference_no_index", Warn,
		"Payment Entry reference_no is not indexed in standard ERPNext; every lookup-before-create scans the table on a big site",
		"Customize Form → Payment Entry → field \"Cheque/Reference No\" → tick \"Index\" and save (or: bench --site SITE mariadb -e 'ALTER TABLE `tabPayment Entry` ADD INDEX reference_no (reference_no)')")
}
