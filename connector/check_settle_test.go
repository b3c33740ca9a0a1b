package connector_test

import (
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
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
	lines := check(t, r.rig, r.cfg, nil)
	wantCheck(t, lines, "settlements.bank_account", connector.CheckOK, `Account "HDFC Bank - EC": Bank, INR`)
	wantCheck(t, lines, "settlements.adjustments_account", connector.CheckOK, `Account "Razorpay Adjustments - EC": Expense`)
	wantCheck(t, lines, "settlements.bank_account_doc", connector.CheckOK, `Bank Account "HDFC Current - HDFC Bank" → HDFC Bank - EC`)
	wantCheck(t, lines, "settlements (clearing account)", connector.CheckWarn, `the clearing account "Razorpay Clearing - EC" is of type Bank`)
	if _, ok := lines["settlements.fee_account"]; ok {
		t.Errorf("fees deducted per payment: the settlement fee accounts are the mapping's, checked once: %+v", lines["settlements.fee_account"])
	}

	cash := r.cfg
	cash.Mapping.PaidTo = cashClearing
	lines = check(t, r.rig, cash, nil)
	wantCheck(t, lines, "settlements (clearing account)", connector.CheckOK, `"Razorpay Cash Clearing - EC" is of type "Cash": matched settlement entries are cleared`)

	bad := r.cfg
	bad.Mapping.Fees.Mode = "none"
	bad.Settlements.BankAccount = erpnextsim.FeeAccount       // an Expense account
	bad.Settlements.AdjustmentsAccount = "Bank Accounts - EC" // a group
	bad.Settlements.FeeAccount, bad.Settlements.TaxAccount = erpnextsim.GSTInputAccount, erpnextsim.FeeAccount
	bad.Settlements.BankAccountDoc = "No Such Account - HDFC Bank"
	lines = check(t, r.rig, bad, nil)
	wantCheck(t, lines, "settlements.bank_account", connector.CheckFail, `has account type "", expected Bank`)
	wantCheck(t, lines, "settlements.adjustments_account", connector.CheckFail, "is a group account")
	wantCheck(t, lines, "settlements.fee_account", connector.CheckFail, `is under "Asset", expected an Expense account`)
	wantCheck(t, lines, "settlements.tax_account", connector.CheckFail, `expected Tax`)
	wantCheck(t, lines, "settlements.bank_account_doc", connector.CheckFail, `Bank Account "No Such Account - HDFC Bank" does not exist`)

	other := r.cfg
	other.Settlements.BankAccount = "Bank Account - EC" // the setup wizard's, not the Bank Account document's
	lines = check(t, r.rig, other, nil)
	wantCheck(t, lines, "settlements.bank_account_doc", connector.CheckFail, `is linked to the GL account "HDFC Bank - EC", not settlements.bank_account "Bank Account - EC"`)

	off := r.cfg
	off.Settlements.Enabled = false
	lines = check(t, r.rig, off, nil)
	wantCheck(t, lines, "settlements", connector.CheckOK, "off")
	wantCheck(t, lines, "settlements (clearing account)", connector.CheckWarn,
		`the clearing account "Razorpay Clearing - EC" is of type Bank: once settlements are on, their Journal Entries would never be cleared`)
	if fix := lines["settlements (clearing account)"].Fix; !strings.Contains(fix, "Account Type to Cash") {
		t.Errorf("fix %q does not say to make it Cash", fix)
	}
	noDoc := r.cfg
	noDoc.Settlements.BankAccountDoc = "" // matched by hand in ERPNext: still never cleared
	lines = check(t, r.rig, noDoc, nil)
	wantCheck(t, lines, "settlements (clearing account)", connector.CheckWarn, `"Razorpay Clearing - EC" is of type Bank: ERPNext never sets the clearance date`)

	// The simulator's default site, set up as the README says: Cash, no warning.
	if err := r.site.SetAccountType(erpnextsim.RazorpayClearing, "Cash"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []connector.Config{r.cfg, off} {
		lines = check(t, r.rig, c, nil)
		wantCheck(t, lines, "settlements (clearing account)", connector.CheckOK, `"Razorpay Clearing - EC" is of type "Cash": matched settlement entries are cleared`)
	}
	missing := off
	missing.Mapping.PaidTo = "No Such Clearing - EC"
	lines = check(t, r.rig, missing, nil)
	wantCheck(t, lines, "mapping.paid_to", connector.CheckFail, `Account "No Such Clearing - EC" does not exist`)
	if l, ok := lines["settlements (clearing account)"]; ok {
		t.Errorf("a missing clearing account is reported once, by mapping.paid_to: %+v", l)
	}
}
