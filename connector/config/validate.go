package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// problems collects configuration problems, each prefixed with its key path.
type problems []string

func (p *problems) add(f string, a ...any) { *p = append(*p, fmt.Sprintf(f, a...)) }

// Validate returns every problem of an expanded configuration, each prefixed with its key path.
func (c Config) Validate() []string { return c.validate(ScopeAll) }

// validate is Validate for what scope needs: the store only (database, log), or everything.
func (c Config) validate(scope Scope) []string {
	var p problems
	c.Database.validate(&p)
	switch c.Log.Format {
	case "json", "console":
	default:
		p.add("log.format: must be json or console")
	}
	if scope == ScopeStore {
		return p
	}
	if c.Listen == "" {
		p.add("listen: required (e.g. 127.0.0.1:8080)")
	}
	if !strings.HasPrefix(c.WebhookPath, "/") {
		p.add("webhook_path: must start with /")
	}
	if c.Workers < 1 || c.Workers > 256 {
		p.add("workers: must be 1..256, got %d", c.Workers)
	}
	if c.Server.MaxInFlight < 1 || c.Server.MaxInFlight > 65536 {
		p.add("server.max_in_flight: must be 1..65536, got %d", c.Server.MaxInFlight)
	}
	if len(c.Razorpay.WebhookSecrets) == 0 {
		p.add("razorpay.webhook_secrets: at least one non-empty secret is required (an empty key would let anyone sign)")
	}
	c.Razorpay.validateAccounts(&p)
	c.ERPNext.validate(&p)
	c.Mapping.validate(&p)
	if c.Reconcile.Since != "" {
		if _, err := time.Parse("2006-01-02", c.Reconcile.Since); err != nil {
			p.add("reconcile.since: must be a date YYYY-MM-DD, got %q", c.Reconcile.Since)
		}
	}
	p = append(p, c.Reconcile.validate()...)
	p = append(p, c.Settlements.validate(c)...)
	if c.Worker.Lease <= 0 || c.Worker.Poll <= 0 || c.Worker.MaxAttempts < 1 {
		p.add("worker: lease and poll must be positive and max_attempts at least 1")
	}
	return p
}

func (d Database) validate(p *problems) {
	switch d.Driver {
	case "sqlite", "mysql", "postgres":
	default:
		p.add("database.driver: must be sqlite, mysql or postgres, got %q", d.Driver)
	}
	if d.DSN == "" {
		p.add("database.dsn: required (e.g. ./razorpay-erpnext.db for sqlite)")
	}
}

// accountID is the shape of a Razorpay account id: "acc_" and letters or digits
// (spec/razorpay.md §2.1: "acc_" + 14 characters).
var accountID = regexp.MustCompile(`^acc_[A-Za-z0-9]{1,60}$`)

// validateAccounts checks razorpay.accept_accounts: Razorpay account ids, besides a configured
// razorpay.account_id.
func (r Razorpay) validateAccounts(p *problems) {
	if len(r.AcceptAccounts) > 0 && r.AccountID == "" {
		p.add("razorpay.accept_accounts: set razorpay.account_id first (the accounts listed are accepted besides it)")
	}
	for i, a := range r.AcceptAccounts {
		if !accountID.MatchString(a) {
			p.add("razorpay.accept_accounts[%d]: %q is not a Razorpay account id (acc_ followed by letters and digits)", i, a)
		}
	}
	if r.MaxRetryAfter <= 0 {
		p.add("razorpay.max_retry_after: must be positive (the longest pause a 429's Retry-After may impose, e.g. 5m)")
	}
}

func (e ERPNext) validate(p *problems) {
	if e.URL == "" {
		p.add("erpnext.url: required (e.g. https://erp.example.com)")
	} else if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
		p.add("erpnext.url: must start with http:// or https://")
	}
	if e.APIKey == "" {
		p.add("erpnext.api_key: required (the API key of the ERPNext API user)")
	}
	if e.APISecret == "" {
		p.add("erpnext.api_secret: required (the API secret of the ERPNext API user)")
	}
	if e.Timeout <= 0 {
		p.add("erpnext.timeout: must be positive")
	}
	if e.MaxRetryAfter <= 0 {
		p.add("erpnext.max_retry_after: must be positive (the longest pause a 429's Retry-After may impose, e.g. 5m)")
	}
	if e.ServerTimeout < e.Timeout {
		p.add("erpnext.server_timeout: must be at least erpnext.timeout (the site may run a request longer than the client waits)")
	}
}

func (m Mapping) validate(p *problems) {
	if m.Company == "" {
		p.add("mapping.company: required (the ERPNext Company the receipts are booked in)")
	}
	if _, err := time.LoadLocation(m.Timezone); err != nil || m.Timezone == "" {
		p.add("mapping.timezone: %q is not a known IANA time zone (e.g. Asia/Kolkata)", m.Timezone)
	}
	if m.ModeOfPayment == "" {
		p.add("mapping.mode_of_payment: required")
	}
	for i, s := range m.InvoiceFrom {
		if !validInvoiceSource(s) {
			p.add("mapping.invoice_from[%d]: unknown source %q (notes.<key>, order.receipt, payment_link.reference_id)", i, s)
		}
	}
	for i, s := range m.CustomerFrom {
		if s != "invoice" && s != "contact.email" && s != "contact.phone" && !(strings.HasPrefix(s, "notes.") && len(s) > len("notes.")) {
			p.add("mapping.customer_from[%d]: unknown source %q (invoice, notes.<key>, contact.email, contact.phone)", i, s)
		}
	}
	oneOf(p, "mapping.without_invoice", m.WithoutInvoice, "park", "advance")
	if m.DescriptionPattern != "" {
		if _, err := regexp.Compile(m.DescriptionPattern); err != nil {
			p.add("mapping.description_pattern: %v", err)
		}
	}
	oneOf(p, "mapping.excess", m.Excess, "unallocated", "park")
	switch m.Fees.Mode {
	case "none":
	case "deduction":
		if m.Fees.FeeAccount == "" || m.Fees.TaxAccount == "" || m.Fees.CostCenter == "" {
			p.add("mapping.fees: mode deduction needs fee_account, tax_account and cost_center")
		}
	default:
		p.add("mapping.fees.mode: must be none or deduction, got %q", m.Fees.Mode)
	}
	switch m.Refunds.WithoutCreditNote {
	case "park", "unallocated":
	default:
		p.add("mapping.refunds.without_credit_note: must be park or unallocated")
	}
}

// oneOf adds "key: must be a or b, got %q" unless v is a or b.
func oneOf(p *problems, key, v, a, b string) {
	if v != a && v != b {
		p.add("%s: must be %s or %s, got %q", key, a, b, v)
	}
}

func validInvoiceSource(s string) bool {
	switch {
	case strings.HasPrefix(s, "notes.") && len(s) > len("notes."):
		return true
	case s == "order.receipt", s == "payment_link.reference_id":
		return true
	}
	return false
}
