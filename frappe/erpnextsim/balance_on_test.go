package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// 80-balance-*: get_balance_on moves by exactly what each entry put in or took out, for both
// users alike, may go negative, counts Payment Entries and Journal Entries, and stops at date.
func TestBalanceOn80ClearingAndBankAsRecorded(t *testing.T) {
	h := settlementSite(t)
	seedClearing(t, h, "31951.25", "")
	users := []erpnextsim.User{limitedUser, siteAdmin}
	check := func(what, account string, want int64) {
		t.Helper()
		for _, u := range users {
			if got := balanceOn(t, h, u, account, "2026-12-01"); got != want {
				t.Errorf("%s as %s: %d paise, want %d", what, u.Email, got, want)
			}
		}
	}
	check("80-balance-clearing-before", clearing, 3_195_125)
	check("80-balance-bank-before", hdfcGL, 0)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345678", "setl_00000000000002", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345698", "setl_00000000000004", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", pePath, transfer(9764, 9764, "UTR00012345673", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", pePath, transfer(10000, 9764, "UTR00012345675", map[string]any{"docstatus": 1}), as(limitedUser)...))
	check("80-balance-clearing-after", clearing, -781_275)
	check("80-balance-bank-after", hdfcGL, 4*976_400)
	check("fees", feesAccount, 2*20_000)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345680", "setl_00000000000007", map[string]any{"docstatus": 1}), as(limitedUser)...))
	check("80-balance-clearing-right-after-je", clearing, -1_781_275)
	if got := balanceOn(t, h, limitedUser, clearing, "2026-11-30"); got != 0 {
		t.Errorf("80-balance-clearing-previous-day: %d", got)
	}
	if got := balanceOn(t, h, limitedUser, clearing, ""); got != -1_781_275 {
		t.Errorf("80-balance-no-date: %d", got)
	}
	if got := balanceOn(t, h, limitedUser, "Bank Accounts - EC", "2026-12-01"); got != -1_781_275+5*976_400 {
		t.Errorf("group account Bank Accounts - EC (clearing + HDFC): %d", got)
	}
}

// 80-balance-unknown-account: 404 whose body holds exc_type and _server_messages only; with no
// account and no party the function returns None ({}).
func TestBalanceOn80UnknownAccountAndNothingAsked(t *testing.T) {
	h := settlementSite(t)
	r := h.do("GET", balanceURL+"?account=No+Such+Account+-+EC&date=2026-12-01", nil, as(limitedUser)...)
	r.expectError(t, 404, "DoesNotExistError", "Account No Such Account - EC not found")
	if join(keys(r.body)) != "_server_messages,exc_type" {
		t.Errorf("404 body keys %v", keys(r.body))
	}
	none := mustOK(t, h.do("GET", balanceURL+"?date=2026-12-01", nil, as(limitedUser)...))
	if len(none.body) != 0 {
		t.Errorf("no account: %s, want {}", none.raw)
	}
}
