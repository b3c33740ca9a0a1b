package erpnextsim

import "fmt"

// Names of the settlement set-up (recordings 60-create-*, README "Accounts to create") that
// SetUpSettlements makes on the default company.
const (
	PayoutBank         = "HDFC Bank"                 // Bank master, named by bank_name (60-create-bank)
	PayoutAccount      = "HDFC Bank - EC"            // Bank; the GL account settlements are paid into (60-create-bank-gl-account)
	PayoutBankAccount  = "HDFC Current - HDFC Bank"  // Bank Account document of PayoutAccount, is_company_account 1 (60-create-bank-account-doc)
	AdjustmentsAccount = "Razorpay Adjustments - EC" // Expense, under Indirect Expenses (60-create-adjustments-account)
)

// SettlementSetup names what a settlement needs on the default site: the answer of
// SetUpSettlements and of POST /__sim/setup/settlements, with the keys of config `settlements`
// and `mapping.fees` they belong in. ClearingAccountType is the clearing account's type now.
type SettlementSetup struct {
	Bank                string   `json:"bank"`
	BankAccount         string   `json:"bank_account"`     // settlements.bank_account (the GL account)
	BankAccountDoc      string   `json:"bank_account_doc"` // settlements.bank_account_doc
	AdjustmentsAccount  string   `json:"adjustments_account"`
	FeeAccount          string   `json:"fee_account"` // settlements.fee_account (or mapping.fees.fee_account)
	TaxAccount          string   `json:"tax_account"` // settlements.tax_account (or mapping.fees.tax_account)
	ClearingAccount     string   `json:"clearing_account"`
	ClearingAccountType string   `json:"clearing_account_type"`
	Created             []string `json:"created"` // "Doctype name" of each document made by this call
}

// SetUpSettlements creates, as a System Manager sets a site up (the recorded 60-* requests,
// through the same validation as POST /api/resource), what the README's "Accounts to create"
// lists beyond the default chart: the Bank PayoutBank, the Bank-type GL account PayoutAccount,
// its company Bank Account PayoutBankAccount and the Expense account AdjustmentsAccount. The
// fee and GST accounts (FeeAccount, GSTInputAccount) and the clearing account are in the
// default chart already. What exists is left as it is, so a second call creates nothing. The
// simulated API user, like the connector's real one (Accounts User + Sales User), may not create
// a Bank (403), which is why this is a control call. The error is the first refusal.
func (s *Site) SetUpSettlements() (SettlementSetup, error) {
	out := SettlementSetup{Bank: PayoutBank, BankAccount: PayoutAccount, BankAccountDoc: PayoutBankAccount,
		AdjustmentsAccount: AdjustmentsAccount, FeeAccount: FeeAccount, TaxAccount: GSTInputAccount, ClearingAccount: RazorpayClearing,
		Created: []string{}}
	for _, d := range []struct {
		dt, name string
		doc      map[string]any
	}{
		{"Account", PayoutAccount, map[string]any{"account_name": "HDFC Bank", "parent_account": "Bank Accounts - EC",
			"company": DefaultCompany, "account_type": "Bank", "is_group": 0, "account_currency": DefaultCurrency}},
		{bankDT, PayoutBank, map[string]any{"bank_name": PayoutBank}},
		{baDT, PayoutBankAccount, map[string]any{"account_name": "HDFC Current", "bank": PayoutBank, "account": PayoutAccount,
			"company": DefaultCompany, "is_company_account": 1}},
		{"Account", AdjustmentsAccount, map[string]any{"account_name": "Razorpay Adjustments", "parent_account": "Indirect Expenses - EC",
			"company": DefaultCompany, "is_group": 0}},
	} {
		if _, ok := s.Doc(d.dt, d.name); ok {
			continue
		}
		if _, err := s.Insert(d.dt, d.doc); err != nil {
			return out, fmt.Errorf("erpnextsim: set up settlements: %s %s: %w", d.dt, d.name, err)
		}
		out.Created = append(out.Created, d.dt+" "+d.name)
	}
	if a, ok := s.Doc("Account", RazorpayClearing); ok {
		out.ClearingAccountType, _ = a["account_type"].(string)
	}
	return out, nil
}
