package connector_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// check warns when the clearing account is of type Bank with statement matching on (the
// settlement's Journal Entry would never be cleared, erpnext-recorded-settlement/70-*), and
// checks the settlement accounts and the Bank Account document like the other accounts.
func TestCheckSettlements(t *testing.T) {
	r := newSetlRig(t)
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
}
