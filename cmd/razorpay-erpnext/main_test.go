package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
)

func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	code := m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

func TestDemoJSONBooksOneReceipt(t *testing.T) {
	t.Parallel()
	code, out, errs := run(t, nil, "demo", "--json")
	if code != exitOK {
		t.Fatalf("demo exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	want := map[string]any{"arrivals": 3.0, "receipts_booked": 1.0, "books_total": "12000.00", "gateway_paid": "12000.00",
		"difference": "0.00", "invoice_status": "Paid"}
	for k, v := range want {
		if res[k] != v {
			t.Errorf("%s = %v, want %v", k, res[k], v)
		}
	}
	if pes, _ := res["payment_entries"].([]any); len(pes) != 1 || !strings.HasPrefix(pes[0].(string), "ACC-PAY-") {
		t.Errorf("payment_entries %v, want one ACC-PAY- name", res["payment_entries"])
	}
}

// The README's demo payment on PostgreSQL: the same books, on a database the demo creates on the
// server of TEST_POSTGRES_DSN and drops again.
func TestDemoOnPostgresBooksOneReceipt(t *testing.T) {
	t.Parallel()
	code, out, errs := run(t, nil, "demo", "--json", "--driver", "postgres", "--dsn", pgtest.DSN(t))
	if code != exitOK {
		t.Fatalf("demo exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	want := map[string]any{"arrivals": 3.0, "accepted": 1.0, "duplicates": 2.0, "receipts_booked": 1.0,
		"books_total": "12000.00", "gateway_paid": "12000.00", "difference": "0.00", "invoice_status": "Paid"}
	for k, v := range want {
		if res[k] != v {
			t.Errorf("%s = %v, want %v", k, res[k], v)
		}
	}
}

func TestDemoRefusesAnUnknownDriver(t *testing.T) {
	t.Parallel()
	code, _, errs := run(t, nil, "demo", "--driver", "oracle")
	if code == exitOK || !strings.Contains(errs, `--driver must be sqlite, postgres or mysql, got "oracle"`) {
		t.Fatalf("demo --driver oracle: exit %d, stderr %s; want a failure naming the drivers", code, errs)
	}
}

func TestDemoTable(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, nil, "demo")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, line := range []string{"receipts booked                1 ACC-PAY-", "difference                     ₹0.00", "cash received per the books    ₹12,000.00", "invoice status                 Paid"} {
		if !strings.Contains(out, line) {
			t.Errorf("table lacks %q:\n%s", line, out)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	if code, _, _ := run(t, nil, "serve"); code != exitUsage {
		t.Errorf("serve without --config: exit %d, want 2", code)
	}
	if code, _, _ := run(t, nil, "no-such-command"); code != exitUsage {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, out, _ := run(t, nil, "version"); code != exitOK || !strings.HasPrefix(out, "razorpay-erpnext ") {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestServeRefusesLiteralSecretsAndNamesTheKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	cfg := `
database: {driver: sqlite, dsn: ` + filepath.Join(dir, "s.db") + `}
razorpay: {webhook_secrets: ["literal-secret-value"]}
erpnext: {url: "http://127.0.0.1:1", api_key: "${K}", api_secret: "${S}"}
mapping: {company: Example Company}
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, map[string]string{"K": testKey, "S": testSecret}, "serve", "--config", path)
	if code != exitFailure || !strings.Contains(errs, "razorpay.webhook_secrets[0]: a secret is written literally") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if strings.Contains(errs, "literal-secret-value") {
		t.Error("the error repeats the secret")
	}
}

// migrate creates the store and needs nothing else of the configuration: it must
// run without the ERPNext and Razorpay secrets it never uses. No secret is set
// here, and nothing about them is said; serve with the same file names what is missing.
func TestMigrateCreatesTheStoreWithoutSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	cfg := `
database: {driver: sqlite, dsn: ` + filepath.Join(dir, "s.db") + `}
razorpay: {webhook_secrets: ["${W}", "${UNSET}"], key_secret: "${RS}"}
erpnext: {url: "http://127.0.0.1:1", api_key: "${K}", api_secret: "${S}"}
mapping: {company: Example Company}
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, nil, "migrate", "--config", path)
	if code != exitOK || out != "migrations applied (sqlite)\n" || errs != "" {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.db")); err != nil {
		t.Errorf("store file: %v", err)
	}
	code, _, errs = run(t, nil, "serve", "--config", path)
	for _, want := range []string{"razorpay.webhook_secrets: at least one non-empty secret is required", "set W or UNSET in the environment",
		"erpnext.api_key: required", "set K in the environment"} {
		if code != exitFailure || !strings.Contains(errs, want) {
			t.Errorf("serve: exit %d, stderr lacks %q:\n%s", code, want, errs)
		}
	}
}

// DESIGN.md §6: a grouping command run bare or with an unknown subcommand is a usage error;
// --json prints one JSON object on stdout even when the command fails.
func TestUsageAndJSONContract(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"events"}, {"events", "replayy", "x"}, {"simulate"}, {"simulate", "nothing"}} {
		if code, _, _ := run(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfgPath, []byte(`
database: {driver: sqlite, dsn: `+filepath.Join(dir, "missing.db")+`}
razorpay: {webhook_secrets: ["${W}"], key_id: "${RK}", key_secret: "${RS}"}
erpnext: {url: "http://127.0.0.1:1", api_key: "${K}", api_secret: "${S}"}
mapping: {company: Example Company}
`), 0o600)
	envs := map[string]string{"W": testWebhook, "K": testKey, "S": testSecret, "RK": "rzp_test_rk", "RS": testRzpSecret}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"events", "show", "x", "--json", "--config", cfgPath}, exitFailure},
		{[]string{"reconcile", "--json", "--from", "2026-11-30", "--to", "2026-11-01", "--config", cfgPath}, exitUsage},
		{[]string{"check", "--json", "--config", filepath.Join(dir, "nope.yaml")}, exitFailure},
	} {
		code, out, _ := run(t, envs, tc.args...)
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil || obj["error"] == nil || code != tc.code {
			t.Errorf("%v: exit %d (want %d), stdout %q: want one JSON object with an error", tc.args, code, tc.code, out)
		}
	}
}
