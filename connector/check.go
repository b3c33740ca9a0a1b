package connector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Check results, from best to worst.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "fail"
)

// CheckLine is one result of Check: what was checked (a config key or an ERPNext fact), the
// status (CheckOK, CheckWarn, CheckFail), what was found and, unless ok, how to fix it.
type CheckLine struct {
	Item   string `json:"item"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// CheckReport is every line Check produced, in order.
type CheckReport struct {
	Lines []CheckLine `json:"checks"`
}

// Failed reports whether any line failed.
func (r CheckReport) Failed() bool {
	for _, l := range r.Lines {
		if l.Status == CheckFail {
			return true
		}
	}
	return false
}

// RazorpayLister is the part of razorpay.Client that Check uses to test the API keys.
type RazorpayLister interface {
	ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error
}

// checker collects lines for one Check run.
type checker struct {
	cfg   Config
	erp   ERPNext
	rzp   RazorpayLister
	now   time.Time
	loc   *time.Location
	user  string
	lines []CheckLine
}

func (k *checker) add(item, status, detail, fix string) {
	k.lines = append(k.lines, CheckLine{Item: item, Status: status, Detail: detail, Fix: fix})
}

// Check validates cfg against the live ERPNext site (and Razorpay when rzp is not nil) without
// writing anything: credentials, company, Mode of Payment, every configured account, cost
// center, fiscal year, accounts-frozen date, currency precision, time zone, permissions, and
// the reference_no index. Facts the API user may not read (System Settings, Accounts Settings,
// User Permission) or the site does not answer (501) give a warning saying what to confirm by
// hand. now is the current time; the date is taken in mapping.timezone.
func Check(ctx context.Context, cfg Config, erp ERPNext, rzp RazorpayLister, now time.Time) CheckReport {
	k := &checker{cfg: cfg, erp: erp, rzp: rzp, now: now}
	k.local()
	k.webhookSecrets()
	if k.credentials(ctx) {
		k.company(ctx)
		paidTo := k.modeOfPayment(ctx)
		k.accounts(ctx, paidTo)
		k.costCenter(ctx)
		k.fiscalYear(ctx)
		k.frozen(ctx)
		k.precision(ctx)
		k.permissions(ctx)
		k.userPermissions(ctx)
		k.referenceIndex(ctx)
	}
	k.razorpayKeys(ctx)
	return CheckReport{Lines: k.lines}
}

func (k *checker) local() {
	loc, err := time.LoadLocation(k.cfg.Mapping.Timezone)
	if err != nil || k.cfg.Mapping.Timezone == "" {
		k.loc = time.UTC
		k.add("mapping.timezone", CheckFail, fmt.Sprintf("%q is not a known IANA time zone", k.cfg.Mapping.Timezone),
			"set mapping.timezone to the company's zone, e.g. Asia/Kolkata")
		return
	}
	k.loc = loc
	k.add("mapping.timezone", CheckOK, fmt.Sprintf("%s (today is %s there); posting dates are taken in this zone", loc, k.today()), "")
}

func (k *checker) today() string { return k.now.In(k.loc).Format("2006-01-02") }

func (k *checker) webhookSecrets() {
	n := len(k.cfg.Razorpay.WebhookSecrets)
	if n == 0 {
		k.add("razorpay.webhook_secrets", CheckFail, "no non-empty webhook secret",
			"set RAZORPAY_WEBHOOK_SECRET to the secret of the webhook in Razorpay Dashboard → Settings → Webhooks")
		return
	}
	k.add("razorpay.webhook_secrets", CheckOK, fmt.Sprintf("%d secret(s) set (values not shown)", n), "")
}

// credentials reads the Company, which needs a valid key and read permission; it returns false
// when ERPNext cannot be used at all (unreachable, or the credentials are refused).
func (k *checker) credentials(ctx context.Context) bool {
	var user string
	if err := k.erp.Call(ctx, frappe.MethodGetLoggedUser, nil, &user); err == nil {
		k.user = user
	}
	var co map[string]any
	err := k.erp.Get(ctx, frappe.DoctypeCompany, k.cfg.Mapping.Company, &co)
	var te *frappe.TransportError
	switch {
	case errors.As(err, &te):
		k.add("erpnext.url", CheckFail, "ERPNext does not answer: "+err.Error(),
			"check erpnext.url, DNS and the firewall; the site must be reachable from this host")
		return false
	case status(err) == http.StatusUnauthorized:
		k.add("erpnext.api_key", CheckFail, "ERPNext refused the API key and secret (401)",
			"in ERPNext open the API user → Settings → API Access → Generate Keys, then set ERPNEXT_API_KEY and ERPNEXT_API_SECRET")
		return false
	case nonJSON(err):
		k.add("erpnext.url", CheckFail, fmt.Sprintf("the answer is not from a Frappe site (%s)", err),
			"erpnext.url must be the site's own URL (the site name must match the Host header)")
		return false
	}
	who := "the API user"
	if k.user != "" {
		who = k.user
	}
	k.add("erpnext.credentials", CheckOK, "ERPNext accepted the API key as "+who, "")
	return true
}

func (k *checker) company(ctx context.Context) {
	var co struct {
		DefaultCurrency string `json:"default_currency"`
	}
	err := k.erp.Get(ctx, frappe.DoctypeCompany, k.cfg.Mapping.Company, &co)
	switch {
	case frappe.IsNotFound(err):
		k.add("mapping.company", CheckFail, fmt.Sprintf("Company %q does not exist", k.cfg.Mapping.Company),
			"set mapping.company to the exact Company name (Accounting → Company)")
	case err != nil:
		k.unreadable("mapping.company", "Company "+k.cfg.Mapping.Company, err, "give the API user the Accounts User role")
	case co.DefaultCurrency != companyCurrency:
		k.add("mapping.company", CheckFail, fmt.Sprintf("Company %q keeps its books in %s; Razorpay settles in %s", k.cfg.Mapping.Company, co.DefaultCurrency, companyCurrency),
			"book into the company whose default currency is INR")
	default:
		k.add("mapping.company", CheckOK, fmt.Sprintf("Company %q exists, currency %s", k.cfg.Mapping.Company, co.DefaultCurrency), "")
	}
}

// modeOfPayment checks the Mode of Payment and returns the paid_to account the connector will use.
func (k *checker) modeOfPayment(ctx context.Context) string {
	m := k.cfg.Mapping
	var mop frappe.ModeOfPayment
	err := k.erp.Get(ctx, frappe.DoctypeModeOfPayment, m.ModeOfPayment, &mop)
	if frappe.IsNotFound(err) {
		k.add("mapping.mode_of_payment", CheckFail, fmt.Sprintf("Mode of Payment %q does not exist", m.ModeOfPayment),
			"create it in ERPNext (Accounting → Mode of Payment, type Bank) with an account for "+m.Company)
		return m.PaidTo
	}
	if err != nil {
		k.unreadable("mapping.mode_of_payment", "Mode of Payment "+m.ModeOfPayment, err, "give the API user the Accounts User role")
		return m.PaidTo
	}
	if mop.Enabled == 0 {
		k.add("mapping.mode_of_payment", CheckFail, fmt.Sprintf("Mode of Payment %q is disabled", m.ModeOfPayment), "enable it in ERPNext")
	}
	var acct string
	for _, a := range mop.Accounts {
		if a.Company == m.Company && a.DefaultAccount != "" {
			acct = a.DefaultAccount
		}
	}
	switch {
	case acct == "" && m.PaidTo == "":
		k.add("mapping.mode_of_payment", CheckFail, fmt.Sprintf("Mode of Payment %q has no account for company %q", m.ModeOfPayment, m.Company),
			"add a row for the company with the Razorpay clearing (Bank) account in the Mode of Payment's Accounts table, or set mapping.paid_to")
	case acct == "":
		k.add("mapping.mode_of_payment", CheckOK, fmt.Sprintf("Mode of Payment %q exists; it has no account for %q, mapping.paid_to is used", m.ModeOfPayment, m.Company), "")
	default:
		k.add("mapping.mode_of_payment", CheckOK, fmt.Sprintf("Mode of Payment %q → %s for %q", m.ModeOfPayment, acct, m.Company), "")
	}
	if m.PaidTo != "" {
		return m.PaidTo
	}
	return acct
}

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
		k.add(r.key, CheckFail, fmt.Sprintf("Account %q does not exist", r.name),
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
	if a.AccountCurrency != "" && a.AccountCurrency != companyCurrency {
		problems = append(problems, fmt.Sprintf("is in %s; Razorpay settles in %s", a.AccountCurrency, companyCurrency))
		fixes = append(fixes, "pick an INR account")
	}
	if len(problems) > 0 {
		k.add(r.key, CheckFail, fmt.Sprintf("Account %q %s", r.name, strings.Join(problems, "; ")), strings.Join(fixes, "; "))
		return
	}
	typ := a.AccountType
	if typ == "" {
		typ = a.RootType
	}
	k.add(r.key, CheckOK, fmt.Sprintf("Account %q: %s, %s, company %q", r.name, typ, orDefault(a.AccountCurrency, companyCurrency), a.Company), "")
}

func (k *checker) costCenter(ctx context.Context) {
	cc := k.cfg.Mapping.Fees.CostCenter
	if cc == "" {
		k.add("mapping.fees.cost_center", CheckOK, "not used (fees.mode "+k.cfg.Mapping.Fees.Mode+")", "")
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
		k.add("mapping.fees.cost_center", CheckFail, fmt.Sprintf("Cost Center %q does not exist", cc),
			"use the exact name from Accounting → Cost Center (e.g. \"Main - EC\"); fee deductions need it")
	case err != nil:
		k.unreadable("mapping.fees.cost_center", "Cost Center "+cc, err, "give the API user the Accounts User role")
	case c.Company != k.cfg.Mapping.Company:
		k.add("mapping.fees.cost_center", CheckFail, fmt.Sprintf("Cost Center %q belongs to %q", cc, c.Company), "pick a cost center of "+k.cfg.Mapping.Company)
	case c.IsGroup != 0 || c.Disabled != 0:
		k.add("mapping.fees.cost_center", CheckFail, fmt.Sprintf("Cost Center %q is a group or disabled", cc), "pick an enabled, non-group cost center")
	default:
		k.add("mapping.fees.cost_center", CheckOK, fmt.Sprintf("Cost Center %q exists in %q", cc, c.Company), "")
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
			k.add("erpnext.fiscal_year", CheckOK, fmt.Sprintf("Fiscal Year %s covers %s", r.Name, today), "")
			return
		}
	}
	k.add("erpnext.fiscal_year", CheckFail, "no enabled Fiscal Year covers "+today+"; every receipt would fail with FiscalYearError",
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
		k.add("erpnext.accounts_frozen", CheckOK, "no accounts-frozen date", "")
	case s.AccFrozenUpto >= today:
		k.add("erpnext.accounts_frozen", CheckFail, "accounts are frozen up to "+s.AccFrozenUpto+"; today's receipts would be refused",
			"clear or move back \"Accounts Frozen Till Date\" in Accounts Settings")
	default:
		k.add("erpnext.accounts_frozen", CheckWarn, "accounts are frozen up to "+s.AccFrozenUpto+"; payments dated on or before it park",
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
		k.add("erpnext.currency_precision", CheckOK, "empty: 2 decimals from the number format", "")
		return
	}
	if n, err := strconv.Atoi(p); err != nil || n < sitePrecision {
		k.add("erpnext.currency_precision", CheckFail, "Currency Precision is "+p+"; paise would be lost", "set System Settings → Currency Precision to 2 (or leave it empty)")
		return
	}
	k.add("erpnext.currency_precision", CheckOK, "Currency Precision "+p, "")
}

func (k *checker) permissions(ctx context.Context) {
	var pes []struct {
		Name string `json:"name"`
	}
	readable := func(item, doctype string, out any, fix string) bool {
		err := k.erp.List(ctx, doctype, frappe.ListOptions{Fields: []string{"name"}, OrderBy: "creation desc", Limit: 1}, out)
		if status(err) == http.StatusForbidden {
			k.add(item, CheckFail, "the API user may not read "+doctype+": "+reason(err), fix)
			return false
		}
		if err != nil {
			k.unreadable(item, doctype, err, fix)
			return false
		}
		k.add(item, CheckOK, "the API user may read "+doctype, "")
		return true
	}
	readable("erpnext.permission.sales_invoice", frappe.DoctypeSalesInvoice, &[]map[string]any{}, "give the API user the Accounts User role")
	if readable("erpnext.permission.payment_entry", frappe.DoctypePaymentEntry, &pes, "give the API user the Accounts User role") {
		for _, ptype := range []string{"create", "submit"} {
			item := "erpnext.permission.payment_entry_" + ptype
			if len(pes) == 0 {
				k.add(item, CheckWarn, "cannot test "+ptype+" permission before the first Payment Entry exists",
					"confirm the API user has a role with Create and Submit on Payment Entry (Accounts User has both)")
				continue
			}
			var res struct {
				HasPermission bool `json:"has_permission"`
			}
			err := k.erp.Call(ctx, "frappe.client.has_permission", map[string]any{"doctype": frappe.DoctypePaymentEntry, "docname": pes[0].Name, "perm_type": ptype}, &res)
			switch {
			case err != nil:
				k.unreadable(item, "frappe.client.has_permission", err, "confirm the API user has a role with Create and Submit on Payment Entry (Accounts User has both)")
			case !res.HasPermission:
				k.add(item, CheckFail, "the API user may not "+ptype+" Payment Entries", "give the API user the Accounts User role (Create and Submit on Payment Entry)")
			default:
				k.add(item, CheckOK, "the API user may "+ptype+" Payment Entries", "")
			}
		}
	}
	if !k.cfg.Reconcile.IntegrationRequests {
		k.add("erpnext.permission.integration_request", CheckOK, "not needed (reconcile.integration_requests: false)", "")
		return
	}
	readable("erpnext.permission.integration_request", frappe.DoctypeIntegrationRequest, &[]map[string]any{},
		"reconcile reads Integration Requests to find checkout payments ERPNext never booked: give the API user read on Integration Request (Role Permissions Manager, or the System Manager role), or set reconcile.integration_requests: false")
}

func (k *checker) userPermissions(ctx context.Context) {
	const fix = "ask a System Manager to confirm the API user has no User Permissions on Company, Customer, Sales Invoice or Payment Entry: hidden rows make lookups miss and payments would be booked twice or parked"
	if k.user == "" {
		k.add("erpnext.user_permissions", CheckWarn, "cannot tell which user the API key belongs to (frappe.auth.get_logged_user did not answer)", fix)
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
		k.add("erpnext.user_permissions", CheckFail, k.user+" is restricted by User Permissions: "+strings.Join(s, ", "),
			"remove these User Permissions for the API user: it must see every Sales Invoice and Payment Entry of the company")
		return
	}
	k.add("erpnext.user_permissions", CheckOK, "no User Permissions restrict "+k.user, "")
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
		k.add("erpnext.reference_no_index", CheckOK, "Payment Entry reference_no is indexed (Property Setter search_index)", "")
		return
	}
	k.add("erpnext.reference_no_index", CheckWarn,
		"Payment Entry reference_no is not indexed in standard ERPNext; every lookup-before-create scans the table on a big site",
		"Customize Form → Payment Entry → field \"Cheque/Reference No\" → tick \"Index\" and save (or: bench --site SITE mariadb -e 'ALTER TABLE `tabPayment Entry` ADD INDEX reference_no (reference_no)')")
}

func (k *checker) razorpayKeys(ctx context.Context) {
	if k.rzp == nil {
		k.add("razorpay.key_id", CheckWarn, "Razorpay API keys are not set: reconcile cannot list payments, and refunds and disputes are not re-fetched",
			"create an API key in Razorpay Dashboard → Account & Settings → API Keys and set RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET")
		return
	}
	stop := errors.New("stop")
	err := k.rzp.ListPayments(ctx, k.now.Add(-time.Hour), k.now, func(*razorpay.Payment) error { return stop })
	switch {
	case err == nil || errors.Is(err, stop):
		k.add("razorpay.key_id", CheckOK, "Razorpay accepted the API keys", "")
	case razorpay.IsAuthFault(err):
		k.add("razorpay.key_id", CheckFail, "Razorpay refused the API keys (401)",
			"regenerate the key in Razorpay Dashboard → API Keys and set RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET (live keys start rzp_live_)")
	default:
		k.add("razorpay.key_id", CheckFail, "Razorpay API call failed: "+err.Error(), "check razorpay.api_url and the network path to Razorpay")
	}
}

// unreadable adds the line for a fact the API user may not read or the site does not answer:
// a warning (the operator confirms it by hand), except for transport failures, which fail.
func (k *checker) unreadable(item, what string, err error, fix string) {
	var te *frappe.TransportError
	if errors.As(err, &te) {
		k.add(item, CheckFail, "could not read "+what+": "+err.Error(), "check that ERPNext is reachable and retry")
		return
	}
	why := reason(err)
	switch status(err) {
	case http.StatusForbidden:
		why = "the API user may not read it (403)"
	case http.StatusNotImplemented:
		why = "the site does not implement it (501)"
	case http.StatusNotFound:
		why = "the site has no such doctype or method (404)"
	}
	k.add(item, CheckWarn, "cannot check "+what+": "+why, fix)
}

func status(err error) int {
	var fe *frappe.Error
	if errors.As(err, &fe) {
		return fe.Status
	}
	return 0
}

func nonJSON(err error) bool {
	var fe *frappe.Error
	return errors.As(err, &fe) && fe.NonJSON
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
