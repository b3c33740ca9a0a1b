package check_test

import (
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/check"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// check warns when the clearing account is of type Bank (the settlement's Journal Entry would
// never be cleared, erpnext-recorded-settlement/70-*), with settlements on or off, and checks
// the settlement accounts and the Bank Account document like the other accounts.
func TestCheckSettlements(t *testing.T) {
	r := newSetlRig(t)
	if err := r.site.SetAccountType(erpnextsim.RazorpayClearing, "Bank"); err != nil { // the recorded site's
		t.Fatal(err)
	}
	lines := runCheck(t, r.rig, r.cfg, nil)
	wantCheck(t, lines, "settlements.bank_account", check.OK, `Account "HDFC Bank - EC": Bank, INR`)
	wantCheck(t, lines, "settlements.adjustments_account", check.OK, `Account "Razorpay Adjustments - EC": Expense`)
	wantCheck(t, lines, "settlements.bank_account_doc", check.OK, `Bank Account "HDFC Current - HDFC Bank" → HDFC Bank - EC`)
	wantCheck(t, lines, "settlements (clearing account)", check.Warn, `the clearing account "Razorpay Clearing - EC" is of type Bank`)
	if _, ok := lines["settlements.fee_account"]; ok {
		t.Errorf("fees deducted per payment: the settlement fee accounts are the mapping's, checked once: %+v", lines["settlements.fee_account"])
	}

	cash := r.cfg
	cash.Mapping.PaidTo = cashClearing
	lines = runCheck(t, r.rig, cash, nil)
	wantCheck(t, lines, "settlements (clearing account)", check.OK, `"Razorpay Cash Clearing - EC" is of type "Cash": matched settlement entries are cleared`)

	bad := r.cfg
	bad.Mapping.Fees.Mode = "none"
	bad.Settlements.BankAccount = erpnextsim.FeeAccount       // an Expense account
	bad.Settlements.AdjustmentsAccount = "Bank Accounts - EC" // a group
	bad.Settlements.FeeAccount, bad.Settlements.TaxAccount = erpnextsim.GSTInputAccount, erpnextsim.FeeAccount
	bad.Settlements.BankAccountDoc = "No Such Account - HDFC Bank"
	lines = runCheck(t, r.rig, bad, nil)
	wantCheck(t, lines, "settlements.bank_account", check.Fail, `has account type "", expected Bank`)
	wantCheck(t, lines, "settlements.adjustments_account", check.Fail, "is a group account")
	wantCheck(t, lines, "settlements.fee_account", check.Fail, `is under "Asset", expected an Expense account`)
	wantCheck(t, lines, "settlements.tax_account", check.Fail, `expected Tax`)
	wantCheck(t, lines, "settlements.bank_account_doc", check.Fail, `Bank Account "No Such Account - HDFC Bank" does not exist`)

	other := r.cfg
	other.Settlements.BankAccount = "Bank Account - EC" // the setup wizard's, not the Bank Account document's
	lines = runCheck(t, r.rig, other, nil)
	wantCheck(t, lines, "settlements.bank_account_doc", check.Fail, `is linked to the GL account "HDFC Bank - EC", not settlements.bank_account "Bank Account - EC"`)

	off := r.cfg
	off.Settlements.Enabled = false
	lines = runCheck(t, r.rig, off, nil)
	wantCheck(t, lines, "settlements", check.OK, "off")
	wantCheck(t, lines, "settlements (clearing account)", check.Warn,
		`the clearing account "Razorpay Clearing - EC" is of type Bank: once settlements are on, their Journal Entries would never be cleared`)
	if fix := lines["settlements (clearing account)"].Fix; !strings.Contains(fix, "Account Type to Cash") {
		t.Errorf("fix %q does not say to make it Cash", fix)
	}
	noDoc := r.cfg
	noDoc.Settlements.BankAccountDoc = "" // matched by hand in ERPNext: still never cleared
	lines = runCheck(t, r.rig, noDoc, nil)
	wantCheck(t, lines, "settlements (clearing account)", check.Warn, `"Razorpay Clearing - EC" is of type Bank: ERPNext never sets the clearance date`)

	// The simulator's default site, set up as the README says: Cash, no warning.
	if err := r.site.SetAccountType(erpnextsim.RazorpayClearing, "Cash"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []connector.Config{r.cfg, off} {
		lines = runCheck(t, r.rig, c, nil)
		wantCheck(t, lines, "settlements (clearing account)", check.OK, `"Razorpay Clearing - EC" is of type "Cash": matched settlement entries are cleared`)
	}
	missing := off
	missing.Mapping.PaidTo = "No Such Clearing - EC"
	lines = runCheck(t, r.rig, missing, nil)
	wantCheck(t, lines, "mapping.paid_to", check.Fail, `Account "No Such Clearing - EC" does not exist`)
	if l, ok := lines["settlements (clearing account)"]; ok {
		t.Errorf("a missing clearing account is reported once, by mapping.paid_to: %+v", l)
	}
}
