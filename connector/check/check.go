// Package check validates a configuration against the live ERPNext site and Razorpay account it
// names, reading only: one Line per fact (ok, warn or fail, with the fix). It is what the
// `check` command and the console print.
package check

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Check results, from best to worst.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
)

// Line is one result of Run: what was checked (a config key or an ERPNext fact), the
// status (OK, Warn, Fail), what was found and, unless ok, how to fix it.
type Line struct {
	Item   string `json:"item"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is every line Run produced, in order.
type Report struct {
	Lines []Line `json:"checks"`
}

// Failed reports whether any line failed.
func (r Report) Failed() bool {
	for _, l := range r.Lines {
		if l.Status == Fail {
			return true
		}
	}
	return false
}

// RazorpayLister is the part of razorpay.Client that Run uses to test the API keys.
type RazorpayLister interface {
	ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error
}

// checker collects lines for one run.
type checker struct {
	cfg   connector.Config
	erp   connector.ERPNext
	rzp   RazorpayLister
	now   time.Time
	loc   *time.Location
	user  string
	lines []Line
}

func (k *checker) add(item, status, detail, fix string) {
	k.lines = append(k.lines, Line{Item: item, Status: status, Detail: detail, Fix: fix})
}

// Run validates cfg against the live ERPNext site (and Razorpay when rzp is not nil) without
// writing anything: credentials, company, Mode of Payment, every configured account, cost
// center, fiscal year, accounts-frozen date, currency precision, time zone, permissions, and
// the reference_no index. Facts the API user may not read (System Settings, Accounts Settings,
// User Permission) or the site does not answer (501) give a warning saying what to confirm by
// hand. now is the current time; the date is taken in mapping.timezone.
func Run(ctx context.Context, cfg connector.Config, erp connector.ERPNext, rzp RazorpayLister, now time.Time) Report {
	k := &checker{cfg: cfg, erp: erp, rzp: rzp, now: now}
	k.local()
	k.webhookSecrets()
	if k.credentials(ctx) {
		k.company(ctx)
		paidTo := k.modeOfPayment(ctx)
		k.accounts(ctx, paidTo)
		k.settlements(ctx, paidTo)
		k.clearingType(ctx, paidTo)
		k.costCenter(ctx)
		k.fiscalYear(ctx)
		k.frozen(ctx)
		k.precision(ctx)
		k.permissions(ctx)
		k.userPermissions(ctx)
		k.referenceIndex(ctx)
	}
	k.razorpayKeys(ctx)
	return Report{Lines: k.lines}
}

func (k *checker) local() {
	loc, err := time.LoadLocation(k.cfg.Mapping.Timezone)
	if err != nil || k.cfg.Mapping.Timezone == "" {
		k.loc = time.UTC
		k.add("mapping.timezone", Fail, fmt.Sprintf("%q is not a known IANA time zone", k.cfg.Mapping.Timezone),
			"set mapping.timezone to the company's zone, e.g. Asia/Kolkata")
		return
	}
	k.loc = loc
	k.add("mapping.timezone", OK, fmt.Sprintf("%s (today is %s there); posting dates are taken in this zone", loc, k.today()), "")
}

func (k *checker) today() string { return k.now.In(k.loc).Format("2006-01-02") }

func (k *checker) webhookSecrets() {
	n := len(k.cfg.Razorpay.WebhookSecrets)
	if n == 0 {
		k.add("razorpay.webhook_secrets", Fail, "no non-empty webhook secret",
			"set RAZORPAY_WEBHOOK_SECRET to the secret of the webhook in Razorpay Dashboard → Settings → Webhooks")
		return
	}
	k.add("razorpay.webhook_secrets", OK, fmt.Sprintf("%d secret(s) set (values not shown)", n), "")
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
		k.add("erpnext.url", Fail, "ERPNext does not answer: "+err.Error(),
			"check erpnext.url, DNS and the firewall; the site must be reachable from this host")
		return false
	case status(err) == http.StatusUnauthorized:
		k.add("erpnext.api_key", Fail, "ERPNext refused the API key and secret (401)",
			"in ERPNext open the API user → Settings → API Access → Generate Keys, then set ERPNEXT_API_KEY and ERPNEXT_API_SECRET")
		return false
	case nonJSON(err):
		k.add("erpnext.url", Fail, fmt.Sprintf("the answer is not from a Frappe site (%s)", err),
			"erpnext.url must be the site's own URL (the site name must match the Host header)")
		return false
	}
	who := "the API user"
	if k.user != "" {
		who = k.user
	}
	k.add("erpnext.credentials", OK, "ERPNext accepted the API key as "+who, "")
	return true
}

func (k *checker) company(ctx context.Context) {
	var co struct {
		DefaultCurrency string `json:"default_currency"`
	}
	err := k.erp.Get(ctx, frappe.DoctypeCompany, k.cfg.Mapping.Company, &co)
	switch {
	case frappe.IsNotFound(err):
		k.add("mapping.company", Fail, fmt.Sprintf("Company %q does not exist", k.cfg.Mapping.Company),
			"set mapping.company to the exact Company name (Accounting → Company)")
	case err != nil:
		k.unreadable("mapping.company", "Company "+k.cfg.Mapping.Company, err, "give the API user the Accounts User role")
	case co.DefaultCurrency != connector.CompanyCurrency:
		k.add("mapping.company", Fail, fmt.Sprintf("Company %q keeps its books in %s; Razorpay settles in %s", k.cfg.Mapping.Company, co.DefaultCurrency, connector.CompanyCurrency),
			"book into the company whose default currency is INR")
	default:
		k.add("mapping.company", OK, fmt.Sprintf("Company %q exists, currency %s", k.cfg.Mapping.Company, co.DefaultCurrency), "")
	}
}

// modeOfPayment checks the Mode of Payment and returns the paid_to account the connector will use.
func (k *checker) modeOfPayment(ctx context.Context) string {
	m := k.cfg.Mapping
	var mop frappe.ModeOfPayment
	err := k.erp.Get(ctx, frappe.DoctypeModeOfPayment, m.ModeOfPayment, &mop)
	if frappe.IsNotFound(err) {
		k.add("mapping.mode_of_payment", Fail, fmt.Sprintf("Mode of Payment %q does not exist", m.ModeOfPayment),
			"create it in ERPNext (Accounting → Mode of Payment, type Bank) with an account for "+m.Company)
		return m.PaidTo
	}
	if err != nil {
		k.unreadable("mapping.mode_of_payment", "Mode of Payment "+m.ModeOfPayment, err, "give the API user the Accounts User role")
		return m.PaidTo
	}
	if mop.Enabled == 0 {
		k.add("mapping.mode_of_payment", Fail, fmt.Sprintf("Mode of Payment %q is disabled", m.ModeOfPayment), "enable it in connector.ERPNext")
	}
	var acct string
	for _, a := range mop.Accounts {
		if a.Company == m.Company && a.DefaultAccount != "" {
			acct = a.DefaultAccount
		}
	}
	switch {
	case acct == "" && m.PaidTo == "":
		k.add("mapping.mode_of_payment", Fail, fmt.Sprintf("Mode of Payment %q has no account for company %q", m.ModeOfPayment, m.Company),
			"add a row for the company with the Razorpay clearing account (of type Cash) in the Mode of Payment's Accounts table, or set mapping.paid_to")
	case acct == "":
		k.add("mapping.mode_of_payment", OK, fmt.Sprintf("Mode of Payment %q exists; it has no account for %q, mapping.paid_to is used", m.ModeOfPayment, m.Company), "")
	default:
		k.add("mapping.mode_of_payment", OK, fmt.Sprintf("Mode of Payment %q → %s for %q", m.ModeOfPayment, acct, m.Company), "")
	}
	if m.PaidTo != "" {
		return m.PaidTo
	}
	return acct
}

func (k *checker) razorpayKeys(ctx context.Context) {
	if k.rzp == nil {
		k.add("razorpay.key_id", Warn, "Razorpay API keys are not set: reconcile cannot list payments, and refunds and disputes are not re-fetched",
			"create an API key in Razorpay Dashboard → Account & Settings → API Keys and set RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET")
		return
	}
	stop := errors.New("stop")
	err := k.rzp.ListPayments(ctx, k.now.Add(-time.Hour), k.now, func(*razorpay.Payment) error { return stop })
	switch {
	case err == nil || errors.Is(err, stop):
		k.add("razorpay.key_id", OK, "Razorpay accepted the API keys", "")
	case razorpay.IsAuthFault(err):
		k.add("razorpay.key_id", Fail, "Razorpay refused the API keys (401)",
			"regenerate the key in Razorpay Dashboard → API Keys and set RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET (live keys start rzp_live_)")
	default:
		k.add("razorpay.key_id", Fail, "Razorpay API call failed: "+err.Error(), "check razorpay.api_url and the network path to Razorpay")
	}
}

// unreadable adds the line for a fact the API user may not read or the site does not answer:
// a warning (the operator confirms it by hand), except for transport failures, which fail.
func (k *checker) unreadable(item, what string, err error, fix string) {
	var te *frappe.TransportError
	if errors.As(err, &te) {
		k.add(item, Fail, "could not read "+what+": "+err.Error(), "check that ERPNext is reachable and retry")
		return
	}
	why := connector.Reason(err)
	switch status(err) {
	case http.StatusForbidden:
		why = "the API user may not read it (403)"
	case http.StatusNotImplemented:
		why = "the site does not implement it (501)"
	case http.StatusNotFound:
		why = "the site has no such doctype or method (404)"
	}
	k.add(item, Warn, "cannot check "+what+": "+why, fix)
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
