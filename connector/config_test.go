package connector_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestExampleConfigLoads(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, warnings, err := connector.ParseConfig(raw, env(map[string]string{
		"RAZORPAY_WEBHOOK_SECRET": "wh", "ERPNEXT_API_KEY": "k", "ERPNEXT_API_SECRET": "s",
	}))
	if err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	if len(cfg.Razorpay.WebhookSecrets) != 1 || cfg.Razorpay.WebhookSecrets[0] != "wh" {
		t.Errorf("secrets %v, want [wh] (the unset previous secret dropped)", cfg.Razorpay.WebhookSecrets)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "webhook_secrets[1]") {
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
database: {driver: postgres, dsn: x}
razorpay: {webhook_secrets: ["plain-text-secret", "${EMPTY}"], key_secret: "rzp_secret_literal"}
erpnext: {url: "erp.example.com", api_key: "${K}", api_secret: "${S}"}
mapping: {company: "", timezone: Mars/Olympus, excess: maybe, invoice_from: [notes.invoice, order.id], fees: {mode: deduction}}
`)
	_, _, err := connector.ParseConfig(raw, env(map[string]string{"K": "k", "S": "s"}))
	var ce *connector.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want *ConfigError", err)
	}
	for _, want := range []string{
		"razorpay.webhook_secrets[0]: a secret is written literally",
		"razorpay.key_secret: a secret is written literally",
		"workers: must be 1..256",
		"database.driver: must be sqlite or mysql",
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
	_, warnings, err := connector.ParseConfig(raw, env(map[string]string{"K": "k", "S": "s"}))
	if err == nil || !strings.Contains(err.Error(), "razorpay.webhook_secrets: at least one non-empty secret is required") {
		t.Fatalf("err %v", err)
	}
	if len(warnings) != 1 {
		t.Errorf("warnings %v", warnings)
	}
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	_, _, err := connector.ParseConfig([]byte("mapping: {compnay: X}\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "compnay") {
		t.Fatalf("err %v, want the misspelt key named", err)
	}
}
