package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// glRefused saves body as a draft (accepted: the ledger checks run only on submit), then
// submits it with PUT {"docstatus": 1} and with a one-call insert, both refused with want;
// nothing is posted and the invoice is untouched.
func glRefused(t *testing.T, h *harness, body map[string]any, want string) {
	t.Helper()
	glBefore := len(h.site.Docs("GL Entry"))
	r := h.do("POST", pePath, body)
	if r.status != 200 || field(r.data(), "docstatus") != "0" {
		t.Fatalf("draft refused: %d %s", r.status, r.raw)
	}
	name := field(r.data(), "name")
	h.do("PUT", pePath+"/"+name, map[string]any{"docstatus": 1}).expectError(t, 417, "ValidationError", "Payment Entry "+name+": "+want)
	if d, _ := h.site.Doc("Payment Entry", name); field(d, "docstatus") != "0" {
		t.Fatalf("refused submit changed the draft: %v", d["docstatus"])
	}
	h.do("DELETE", pePath+"/"+name, nil)
	body["docstatus"] = 1
	h.do("POST", pePath, body).expectError(t, 417, "ValidationError", "Payment Entry "+name+": "+want)
	if n := len(h.site.Docs("GL Entry")); n != glBefore {
		t.Fatalf("%d GL entries after a refused submit, want %d", n, glBefore)
	}
	if inv := h.invoice("ACC-SINV-2026-00001"); field(inv, "outstanding_amount") != "1000.0" {
		t.Fatalf("invoice outstanding %v after a refused submit", inv["outstanding_amount"])
	}
}

func TestS2GroupAccountAsPaidTo(t *testing.T) {
	h := seeded(t)
	glRefused(t, h, pe(map[string]any{"paid_to": "Bank Accounts - EC"}),
		"Account Bank Accounts - EC is a Group Account and group accounts cannot be used in transactions")
}

func TestS2GroupAccountInDeductionRow(t *testing.T) {
	h := seeded(t)
	glRefused(t, h, pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4,
		"deductions": []any{map[string]any{"account": "Indirect Expenses - EC", "cost_center": erpnextsim.CostCenter, "amount": 23.6}}}),
		"Account Indirect Expenses - EC is a Group Account and group accounts cannot be used in transactions")
}

func TestS2AccountOfAnotherCompany(t *testing.T) {
	h := seeded(t)
	if err := h.site.AddCompany(erpnextsim.CompanySpec{Name: "Other Company", Abbr: "OC"}); err != nil {
		t.Fatal(err)
	}
	acct, err := h.site.AddAccount(erpnextsim.AccountSpec{AccountName: "Bank", Company: "Other Company", AccountType: "Bank"})
	if err != nil || acct != "Bank - OC" {
		t.Fatal(acct, err)
	}
	glRefused(t, h, pe(map[string]any{"paid_to": acct}), "Account Bank - OC does not belong to Company Example Company")
	fee, err := h.site.AddAccount(erpnextsim.AccountSpec{AccountName: "Fees", Company: "Other Company", RootType: "Expense"})
	if err != nil {
		t.Fatal(err)
	}
	glRefused(t, h, pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4,
		"deductions": []any{map[string]any{"account": fee, "cost_center": erpnextsim.CostCenter, "amount": 23.6}}}),
		"Account Fees - OC does not belong to Company Example Company")
}

func TestS2DeductionAccountNotInCompanyCurrency(t *testing.T) {
	h := seeded(t)
	fee, err := h.site.AddAccount(erpnextsim.AccountSpec{AccountName: "Fees USD", Parent: "Indirect Expenses - EC", Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	body := pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4,
		"deductions": []any{map[string]any{"account": fee, "cost_center": erpnextsim.CostCenter, "amount": 23.6}}})
	r := h.do("POST", pePath, body)
	if r.status != 200 {
		t.Fatalf("draft refused: %s", r.raw)
	}
	name := field(r.data(), "name")
	// raised while the GL map is built (payment_entry.py add_deductions_gl_entries): no voucher prefix
	h.do("PUT", pePath+"/"+name, map[string]any{"docstatus": 1}).expectError(t, 417, "ValidationError", "Currency for Fees USD - EC must be INR")
	body["docstatus"] = 1
	h.do("POST", pePath, body).expectError(t, 417, "ValidationError", "Currency for Fees USD - EC must be INR")
}

// TestS2Order: S1 before S2; the fiscal year before the deduction currency; the deduction
// currency before the per-line group check (ERPNext builds the whole GL map first).
func TestS2Order(t *testing.T) {
	h := seeded(t)
	fee, err := h.site.AddAccount(erpnextsim.AccountSpec{AccountName: "Fees USD", Parent: "Indirect Expenses - EC", Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	ded := []any{map[string]any{"account": fee, "cost_center": erpnextsim.CostCenter, "amount": 23.6}}
	h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "paid_to": "Bank Accounts - EC", "paid_amount": 900, "received_amount": 900, "deductions": ded})).
		expectError(t, 417, "ValidationError", "Difference Amount must be zero")
	h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "posting_date": "2026-03-15", "paid_amount": 976.4, "received_amount": 976.4, "deductions": ded})).
		expectError(t, 417, "FiscalYearError", "Date 15-03-2026 is not in any active Fiscal Year for <strong>Example Company</strong>")
	h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "paid_to": "Bank Accounts - EC", "paid_amount": 976.4, "received_amount": 976.4, "deductions": ded})).
		expectError(t, 417, "ValidationError", "Currency for Fees USD - EC must be INR")
}

// TestBalanceRoundsEachEntryHalfAway is get_balance_on (recordings 55-*, 57-*): balances sum
// each GL entry's account-currency amount rounded by MariaDB's ROUND (half away from zero),
// so a 10.125 receipt (10.12 in the ledger's company-currency columns) moves them by 10.13.
func TestBalanceRoundsEachEntryHalfAway(t *testing.T) {
	h := seeded(t)
	if r := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "paid_amount": 10.125, "received_amount": 10.125, "references": refs("ACC-SINV-2026-00001", 10.125)})); r.status != 200 {
		t.Fatal(r.raw)
	}
	if got := field(h.invoice("ACC-SINV-2026-00001"), "outstanding_amount"); got != "989.88" {
		t.Fatalf("outstanding %s", got)
	}
	d := h.do("POST", gpePath, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00002", "bank_account": erpnextsim.RazorpayClearing}).data()
	if field(d, "party_balance") != "13989.87" || field(d, "paid_from_account_balance") != "14989.87" || field(d, "paid_to_account_balance") != "10.13" {
		t.Fatalf("balances %v %v %v", d["party_balance"], d["paid_from_account_balance"], d["paid_to_account_balance"])
	}
}
