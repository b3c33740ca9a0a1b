package main

import (
	"encoding/json"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// configFile writes a configuration for e's simulator (extra top-level YAML, extra indented
// razorpay keys) and returns its path and environment.
func (e *env) configFile(extra, razorpayKeys string) (string, map[string]string) {
	e.t.Helper()
	dir := e.t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	cfg := `
database: {driver: sqlite, dsn: ` + filepath.Join(dir, "store.db") + `}
razorpay:
  webhook_secrets: ["${WH}"]
  account_id: ` + testAccount + `
` + razorpayKeys + `
erpnext: {url: "` + e.erp.URL + `", api_key: "${ERPNEXT_API_KEY}", api_secret: "${ERPNEXT_API_SECRET}"}
` + extra
	if !strings.Contains(extra, "mapping:") {
		cfg += `mapping: {company: "` + erpnextsim.DefaultCompany + `"}` + "\n"
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path, map[string]string{"WH": testWebhook, "ERPNEXT_API_KEY": testKey, "ERPNEXT_API_SECRET": testSecret}
}

// Explain on every sample payload prints a plan or a reason and writes nothing anywhere — also
// with Razorpay keys set and Razorpay unreachable (the three samples whose order has
// to be fetched must not make explain exit 1): the failed lookup is a line of the explanation.
func TestExplainSamplePayloadsWritesNothing(t *testing.T) {
	t.Parallel()
	actions := explainSamples(t, "")
	if actions["payment.captured.json"] != connector.ExplainPark || actions["settlement.processed.json"] != connector.ExplainSkip {
		t.Errorf("actions %v", actions)
	}
	const keys = "  key_id: rzp_test_T3stKey0000001\n  key_secret: ${RZP}\n  api_url: http://127.0.0.1:1\n"
	actions = explainSamples(t, keys)
	for _, f := range []string{"payment.captured.json", "payment.captured--upi.json", "payment.captured--international-usd.json",
		"refund.processed.json", "refund.created.json", "refund.failed.json", "payment.dispute.created.json"} {
		if actions[f] != connector.ExplainRetry {
			t.Errorf("%s: %s, want retry (Razorpay is unreachable)", f, actions[f])
		}
	}
	if actions["settlement.processed.json"] != connector.ExplainSkip || actions["payment.authorized.json"] != connector.ExplainSkip {
		t.Errorf("actions %v", actions)
	}
}

// explainSamples explains every sample payload with a fresh simulator and configuration
// (razorpayKeys: extra razorpay keys, reading the key secret from ${RZP}), checks that each
// prints one explanation with an action and a reason, exits 0 or 3 accordingly and writes
// nothing, and returns the action per file.
func explainSamples(t *testing.T, razorpayKeys string) map[string]string {
	t.Helper()
	e := newEnv(t, "sqlite")
	if err := e.site.AddCustomer("CUST-00042"); err != nil {
		t.Fatal(err)
	}
	if inv := e.newInvoice("CUST-00042", "1180.00"); inv != "ACC-SINV-2026-00002" {
		t.Fatalf("invoice %s", inv) // the env's own invoice is 00001
	}
	path, envv := e.configFile("", razorpayKeys)
	envv["RZP"] = testRzpSecret
	samples, _ := filepath.Glob(filepath.Join(sharedtest.Dir(t, "reference", "razorpay-payloads"), "*.json"))
	if len(samples) < 10 {
		t.Fatalf("found %d sample payloads", len(samples))
	}
	actions := map[string]string{}
	for _, f := range samples {
		code, out, errs := run(t, envv, "explain", "--config", path, "--payload", f, "--json")
		var x connector.Explanation
		if err := json.Unmarshal([]byte(out), &x); err != nil {
			t.Errorf("%s: exit %d, %v: %s %s", filepath.Base(f), code, err, out, errs)
			continue
		}
		if x.Action == "" || (x.Action != connector.ExplainCreate && x.Reason == "") {
			t.Errorf("%s: explanation %+v has no action or reason", filepath.Base(f), x)
		}
		needsPerson := x.Action == connector.ExplainPark || x.Action == connector.ExplainRetry
		if want := map[bool]int{false: exitOK, true: exitParked}[needsPerson]; code != want {
			t.Errorf("%s: exit %d for action %s, want %d: %s", filepath.Base(f), code, x.Action, want, errs)
		}
		if strings.Contains(out+errs, testRzpSecret) {
			t.Errorf("%s: the output shows the key secret", filepath.Base(f))
		}
		actions[filepath.Base(f)] = x.Action
	}
	// The one sample naming an existing invoice plans an entry (or parks, paid already).
	if a := actions["payment.captured--notes-invoice.json"]; a != connector.ExplainPark && a != connector.ExplainCreate {
		t.Errorf("notes-invoice sample: %s", a)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 0 {
		t.Errorf("explain created %d Payment Entries", n)
	}
	for _, r := range e.site.Requests() {
		write := r.Method != http.MethodGet && !strings.HasSuffix(r.Path, ".get_payment_entry")
		if write || r.Committed {
			t.Errorf("explain sent a write: %s %s", r.Method, r.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "store.db")); err == nil {
		t.Error("explain created the store")
	}
	return actions
}

func TestExplainShowsEveryFieldAndItsSource(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	inv := e.newInvoice("Test Customer", "1180.00")
	path, envv := e.configFile("", "")
	body := envelope(t, "payment.captured", "payment", capture("pay_T3stExplain001", 118000, map[string]any{"fee": 2360, "tax": 360, "notes": map[string]any{"invoice": inv}}))
	f := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(f, body, 0o600)
	code, out, errs := run(t, envv, "explain", "--config", path, "--payload", f)
	if code != exitOK {
		t.Fatalf("exit %d %s %s", code, out, errs)
	}
	for _, want := range []string{"CREATE", "reference_no", "pay_T3stExplain001", "posting_date", "mapping.timezone Asia/Kolkata",
		"paid_to", erpnextsim.RazorpayClearing, "default account of Mode of Payment Razorpay", "INR 1180.00", "notes.invoice of the payment", "Nothing was written"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	if len(e.site.Docs("Payment Entry")) != 0 {
		t.Error("explain wrote an entry")
	}
}

// explain --payment of a payment a webhook booked but Razorpay's API does not know (or with no
// API keys at all) explains the body the store kept, and says so; without keys and with
// nothing stored it is a configuration failure (exit 1), not a usage error (exit 2).
func TestExplainPaymentFallsBackToTheStoredBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	const id = "pay_T3stStored0001"
	e.deliver(d, "T3stEvtStore01", e.payment("payment.captured", id, 1200000, nil))
	e.waitIdle(d)
	_, srv := rzpSim(t, d, razorpaysim.Faults{}) // knows no such payment: 400 "The id provided does not exist"
	write := func(keys string) string {
		p := filepath.Join(t.TempDir(), "config.yaml")
		cfg := "database: {driver: sqlite, dsn: " + d.cfg.Database.DSN + "}\nrazorpay:\n  webhook_secrets: [\"${WH}\"]\n  account_id: " + testAccount + "\n" + keys +
			"erpnext: {url: \"" + e.erp.URL + "\", api_key: \"${ERPNEXT_API_KEY}\", api_secret: \"${ERPNEXT_API_SECRET}\"}\nmapping: {company: \"" + erpnextsim.DefaultCompany + "\"}\n"
		if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	envs := map[string]string{"WH": testWebhook, "ERPNEXT_API_KEY": testKey, "ERPNEXT_API_SECRET": testSecret,
		"RZK": "rzp_test_key", "RZS": "rzp-secret-0123456789ab"}
	withKeys := write("  key_id: ${RZK}\n  key_secret: ${RZS}\n  api_url: \"" + srv.URL + "\"\n")
	noKeys := write("")
	for name, path := range map[string]string{"UnknownToRazorpay": withKeys, "WithoutKeys": noKeys} {
		code, out, errs := run(t, envs, "explain", "--config", path, "--payment", id, "--json")
		var x connector.Explanation
		if err := json.Unmarshal([]byte(out), &x); err != nil || code != exitOK {
			t.Fatalf("%s: exit %d, %v: %s %s", name, code, err, out, errs)
		}
		want := "the stored body of event T3stEvtStore01 (payment.captured, received "
		if x.Action != connector.ExplainDuplicate || x.Key != id || !strings.HasPrefix(x.Source, want) {
			t.Errorf("%s: %s %s from %q; want duplicate (booked already) from %q…", name, x.Action, x.Key, x.Source, want)
		}
		if name == "UnknownToRazorpay" && !strings.Contains(x.Source, "Razorpay did not give it: ") {
			t.Errorf("%s: source %q does not say why Razorpay's answer was not used", name, x.Source)
		}
		if _, out, _ := run(t, envs, "explain", "--config", path, "--payment", id); !strings.HasPrefix(out, "explained from the stored body of event T3stEvtStore01") {
			t.Errorf("%s: the text output does not say where the body came from:\n%s", name, out)
		}
	}
	code, out, errs := run(t, envs, "explain", "--config", noKeys, "--payment", "pay_T3stNeverSeen01")
	if code != exitFailure || !strings.Contains(errs+out, "razorpay.key_id and razorpay.key_secret are not configured") {
		t.Errorf("nothing stored, no keys: exit %d (want %d): %s %s", code, exitFailure, out, errs)
	}
	if code, _, _ := run(t, envs, "explain", "--config", withKeys, "--payment", "pay_T3stNeverSeen01"); code != exitFailure {
		t.Errorf("nothing stored, unknown to Razorpay: exit %d, want %d", code, exitFailure)
	}
}
