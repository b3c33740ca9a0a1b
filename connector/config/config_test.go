package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Realistic secrets: ERPNext makes 15-character API keys and secrets; shorter ones are refused.
const (
	whSecret  = "whsec_7Hk2pQ9xLm4vTz"
	erpKey    = "4f1e2d3c4b5a697"
	erpSecret = "9a8b7c6d5e4f3a2"
)

func TestExampleConfigLoads(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, warnings, err := config.Parse(raw, env(map[string]string{
		"RAZORPAY_WEBHOOK_SECRET": whSecret, "ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret,
	}))
	if err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	if len(cfg.Razorpay.WebhookSecrets) != 1 || cfg.Razorpay.WebhookSecrets[0] != whSecret {
		t.Errorf("secrets %v, want [%s]", cfg.Razorpay.WebhookSecrets, whSecret)
	}
	// The example lists one webhook secret (the rotation's second one is a comment), so a
	// command run with it warns about nothing.
	if len(warnings) != 0 {
		t.Errorf("warnings %v", warnings)
	}
	if cfg.Retention.RawBodies.D() != 90*24*time.Hour || cfg.ERPNext.ServerTimeout.D() != 120*time.Second || cfg.Mapping.PaymentRequestGrace.D() != 10*time.Minute {
		t.Errorf("durations: %v %v %v", cfg.Retention.RawBodies.D(), cfg.ERPNext.ServerTimeout.D(), cfg.Mapping.PaymentRequestGrace.D())
	}
	if cfg.Mapping.Company != "Example Company" || cfg.Workers != 4 || cfg.Database.Driver != "sqlite" {
		t.Errorf("values: %+v", cfg)
	}
}

func TestConfigReportsEveryProblemWithItsKey(t *testing.T) {
	raw := []byte(`
workers: 0
database: {driver: oracle, dsn: x}
razorpay: {webhook_secrets: ["plain-text-secret", "${EMPTY}"], key_secret: "rzp_secret_literal"}
erpnext: {url: "erp.example.com", api_key: "${K}", api_secret: "${S}"}
mapping: {company: "", timezone: Mars/Olympus, excess: maybe, invoice_from: [notes.invoice, order.id], fees: {mode: deduction}}
`)
	_, _, err := config.Parse(raw, env(map[string]string{"K": erpKey, "S": erpSecret}))
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want *ConfigError", err)
	}
	for _, want := range []string{
		"razorpay.webhook_secrets[0]: a secret is written literally",
		"razorpay.key_secret: a secret is written literally",
		"workers: must be 1..256",
		"database.driver: must be sqlite, mysql or postgres",
		"erpnext.url: must start with http",
		"mapping.company: required",
		`mapping.timezone: "Mars/Olympus"`,
		"mapping.excess: must be unallocated or park",
		`mapping.invoice_from[1]: unknown source "order.id"`,
		"mapping.fees: mode deduction needs",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for _, secret := range []string{"plain-text-secret", "rzp_secret_literal"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error repeats the secret %q", secret)
		}
	}
}

