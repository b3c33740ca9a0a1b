package erpnextsim_test

import (
	"testing"
)

const accountPath = "/api/resource/Account"

// 60-create-bank-gl-account, 60-create-adjustments-account, 60-create-non-bank-clearing-account:
// names "{account_name} - {abbr}", root and report type from the parent, account_type ""
// when not sent; the parent must be a group of the company; a taken name is 409.
func TestAccount60CreatedUnderItsParent(t *testing.T) {
	h := newSettlementHarness(t)
	for _, c := range []struct {
		body                       map[string]any
		name, root, report, acType string
	}{
		{map[string]any{"account_name": "HDFC Bank", "parent_account": "Bank Accounts - EC", "company": "Example Company", "account_type": "Bank", "is_group": 0, "account_currency": "INR"},
			"HDFC Bank - EC", "Asset", "Balance Sheet", "Bank"},
		{map[string]any{"account_name": "Razorpay Adjustments", "parent_account": "Indirect Expenses - EC", "company": "Example Company", "is_group": 0},
			"Razorpay Adjustments - EC", "Expense", "Profit and Loss", ""},
		{map[string]any{"account_name": "Petty Cash", "parent_account": "Cash In Hand - EC", "company": "Example Company", "account_type": "Cash"},
			"Petty Cash - EC", "Asset", "Balance Sheet", "Cash"},
		{map[string]any{"account_name": "Settlements", "parent_account": "Current Assets - EC", "company": "Example Company", "is_group": 1},
			"Settlements - EC", "Asset", "Balance Sheet", ""},
	} {
		d := mustOK(t, h.do("POST", accountPath, c.body, as(siteAdmin)...)).data()
		for k, want := range map[string]string{"name": c.name, "root_type": c.root, "report_type": c.report, "account_type": c.acType,
			"account_currency": "INR", "freeze_account": "No", "balance_must_be": "", "old_parent": str(c.body["parent_account"]), "tax_rate": "0.0"} {
			if got := field(d, k); got != want {
				t.Errorf("%s %s = %q, want %q", c.name, k, got, want)
			}
		}
	}
	refusals := []struct {
		body     map[string]any
		status   int
		exc, msg string
	}{
		{map[string]any{"account_name": "HDFC Bank", "parent_account": "Bank Accounts - EC", "company": "Example Company"}, 409, "DuplicateEntryError", "Account <strong>HDFC Bank - EC</strong> already exists"},
		{map[string]any{"account_name": "X", "parent_account": "Cash - EC", "company": "Example Company"}, 417, "ValidationError", "Account X - EC: Parent account Cash - EC can not be a ledger"},
		{map[string]any{"account_name": "Y", "parent_account": "No Parent - EC", "company": "Example Company"}, 417, "LinkValidationError", "Could not find Parent Account: No Parent - EC"},
	}
	for _, r := range refusals {
		h.do("POST", accountPath, r.body, as(siteAdmin)...).expectError(t, r.status, r.exc, r.msg)
	}
}

// 60-create-other-company: a Company gets the standard chart under its abbreviation, cost
// centers and the recorded defaults; only a System Manager may create one.
func TestCompanyCreatedWithStandardChart(t *testing.T) {
	h := newSettlementHarness(t)
	body := map[string]any{"company_name": "Other Company", "abbr": "OC", "default_currency": "INR", "country": "India",
		"create_chart_of_accounts_based_on": "Standard Template", "chart_of_accounts": "Standard"}
	h.do("POST", "/api/resource/Company", body, as(limitedUser)...).expectError(t, 403, "PermissionError")
	d := mustOK(t, h.do("POST", "/api/resource/Company", body, as(siteAdmin)...)).data()
	for k, want := range map[string]string{"name": "Other Company", "abbr": "OC", "default_cash_account": "Cash - OC", "default_receivable_account": "Debtors - OC",
		"default_payable_account": "Creditors - OC", "write_off_account": "Write Off - OC", "default_income_account": "Sales - OC",
		"cost_center": "Main - OC", "exchange_gain_loss_account": "Exchange Gain/Loss - OC", "round_off_account": "Round Off - OC", "round_off_cost_center": "Main - OC"} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := d["default_bank_account"]; ok {
		t.Error("the recorded company has no default bank account")
	}
	for _, name := range []string{"Cash - OC", "Bank Account - OC", "Debtors - OC"} {
		a, ok := h.site.Doc("Account", name)
		if !ok || field(a, "company") != "Other Company" {
			t.Errorf("account %s: %v", name, a)
		}
	}
	h.do("POST", "/api/resource/Company", map[string]any{"company_name": "Third", "abbr": "OC", "default_currency": "INR", "country": "India"}, as(siteAdmin)...).
		expectError(t, 417, "ValidationError", "Abbreviation already used for another company")
}

// 60-create-bank, 60-create-bank-account-doc, 66-bank-account-list-by-gl-account: Bank named by
// bank_name, Bank Account "{account_name} - {bank}", readable by the Accounts User; bank_account.py
// refusals (not recorded).
func TestBank60AndBankAccountNaming(t *testing.T) {
	h := settlementSite(t)
	h.do("POST", "/api/resource/Bank", map[string]any{"bank_name": "ICICI"}, as(limitedUser)...).expectError(t, 403, "PermissionError")
	h.do("POST", "/api/resource/Bank", map[string]any{"bank_name": "HDFC Bank"}, as(siteAdmin)...).expectError(t, 409, "DuplicateEntryError", "Bank <strong>HDFC Bank</strong> already exists")
	r := mustOK(t, h.do("GET", list("/api/resource/Bank%20Account", map[string]string{"fields": `["name","account","bank","company","is_company_account"]`,
		"filters": `[["account","=","` + hdfcGL + `"]]`}), nil, as(limitedUser)...))
	rows := r.body["data"].([]any)
	if len(rows) != 1 || field(rows[0].(map[string]any), "name") != hdfcDoc || field(rows[0].(map[string]any), "is_company_account") != "1" {
		t.Errorf("66-bank-account-list-by-gl-account: %s", r.raw)
	}
	ba := "/api/resource/Bank%20Account"
	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"account_name": "Second", "bank": "HDFC Bank", "account": hdfcGL, "company": "Example Company", "is_company_account": 1},
			`'<strong>HDFC Bank - EC</strong>' account is already used by <strong>'<a href="http://erp.localhost:8000/app/bank-account/HDFC%20Current%20-%20HDFC%20Bank">HDFC Current - HDFC Bank</a>'</strong>. Use another account.`},
		{map[string]any{"account_name": "Third", "bank": "HDFC Bank", "is_company_account": 1}, "Company is manadatory for company account"},
		{map[string]any{"account_name": "Fourth", "bank": "HDFC Bank", "iban": "GB82 WEST 1234 5698 7654 33"}, "IBAN is not valid"},
	} {
		h.do("POST", ba, c.body, as(limitedUser)...).expectError(t, 417, "ValidationError", c.msg)
	}
	ok := mustOK(t, h.do("POST", ba, map[string]any{"account_name": "Fifth", "bank": "HDFC Bank", "iban": "GB82 WEST 1234 5698 7654 32"}, as(limitedUser)...))
	if field(ok.data(), "name") != "Fifth - HDFC Bank" {
		t.Errorf("valid IBAN: %s", ok.raw)
	}
}
