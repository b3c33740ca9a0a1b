package check

import (
	"context"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// The checks of `check` for config settlements (DESIGN.md §5): the new accounts like the
// existing ones, the Bank Account document, and the clearing account's type. A Journal Entry
// is cleared by a bank reconciliation only when no other row of it is on a Bank-type account
// (erpnext-recorded-settlement/70-je-get-after-reconcile, 72-je-get-after-reconcile-non-bank-
// clearing), so a clearing account of type Bank is a warning, with settlements on or off (the
// receipts booked into it today are what a settlement entry later moves out of it), as the
// README and config.example.yaml say: make it of type Cash. Cash is the one type that suits
// both halves: `check` wants a receipt's paid_to of type Bank or Cash (ERPNext's own Payment
// Entry and Mode of Payment forms offer only those), and only a non-Bank one lets the
// settlement entry clear.

func (k *checker) settlements(ctx context.Context, clearing string) {
	s := k.cfg.Settlements
	if !s.Enabled {
		k.add("settlements", OK, "off (settlements.enabled: false): settlements are not posted", "")
		return
	}
	rules := []accountRule{
		{key: "settlements.bank_account", name: s.BankAccount, types: []string{"Bank"}},
		{key: "settlements.adjustments_account", name: s.AdjustmentsAccount},
	}
	if f := k.cfg.Mapping.Fees; f.Mode != "deduction" || s.FeeAccount != "" || s.TaxAccount != "" {
		fee, tax := s.Fees(k.cfg.Mapping)
		rules = append(rules, accountRule{key: "settlements.fee_account", name: fee, root: "Expense"},
			accountRule{key: "settlements.tax_account", name: tax, types: []string{"Tax"}})
	}
	if s.TransfersAccount != "" {
		rules = append(rules, accountRule{key: "settlements.transfers_account", name: s.TransfersAccount})
	}
	for _, r := range rules {
		k.account(ctx, r)
	}
	if clearing != "" && clearing == s.BankAccount {
		k.add("settlements.bank_account", Fail, fmt.Sprintf("%q is also the clearing account the receipts are booked into", clearing),
			"set settlements.bank_account to the bank's own GL account; the clearing account is mapping.paid_to (or the Mode of Payment's account)")
	}
	k.bankAccountDoc(ctx)
}

// bankAccountDoc checks settlements.bank_account_doc: an ERPNext Bank Account of the company
// whose GL account is settlements.bank_account.
func (k *checker) bankAccountDoc(ctx context.Context) {
	s := k.cfg.Settlements
	const key = "settlements.bank_account_doc"
	if s.BankAccountDoc == "" {
		k.add(key, Warn, "not set: settlement entries are posted but never matched with the bank statement",
			"set it to the Bank Account document of settlements.bank_account (Accounting → Bank Account, e.g. \"HDFC Current - HDFC Bank\")")
		return
	}
	var ba frappe.BankAccount
	err := k.erp.Get(ctx, frappe.DoctypeBankAccount, s.BankAccountDoc, &ba)
	switch {
	case frappe.IsNotFound(err):
		k.add(key, Fail, fmt.Sprintf("Bank Account %q does not exist", s.BankAccountDoc),
			"use the exact name of the Bank Account document, \"{account name} - {bank}\"")
	case err != nil:
		k.unreadable(key, "Bank Account "+s.BankAccountDoc, err, "give the API user the Accounts User role")
	case ba.Account != s.BankAccount:
		k.add(key, Fail, fmt.Sprintf("Bank Account %q is linked to the GL account %q, not settlements.bank_account %q", s.BankAccountDoc, ba.Account, s.BankAccount),
			"set the Bank Account's Company Account to settlements.bank_account, or pick the Bank Account of that GL account")
	case ba.Company != "" && ba.Company != k.cfg.Mapping.Company:
		k.add(key, Fail, fmt.Sprintf("Bank Account %q belongs to %q", s.BankAccountDoc, ba.Company), "pick the Bank Account of "+k.cfg.Mapping.Company)
	default:
		k.add(key, OK, fmt.Sprintf("Bank Account %q → %s; imported Bank Transactions carrying a settlement's UTR are reconciled with its entry", s.BankAccountDoc, ba.Account), "")
	}
}

// clearingType warns when the clearing account (the receipts' paid_to) is of type Bank: with
// settlements on, their Journal Entries are never cleared; with them off, they would not be once
// turned on. A clearing account that does not exist was reported by the paid_to check already.
func (k *checker) clearingType(ctx context.Context, clearing string) {
	const key = "settlements (clearing account)"
	if clearing == "" {
		return
	}
	var a frappe.Account
	err := k.erp.Get(ctx, frappe.DoctypeAccount, clearing, &a)
	switch {
	case frappe.IsNotFound(err):
		return
	case err != nil:
		k.unreadable(key, "Account "+clearing, err, "give the API user the Accounts User role")
		return
	}
	const fix = "change the clearing account's Account Type to Cash in the Chart of Accounts (README \"Accounts to create\"); receipts book the same and the Mode of Payment may keep it"
	switch {
	case a.AccountType == "Bank" && k.cfg.Settlements.Enabled:
		k.add(key, Warn, fmt.Sprintf("the clearing account %q is of type Bank: ERPNext never sets the clearance date of a settlement's Journal Entry while another of its rows is on a Bank-type account, so settlements stay uncleared in the Bank Reconciliation Statement even when matched with their bank line", clearing), fix)
	case a.AccountType == "Bank":
		k.add(key, Warn, fmt.Sprintf("the clearing account %q is of type Bank: once settlements are on, their Journal Entries would never be cleared in the bank reconciliation (another of their rows is on a Bank-type account)", clearing), fix)
	default:
		k.add(key, OK, fmt.Sprintf("the clearing account %q is of type %q: matched settlement entries are cleared", clearing, a.AccountType), "")
	}
}
