// Package sitetest is what the core's tests share of a simulated ERPNext site: the credentials
// and Razorpay account they run with, a valid configuration, and the settlement set-up of the
// recorded site (erpnext-recorded-settlement/60-*). It is imported only by tests.
package sitetest

import (
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// T0 is when the tests' clocks start: a day after the sample payloads' payments (1768453200 =
// 2026-01-15 05:00 UTC), inside the simulated site's fiscal year 2025-2026.
var T0 = time.Unix(1768453200, 0).Add(24 * time.Hour).UTC()

// The credentials of the simulated site and Razorpay account, and the two webhook secrets of
// Config (a rotation: the new one first).
const (
	ERPKey    = "erp-key"
	ERPSecret = "erp-secret-DO-NOT-LOG"
	RzpKey    = "rzp_test_T3stKey00000001"
	RzpSecret = "rzp-secret-DO-NOT-LOG"
	Account   = "acc_T3stAcc0unt001"
	SecretNew = "whsec-new-rotation"
	SecretOld = "whsec-old-rotation"
)

// Config is a valid configuration with two webhook secrets and an unreachable ERPNext.
func Config() connector.Config {
	cfg := config.Defaults()
	cfg.Razorpay.WebhookSecrets = []string{SecretNew, SecretOld}
	cfg.Razorpay.AccountID = Account
	cfg.ERPNext.URL = "http://127.0.0.1:1"
	cfg.ERPNext.APIKey, cfg.ERPNext.APISecret = "k", "s"
	cfg.Mapping.Company = "Example Company"
	return cfg
}

// The settlement accounts Settlements adds: the bank's GL account (type Bank), its Bank
// Account document, an Expense account for adjustments and a Cash-type clearing account.
const (
	HDFCGL       = "HDFC Bank - EC"
	HDFCDoc      = "HDFC Current - HDFC Bank"
	Adjustments  = "Razorpay Adjustments - EC"
	CashClearing = "Razorpay Cash Clearing - EC"
)

// SettleConfig turns settlements on with fees deducted per payment and refunds without a
// credit note booked as unallocated Pay entries, on the accounts Settlements adds.
func SettleConfig(c *connector.Config) {
	c.Mapping.Fees.Mode, c.Mapping.Fees.FeeAccount, c.Mapping.Fees.TaxAccount, c.Mapping.Fees.CostCenter =
		"deduction", erpnextsim.FeeAccount, erpnextsim.GSTInputAccount, erpnextsim.CostCenter
	c.Mapping.Refunds.WithoutCreditNote = "unallocated"
	c.Settlements.Enabled = true
	c.Settlements.BankAccount, c.Settlements.BankAccountDoc, c.Settlements.AdjustmentsAccount = HDFCGL, HDFCDoc, Adjustments
}

// Settlements adds the settlement accounts, the Bank "HDFC Bank" and the Bank Account document
// HDFCDoc of the default company to site.
func Settlements(site *erpnextsim.Site) error {
	for _, a := range []erpnextsim.AccountSpec{
		{AccountName: "HDFC Bank", Parent: "Bank Accounts - EC", AccountType: "Bank"},
		{AccountName: "Razorpay Adjustments", Parent: "Indirect Expenses - EC", RootType: "Expense"},
		{AccountName: "Razorpay Cash Clearing", Parent: "Cash In Hand - EC", AccountType: "Cash"},
	} {
		if _, err := site.AddAccount(a); err != nil {
			return fmt.Errorf("account %s: %w", a.AccountName, err)
		}
	}
	if _, err := site.Insert(frappe.DoctypeBank, map[string]any{"bank_name": "HDFC Bank"}); err != nil {
		return err
	}
	_, err := site.Insert(frappe.DoctypeBankAccount, map[string]any{"account_name": "HDFC Current", "bank": "HDFC Bank",
		"account": HDFCGL, "company": erpnextsim.DefaultCompany, "is_company_account": 1})
	return err
}
