package check_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/check"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/internal/sitetest"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// runCheck runs check.Run for cfg against the ERPNext at url (the rig's site when "").
func runCheck(t *testing.T, r *rig, cfg connector.Config, rzp check.RazorpayLister) map[string]check.Line {
	t.Helper()
	erp, err := frappe.New(frappe.Config{URL: cfg.ERPNext.URL, APIKey: cfg.ERPNext.APIKey, APISecret: cfg.ERPNext.APISecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Run(context.Background(), cfg, erp, rzp, sitetest.T0)
	lines := map[string]check.Line{}
	for _, l := range rep.Lines {
		lines[l.Item] = l
		if strings.Contains(l.Detail+l.Fix, erpSecret) || strings.Contains(l.Detail+l.Fix, "wrong-secret") {
			t.Errorf("%s prints a secret: %s %s", l.Item, l.Detail, l.Fix)
		}
	}
	failed := false
	for _, l := range rep.Lines {
		failed = failed || l.Status == check.Fail
	}
	if rep.Failed() != failed {
		t.Errorf("Failed() = %v with lines %+v", rep.Failed(), rep.Lines)
	}
	return lines
}

func wantCheck(t *testing.T, lines map[string]check.Line, item, status, detail string) {
	t.Helper()
	l, ok := lines[item]
	if !ok || l.Status != status || !strings.Contains(l.Detail, detail) {
		t.Errorf("%s: %+v, want %s with %q", item, l, status, detail)
	}
	if status != check.OK && ok && l.Fix == "" {
		t.Errorf("%s is %s without a fix", item, status)
	}
}

// A site that does not answer frappe.auth.get_logged_user (a proxy refusing the method, a
// Frappe without it): check still passes the credentials, names "the API user", and warns
// that it cannot look up that user's User Permissions.
func TestCheckWithoutTheLoggedUser(t *testing.T) {
	r := newRig(t, withFront(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if strings.HasSuffix(req.URL.Path, "/"+frappe.MethodGetLoggedUser) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte(`{"exc_type":"PermissionError","_server_messages":"[]"}`))
				return
			}
			h.ServeHTTP(w, req)
		})
	}))
	lines := runCheck(t, r, r.cfg, nil)
	if d := lines["erpnext.credentials"].Detail; d != "ERPNext accepted the API key as the API user" {
		t.Errorf("credentials line %q, want it to name no user", d)
	}
	wantCheck(t, lines, "erpnext.user_permissions", check.Warn, "cannot tell which user the API key belongs to")
}

func TestCheckACorrectSite(t *testing.T) {
	r := newRig(t, withRazorpay)
	cfg := r.cfg
	cfg.Mapping.Fees.Mode, cfg.Mapping.Fees.FeeAccount = "deduction", erpnextsim.FeeAccount
	cfg.Mapping.Fees.TaxAccount, cfg.Mapping.Fees.CostCenter = erpnextsim.GSTInputAccount, erpnextsim.CostCenter
	rzp, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: cfg.Razorpay.APIURL, KeyID: rzpKey, KeySecret: rzpSecret})
	if err != nil {
		t.Fatal(err)
	}
	lines := runCheck(t, r, cfg, rzp)
	for _, item := range []string{"erpnext.credentials", "mapping.company", "mapping.mode_of_payment", "mapping.paid_to (from the Mode of Payment)",
		"mapping.fees.fee_account", "mapping.fees.tax_account", "mapping.fees.cost_center", "erpnext.fiscal_year", "mapping.timezone",
		"razorpay.webhook_secrets", "erpnext.permission.payment_entry", "erpnext.permission.sales_invoice"} {
		wantCheck(t, lines, item, check.OK, "")
	}
	wantCheck(t, lines, "mapping.timezone", check.OK, "Asia/Kolkata (today is 2026-01-16 there)")
	wantCheck(t, lines, "erpnext.credentials", check.OK, "ERPNext accepted the API key as "+erpnextsim.APIUser)
	if d := lines["erpnext.credentials"].Detail; d != "ERPNext accepted the API key as "+erpnextsim.APIUser {
		t.Errorf("credentials line %q, want the user frappe.auth.get_logged_user answered (erpnext-recorded-connector/R11)", d)
	}
	wantCheck(t, lines, "mapping.mode_of_payment", check.OK, `Mode of Payment "Razorpay" → `+erpnextsim.RazorpayClearing)
	wantCheck(t, lines, "razorpay.webhook_secrets", check.OK, "2 secret(s) set (values not shown)")
	wantCheck(t, lines, "erpnext.reference_no_index", check.Warn, "")
	for item, l := range lines {
		if l.Status == check.Fail {
			t.Errorf("%s failed on a correct site: %s", item, l.Detail)
		}
	}
	if l, ok := lines["razorpay.key_id"]; !ok || l.Status != check.OK {
		t.Errorf("razorpay keys: %+v", l)
	}
}

