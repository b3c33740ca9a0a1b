package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

func failLines(out string) []string {
	var fails []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "fail") {
			fails = append(fails, l)
		}
	}
	return fails
}

func TestCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	t.Run("WrongAccountTypeAndMissingCostCenterFail", func(t *testing.T) {
		path, envs := e.writeConfig(cfg, `mapping:
  company: `+erpnextsim.DefaultCompany+`
  paid_to: "`+erpnextsim.IncomeAccount+`"
  fees: {mode: deduction, fee_account: "`+erpnextsim.FeeAccount+`", tax_account: "`+erpnextsim.GSTInputAccount+`", cost_center: "Nowhere - EC"}
reconcile: {integration_requests: false}`)
		code, out, errs := run(t, envs, "check", "--config", path)
		if code != exitFailure {
			t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
		}
		fails := failLines(out)
		if len(fails) != 2 || !strings.Contains(fails[0], "mapping.paid_to") || !strings.Contains(fails[0], `account type ""`) ||
			!strings.Contains(fails[1], "mapping.fees.cost_center") || !strings.Contains(fails[1], `Cost Center "Nowhere - EC" does not exist`) {
			t.Errorf("want exactly the paid_to type and the missing cost center to fail:\n%s", out)
		}
		if !strings.Contains(out, "fix: pick an account of type Bank/Cash") || !strings.Contains(out, "2 fail") {
			t.Errorf("no fix or summary:\n%s", out)
		}
	})
	t.Run("CorrectSitePasses", func(t *testing.T) {
		path, envs := e.writeConfig(cfg, `mapping:
  company: `+erpnextsim.DefaultCompany+`
  fees: {mode: deduction, fee_account: "`+erpnextsim.FeeAccount+`", tax_account: "`+erpnextsim.GSTInputAccount+`", cost_center: "`+erpnextsim.CostCenter+`"}
reconcile: {integration_requests: false}`)
		code, out, errs := run(t, envs, "check", "--config", path, "--json")
		if code != exitOK {
			t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
		}
		var rep struct {
			OK     bool `json:"ok"`
			Checks []struct{ Item, Status, Detail, Fix string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.OK {
			t.Fatalf("json %v: %s", err, out)
		}
		status, detail := map[string]string{}, map[string]string{}
		for _, c := range rep.Checks {
			status[c.Item], detail[c.Item] = c.Status, c.Detail
			t.Logf("%-4s %-45s %s", c.Status, c.Item, c.Detail)
		}
		// The user the key authenticates as, from frappe.auth.get_logged_user (R11).
		if want := "ERPNext accepted the API key as " + erpnextsim.APIUser; detail["erpnext.credentials"] != want {
			t.Errorf("erpnext.credentials %q, want %q", detail["erpnext.credentials"], want)
		}
		for _, item := range []string{"erpnext.credentials", "mapping.company", "mapping.mode_of_payment", "mapping.paid_to (from the Mode of Payment)",
			"mapping.fees.fee_account", "mapping.fees.tax_account", "mapping.fees.cost_center", "erpnext.fiscal_year", "mapping.timezone",
			"razorpay.webhook_secrets", "erpnext.permission.payment_entry", "erpnext.permission.sales_invoice"} {
			if status[item] != "ok" {
				t.Errorf("%s: %q, want ok", item, status[item])
			}
		}
		if status["erpnext.reference_no_index"] != "warn" {
			t.Errorf("reference_no index: %q, want warn", status["erpnext.reference_no_index"])
		}
	})
	t.Run("IntegrationRequestsUnreadableFails", func(t *testing.T) {
		path, envs := e.writeConfig(cfg, "")
		code, out, _ := run(t, envs, "check", "--config", path)
		if code != exitFailure || !strings.Contains(out, "fail  erpnext.permission.integration_request") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("RefusedCredentialsFailWithoutTheSecret", func(t *testing.T) {
		bad := cfg
		bad.ERPNext.APISecret = "wrong-secret-DO-NOT-LOG"
		path, envs := e.writeConfig(bad, "")
		code, out, errs := run(t, envs, "check", "--config", path)
		if code != exitFailure || !strings.Contains(out, "fail  erpnext.api_key") {
			t.Errorf("exit %d:\n%s", code, out)
		}
		if strings.Contains(out+errs, "wrong-secret-DO-NOT-LOG") {
			t.Error("check prints the secret")
		}
	})
}

// TestCheckPassesWithTheShippedExample: the API user README step 1 describes — exactly Accounts
// User + Sales User, the simulator's default user — passes `check` with config.example.yaml as
// shipped (only erpnext.url pointed at the site); turning the Integration Request sweep on
// fails one line saying which permission is missing and what it costs.
func TestCheckPassesWithTheShippedExample(t *testing.T) {
	e := newEnv(t, "sqlite")
	raw, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	example := strings.Replace(string(raw), "url: https://erp.example.com", "url: "+e.erp.URL, 1)
	example = strings.Replace(example, "dsn: ./razorpay-erpnext.db", "dsn: "+filepath.Join(t.TempDir(), "r.db"), 1)
	envs := map[string]string{"ERPNEXT_API_KEY": testKey, "ERPNEXT_API_SECRET": testSecret, "RAZORPAY_WEBHOOK_SECRET": testWebhook}
	check := func(yaml string) (int, string) {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(t, envs, "check", "--config", path)
		return code, out + errs
	}
	code, out := check(example)
	if code != exitOK || len(failLines(out)) != 0 || !strings.Contains(out, "erpnext.permission.integration_request") {
		t.Fatalf("the shipped example: exit %d, fails %q:\n%s", code, failLines(out), out)
	}
	if !strings.Contains(example, "integration_requests: false") {
		t.Fatal("the example no longer turns the sweep off; update this test and README step 1 together")
	}
	t.Logf("the shipped example:\n%s", out)
	code, out = check(strings.Replace(example, "integration_requests: false", "integration_requests: true", 1))
	fails := failLines(out)
	if code != exitFailure || len(fails) != 1 || !strings.Contains(fails[0], "erpnext.permission.integration_request") ||
		!strings.Contains(fails[0], erpnextsim.APIUser+" may not read Integration Request") || !strings.Contains(fails[0], "Integration Request sweep") {
		t.Errorf("with the sweep on: exit %d, fails %q, want the one line naming the permission and the sweep:\n%s", code, fails, out)
	}
	if !strings.Contains(out, "Read on Integration Request") || !strings.Contains(out, "reconcile.integration_requests: false") {
		t.Errorf("no fix for the missing permission:\n%s", out)
	}
}
