package main

import (
	"encoding/json"
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
		status := map[string]string{}
		for _, c := range rep.Checks {
			status[c.Item] = c.Status
			t.Logf("%-4s %-45s %s", c.Status, c.Item, c.Detail)
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