func TestCheckReportsWhatIsWrong(t *testing.T) {
	r := newRig(t)
	t.Run("AccountsAndCostCenter", func(t *testing.T) {
		cfg := r.cfg
		cfg.Mapping.PaidTo = erpnextsim.IncomeAccount
		cfg.Mapping.Fees.Mode, cfg.Mapping.Fees.FeeAccount = "deduction", erpnextsim.FeeAccount
		cfg.Mapping.Fees.TaxAccount, cfg.Mapping.Fees.CostCenter = "Nowhere Tax - EC", "Nowhere - EC"
		lines := runCheck(t, r, cfg, nil)
		wantCheck(t, lines, "mapping.paid_to", check.Fail, `account type ""`)
		wantCheck(t, lines, "mapping.fees.cost_center", check.Fail, `Cost Center "Nowhere - EC" does not exist`)
		wantCheck(t, lines, "mapping.fees.tax_account", check.Fail, "Nowhere Tax - EC")
	})
	t.Run("CompanyAndModeOfPayment", func(t *testing.T) {
		cfg := r.cfg
		cfg.Mapping.Company, cfg.Mapping.ModeOfPayment = "No Such Company", "Cheque Desk"
		lines := runCheck(t, r, cfg, nil)
		wantCheck(t, lines, "mapping.company", check.Fail, `Company "No Such Company" does not exist`)
		wantCheck(t, lines, "mapping.mode_of_payment", check.Fail, `Mode of Payment "Cheque Desk" does not exist`)
	})
	t.Run("FrozenPeriodAndIntegrationRequests", func(t *testing.T) {
		r.site.SetFrozenUpto("2026-01-31")
		defer r.site.SetFrozenUpto("")
		cfg := r.cfg
		cfg.Reconcile.IntegrationRequests = true
		lines := runCheck(t, r, cfg, nil)
		for item, l := range lines {
			if strings.Contains(item, "frozen") && l.Status == check.OK {
				t.Errorf("%s ok with accounts frozen up to after today: %s", item, l.Detail)
			}
		}
		wantCheck(t, lines, "erpnext.permission.integration_request", check.Fail, "")
	})
	t.Run("RefusedCredentials", func(t *testing.T) {
		cfg := r.cfg
		cfg.ERPNext.APISecret = "wrong-secret-DO-NOT-LOG"
		lines := runCheck(t, r, cfg, nil)
		wantCheck(t, lines, "erpnext.api_key", check.Fail, "ERPNext refused the API key and secret (401)")
		if _, ok := lines["mapping.company"]; ok {
			t.Error("the site was checked further after refusing the credentials")
		}
	})
	t.Run("Unreachable", func(t *testing.T) {
		cfg := r.cfg
		cfg.ERPNext.URL = "http://127.0.0.1:1"
		wantCheck(t, runCheck(t, r, cfg, nil), "erpnext.url", check.Fail, "ERPNext does not answer")
	})
	t.Run("NotAFrappeSite", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>bad gateway</html>"))
		}))
		defer srv.Close()
		cfg := r.cfg
		cfg.ERPNext.URL = srv.URL
		wantCheck(t, runCheck(t, r, cfg, nil), "erpnext.url", check.Fail, "the answer is not from a Frappe site")
	})
	t.Run("NoWebhookSecretAndABadZone", func(t *testing.T) {
		cfg := r.cfg
		cfg.Razorpay.WebhookSecrets, cfg.Mapping.Timezone = nil, "Mars/Olympus"
		lines := runCheck(t, r, cfg, nil)
		wantCheck(t, lines, "razorpay.webhook_secrets", check.Fail, "no non-empty webhook secret")
		wantCheck(t, lines, "mapping.timezone", check.Fail, `"Mars/Olympus" is not a known IANA time zone`)
	})
	t.Run("RazorpayKeysRefused", func(t *testing.T) {
		sim := razorpaysim.New(razorpaysim.Options{KeyID: rzpKey, KeySecret: rzpSecret, AccountID: account})
		defer sim.Close()
		srv := httptest.NewServer(sim)
		defer srv.Close()
		rzp, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: rzpKey, KeySecret: "wrong-secret"})
		if err != nil {
			t.Fatal(err)
		}
		cfg := r.cfg
		cfg.Razorpay.KeyID, cfg.Razorpay.KeySecret = rzpKey, "wrong-secret"
		lines := runCheck(t, r, cfg, rzp)
		if l := lines["razorpay.key_id"]; l.Status != check.Fail {
			t.Errorf("razorpay keys refused: %+v", l)
		}
	})
}

// Currency Precision as System Settings holds it: below 2 fails (paise would be lost), 2 or
// more passes, and System Settings unreadable to the API user (403) warns with what to confirm.
func TestCheckCurrencyPrecision(t *testing.T) {
	for _, tc := range []struct {
		name, answer   string
		status         int
		want, wantText string
	}{
		{"Zero", `{"data":{"currency_precision":"0"}}`, http.StatusOK, check.Fail, "Currency Precision is 0; paise would be lost"},
		{"Three", `{"data":{"currency_precision":3}}`, http.StatusOK, check.OK, "Currency Precision 3"},
		{"Forbidden", `{"exc_type":"PermissionError","_server_messages":"[]"}`, http.StatusForbidden, check.Warn, "the API user may not read it (403)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, withFront(func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					if req.URL.Path == "/api/resource/System Settings/System Settings" {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(tc.status)
						_, _ = w.Write([]byte(tc.answer))
						return
					}
					h.ServeHTTP(w, req)
				})
			}))
			wantCheck(t, runCheck(t, r, r.cfg, nil), "erpnext.currency_precision", tc.want, tc.wantText)
		})
	}
}