func TestConfigNeedsANonEmptyWebhookSecret(t *testing.T) {
	raw := []byte(`
razorpay: {webhook_secrets: ["${UNSET}"]}
erpnext: {url: "http://erp", api_key: "${K}", api_secret: "${S}"}
mapping: {company: C}
`)
	_, warnings, err := config.Parse(raw, env(map[string]string{"K": erpKey, "S": erpSecret}))
	if err == nil || !strings.Contains(err.Error(), "razorpay.webhook_secrets: at least one non-empty secret is required") {
		t.Fatalf("err %v", err)
	}
	if len(warnings) != 1 {
		t.Errorf("warnings %v", warnings)
	}
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	_, _, err := config.Parse([]byte("mapping: {compnay: X}\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "compnay") {
		t.Fatalf("err %v, want the misspelt key named", err)
	}
}

// Expanded values are data, never YAML: quotes, "#", backslashes and newlines in a secret stay
// in the secret and cannot add keys; plain references still resolve to numbers.
func TestConfigExpansionIsNotYAML(t *testing.T) {
	raw := []byte(`
workers: ${WORKERS}
admin_token: ${ADMIN}
razorpay: {webhook_secrets: ["${WH}"]}
erpnext:
  url: "http://erp"
  api_key: ${K}
  api_secret: ${S}
mapping: {company: C}
`)
	tricky := "a\\b \"q\" # not a comment\nworkers: 99"
	cfg, _, err := config.Parse(raw, env(map[string]string{"WORKERS": "7", "ADMIN": tricky, "WH": tricky, "K": erpKey, "S": "secret: {x: 1} # not YAML"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AdminToken != tricky || cfg.Razorpay.WebhookSecrets[0] != tricky || cfg.ERPNext.APISecret != "secret: {x: 1} # not YAML" {
		t.Errorf("secrets changed by expansion: %q %q %q", cfg.AdminToken, cfg.Razorpay.WebhookSecrets, cfg.ERPNext.APISecret)
	}
	if cfg.Workers != 7 {
		t.Errorf("workers %d, want 7 (and never the injected 99)", cfg.Workers)
	}
}

func TestConfigRefusesPartlyLiteralSecretsAndDSNPasswords(t *testing.T) {
	raw := []byte(`
database: {driver: mysql, dsn: "app:hunter2@tcp(127.0.0.1:3306)/rzp"}
razorpay: {webhook_secrets: ["prefix-${WH}"]}
erpnext: {url: "http://erp", api_key: "${K}", api_secret: "${S}"}
mapping: {company: C}
`)
	_, _, err := config.Parse(raw, env(map[string]string{"WH": whSecret, "K": erpKey, "S": erpSecret}))
	if err == nil || !strings.Contains(err.Error(), "razorpay.webhook_secrets[0]: a secret is written literally") ||
		!strings.Contains(err.Error(), "database.dsn: the password is written literally") {
		t.Fatalf("err %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Error("the error repeats the password")
	}
	ok := []byte(`
database: {driver: mysql, dsn: "app:${DB_PASSWORD}@tcp(127.0.0.1:3306)/rzp?parseTime=true"}
razorpay: {webhook_secrets: ["${WH}"]}
erpnext: {url: "http://erp", api_key: "${K}", api_secret: "${S}"}
mapping: {company: C}
`)
	cfg, _, err := config.Parse(ok, env(map[string]string{"WH": whSecret, "K": erpKey, "S": erpSecret, "DB_PASSWORD": "p@ss:w#rd"}))
	if err != nil || cfg.Database.DSN != "app:p@ss:w#rd@tcp(127.0.0.1:3306)/rzp?parseTime=true" {
		t.Fatalf("dsn %q err %v", cfg.Database.DSN, err)
	}
}

// PostgreSQL DSNs, as URL or key=value, follow the same rule as MariaDB's.
func TestConfigRefusesLiteralPostgresPasswords(t *testing.T) {
	rest := `
razorpay: {webhook_secrets: ["${WH}"]}
erpnext: {url: "http://erp", api_key: "${K}", api_secret: "${S}"}
mapping: {company: C}
`
	envs := env(map[string]string{"WH": whSecret, "K": erpKey, "S": erpSecret, "DB_PASSWORD": "p@ss:w#rd"})
	for _, dsn := range []string{"postgres://app:hunter2@127.0.0.1:5432/rzp", "postgresql://app:hunter2@db/rzp?sslmode=disable",
		"host=127.0.0.1 user=app password=hunter2 dbname=rzp"} {
		_, _, err := config.Parse([]byte("database: {driver: postgres, dsn: \""+dsn+"\"}"+rest), envs)
		if err == nil || !strings.Contains(err.Error(), "database.dsn: the password is written literally") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: err %v; want the literal password refused, not repeated", dsn, err)
		}
	}
	for dsn, want := range map[string]string{
		"postgres://app:${DB_PASSWORD}@127.0.0.1:5432/rzp?sslmode=disable": "postgres://app:p@ss:w#rd@127.0.0.1:5432/rzp?sslmode=disable",
		"postgres://app@127.0.0.1:5432/rzp":                                "postgres://app@127.0.0.1:5432/rzp",
		"host=db user=app password=${DB_PASSWORD} dbname=rzp":              "host=db user=app password=p@ss:w#rd dbname=rzp",
	} {
		cfg, _, err := config.Parse([]byte("database: {driver: postgres, dsn: \""+dsn+"\"}"+rest), envs)
		if err != nil || cfg.Database.DSN != want {
			t.Errorf("%s: dsn %q err %v; want %q", dsn, cfg.Database.DSN, err, want)
		}
	}
}

// A secret put into the wrong key never shows in the error about that key.
func TestConfigErrorsNeverPrintExpandedValues(t *testing.T) {
	base := `
razorpay: {webhook_secrets: ["${WH}"]}
erpnext: {url: "http://erp", api_key: "${K}", api_secret: "${S}"}
`
	envs := env(map[string]string{"WH": whSecret, "K": erpKey, "S": "SuperSecretValue42", "TZ_SECRET": "SuperSecretValue42"})
	for _, extra := range []string{
		"mapping: {company: C, timezone: \"${TZ_SECRET}\"}\n",
		"workers: ${TZ_SECRET}\nmapping: {company: C}\n",
	} {
		_, _, err := config.Parse([]byte(base+extra), envs)
		if err == nil {
			t.Fatalf("%q: no error", extra)
		}
		if strings.Contains(err.Error(), "SuperSecretValue42") || strings.Contains(err.Error(), "SuperSe...") {
			t.Errorf("%q: error shows the value: %v", extra, err)
		}
		if !strings.Contains(err.Error(), "${TZ_SECRET}") {
			t.Errorf("%q: error should name the reference instead: %v", extra, err)
		}
	}
}

func TestLoadReadsTheFileAndDurations(t *testing.T) {
	if _, _, err := config.Load(filepath.Join(t.TempDir(), "missing.yaml"), nil); err == nil || !strings.Contains(err.Error(), "read config") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "c.yaml")
	yaml := `razorpay: {webhook_secrets: ["${WH}"]}
erpnext: {url: "https://erp.example.com", api_key: "${K}", api_secret: "${S}", timeout: 45}
mapping: {company: Example Company, payment_request_grace: 2h}
reconcile: {since: 2026-01-01, window: 7d}
`
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path, env(map[string]string{"WH": whSecret, "K": erpKey, "S": erpSecret}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ERPNext.Timeout.D() != 45*time.Second || cfg.Mapping.PaymentRequestGrace.D() != 2*time.Hour || cfg.Reconcile.Window.D() != 7*24*time.Hour {
		t.Errorf("durations %v %v %v", cfg.ERPNext.Timeout.D(), cfg.Mapping.PaymentRequestGrace.D(), cfg.Reconcile.Window.D())
	}
	loc, _ := time.LoadLocation("Asia/Kolkata")
	if got := cfg.Reconcile.SinceIn(loc); !got.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, loc)) {
		t.Errorf("since %v, want the go-live day's start in the zone", got)
	}
	if got := (config.Reconcile{}).SinceIn(loc); !got.IsZero() {
		t.Errorf("unset since %v", got)
	}
	for _, bad := range []string{"-1d", "soon", "7x"} {
		if _, err := config.ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
	if err := os.WriteFile(path, []byte("mapping: {payment_request_grace: soon}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := config.Load(path, env(nil)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad duration: %v, want its line", err)
	}
}

func TestValidateNamesEachSection(t *testing.T) {
	cfg := config.Defaults()
	cfg.Listen, cfg.WebhookPath, cfg.Workers = "", "webhooks", 0
	cfg.Database = config.Database{Driver: "oracle"}
	cfg.ERPNext.URL, cfg.ERPNext.Timeout = "ftp://x", 0
	cfg.Mapping.Timezone, cfg.Mapping.ModeOfPayment = "Nowhere/City", ""
	cfg.Mapping.InvoiceFrom, cfg.Mapping.CustomerFrom = []string{"order.id"}, []string{"notes."}
	cfg.Mapping.WithoutInvoice, cfg.Mapping.Excess, cfg.Mapping.DescriptionPattern = "guess", "keep", "("
	cfg.Mapping.Fees = config.Fees{Mode: "deduction"}
	cfg.Mapping.Refunds.WithoutCreditNote = "ignore"
	cfg.Reconcile.Since, cfg.Reconcile.Schedule, cfg.Reconcile.Window, cfg.Reconcile.Lookback = "yesterday", "hourly", 0, -1
	cfg.Log.Format, cfg.Worker.MaxAttempts = "xml", 0
	p := strings.Join(cfg.Validate(), "\n")
	for _, key := range []string{"listen:", "webhook_path:", "workers:", "database.driver:", "database.dsn:", "razorpay.webhook_secrets:",
		"erpnext.url: must start", "erpnext.api_key", "erpnext.timeout:", "mapping.company:", "mapping.timezone:", "mapping.mode_of_payment:",
		"mapping.invoice_from[0]:", "mapping.customer_from[0]:", "mapping.without_invoice: must be park or advance, got \"guess\"",
		"mapping.description_pattern:", "mapping.excess: must be unallocated or park, got \"keep\"", "mapping.fees: mode deduction needs",
		"mapping.refunds.without_credit_note:", "reconcile.since:", "reconcile.schedule:", "reconcile.window:", "reconcile.lookback",
		"log.format:", "worker:"} {
		if !strings.Contains(p, key) {
			t.Errorf("no problem for %s in:\n%s", key, p)
		}
	}
	cfg = config.Defaults()
	cfg.Mapping.Fees.Mode = "gross"
	if p := strings.Join(cfg.Validate(), "\n"); !strings.Contains(p, `mapping.fees.mode: must be none or deduction, got "gross"`) {
		t.Errorf("fees mode: %s", p)
	}
}

// settlements: nothing is required while off; on, the bank, adjustments and (fees none) fee
// and GST accounts and the Razorpay API keys are, and since is a date not before
// reconcile.since.
func TestSettlementsConfig(t *testing.T) {
	base := `
razorpay: {webhook_secrets: ["${W}"], key_id: "${KID}", key_secret: "${KS}"}
erpnext: {url: "https://erp.example.com", api_key: "${K}", api_secret: "${S}"}
mapping: {company: Example Company}
reconcile: {since: 2026-01-01}
`
	long := map[string]string{"W": "whsec-T3st-settlements", "K": "k3y-T3st-settlements", "S": "s3cret-T3st-settlements"}
	vars := env(map[string]string{"W": long["W"], "K": long["K"], "S": long["S"], "KID": "rzp_test_T3stKey00000001", "KS": "rzp-s3cret-T3st-settlements"})
	cfg, _, err := config.Parse([]byte(base), vars)
	if err != nil {
		t.Fatalf("settlements off: %v", err)
	}
	if cfg.Settlements.Enabled || cfg.Settlements.Window.D() != 30*24*time.Hour {
		t.Errorf("defaults %+v", cfg.Settlements)
	}
	_, _, err = config.Parse([]byte(base+"settlements: {enabled: true, since: 2025-12-31, window: 0s}\n"), env(long))
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want *config.Error", err)
	}
	for _, want := range []string{
		"settlements.bank_account: required when settlements.enabled",
		"settlements.adjustments_account: required",
		"settlements.fee_account, settlements.tax_account: required when settlements.enabled and mapping.fees.mode is none " +
			"(the fee and its GST are booked with the settlement): set settlements.fee_account and settlements.tax_account, " +
			"or mapping.fees.fee_account and mapping.fees.tax_account (used when the settlements keys are empty)",
		"settlements.enabled: needs razorpay.key_id and razorpay.key_secret",
		"settlements.since: 2025-12-31 is before reconcile.since 2026-01-01",
		"settlements.window: must be positive",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
	cfg, _, err = config.Parse([]byte(base+`settlements: {enabled: true, bank_account: HDFC Bank - EC, adjustments_account: Razorpay Adjustments - EC,
  fee_account: Razorpay Fees - EC, tax_account: Input Tax GST - EC, since: 2026-02-01}
`), vars)
	if err != nil {
		t.Fatalf("a complete settlements section: %v", err)
	}
	if fee, tax := cfg.Settlements.Fees(cfg.Mapping); fee != "Razorpay Fees - EC" || tax != "Input Tax GST - EC" {
		t.Errorf("fee accounts %q %q", fee, tax)
	}

	// The other way the message names: mapping.fees' accounts with fees.mode none.
	complete := "settlements: {enabled: true, bank_account: HDFC Bank - EC, adjustments_account: Razorpay Adjustments - EC}\n"
	cfg, _, err = config.Parse([]byte(strings.Replace(base, "mapping: {company: Example Company}",
		`mapping: {company: Example Company, fees: {mode: none, fee_account: Razorpay Fees - EC, tax_account: Input Tax GST - EC}}`, 1)+complete), vars)
	if err != nil {
		t.Fatalf("fees mode none with mapping.fees' accounts: %v", err)
	}
	if fee, tax := cfg.Settlements.Fees(cfg.Mapping); fee != "Razorpay Fees - EC" || tax != "Input Tax GST - EC" {
		t.Errorf("fee accounts from mapping.fees: %q %q", fee, tax)
	}
	// Only the GST account missing: only it is named, both ways.
	_, _, err = config.Parse([]byte(base+strings.Replace(complete, "}", ", fee_account: Razorpay Fees - EC}", 1)), vars)
	want := "settlements.tax_account: required when settlements.enabled and mapping.fees.mode is none (the fee and its GST are booked " +
		"with the settlement): set settlements.tax_account, or mapping.fees.tax_account (used when the settlements keys are empty)"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "settlements.fee_account") {
		t.Errorf("only the tax account missing: %v\nwant %q and no settlements.fee_account", err, want)
	}
}

// razorpay.accept_accounts lists Razorpay account ids accepted besides razorpay.account_id:
// each must look like one, and account_id must be set.
func TestAcceptAccounts(t *testing.T) {
	parse := func(razorpay string) (config.Config, error) {
		raw := []byte("razorpay: " + razorpay + `
erpnext: {url: "http://erp", api_key: "${K}", api_secret: "${S}"}
mapping: {company: C}
`)
		cfg, _, err := config.Parse(raw, env(map[string]string{"K": "k3y-T3st-accounts", "S": "s3cret-T3st-accounts", "W": "whsec-T3st-accounts"}))
		return cfg, err
	}
	cfg, err := parse(`{webhook_secrets: ["${W}"], account_id: acc_T3stAcc0unt001, accept_accounts: [acc_St4gingAcc0unt1]}`)
	if err != nil || len(cfg.Razorpay.AcceptAccounts) != 1 || cfg.Razorpay.AcceptAccounts[0] != "acc_St4gingAcc0unt1" {
		t.Fatalf("accept_accounts %v, %v", cfg.Razorpay.AcceptAccounts, err)
	}
	_, err = parse(`{webhook_secrets: ["${W}"], account_id: acc_T3stAcc0unt001, accept_accounts: [acc_ok1, "staging", "acc_with space"]}`)
	for _, want := range []string{`razorpay.accept_accounts[1]: "staging" is not a Razorpay account id`, `razorpay.accept_accounts[2]: "acc_with space" is not`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "accept_accounts[0]") {
		t.Errorf("a well-formed id was refused: %v", err)
	}
	if _, err := parse(`{webhook_secrets: ["${W}"], accept_accounts: [acc_ok1]}`); err == nil ||
		!strings.Contains(err.Error(), "razorpay.accept_accounts: set razorpay.account_id first") {
		t.Errorf("err %v, want account_id required", err)
	}
}
