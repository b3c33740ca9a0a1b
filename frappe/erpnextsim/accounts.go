package erpnextsim

import (
	"errors"
	"fmt"
)

// CompanySpec describes a further Company for AddCompany, e.g. to test an
// account of another company (§3.2 S2).
type CompanySpec struct {
	Name     string // company name, e.g. "Other Company"
	Abbr     string // abbreviation, the suffix of its account names, e.g. "OC"
	Currency string // default_currency; default INR
}

// AddCompany creates a Company with no chart, no defaults and no cost center:
// only enough for AddAccount to attach accounts to it. The default company's
// fiscal years apply to it too.
func (s *Site) AddCompany(spec CompanySpec) error {
	if spec.Name == "" || spec.Abbr == "" {
		return errors.New("erpnextsim: AddCompany needs Name and Abbr")
	}
	if spec.Currency == "" {
		spec.Currency = DefaultCurrency
	}
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if s.db.get("Company", spec.Name) != nil {
		return fmt.Errorf("erpnextsim: company %q already exists", spec.Name)
	}
	r := newRecord("Company")
	for k, v := range map[string]any{"company_name": spec.Name, "abbr": spec.Abbr, "default_currency": spec.Currency,
		"book_advance_payments_in_separate_party_account": int64(0), "reconcile_on_advance_payment_date": int64(0)} {
		r.f[k] = v
	}
	s.db.stampNew(r, spec.Name, admin)
	s.db.put(r)
	return nil
}

// AccountSpec describes an Account for AddAccount (spec §7: account_type,
// account_currency, is_group).
type AccountSpec struct {
	AccountName string // e.g. "Petty Cash"; the account is named "AccountName - Abbr"
	Company     string // default DefaultCompany; must exist
	Parent      string // parent_account (a group of the same company); optional
	IsGroup     bool   // a group account: refused by the ledger on submit (§3.2 S2)
	AccountType string // e.g. "Bank", "Cash", "Receivable"; optional
	Currency    string // account_currency; default the company's currency
	RootType    string // "Asset", "Liability", "Equity", "Income", "Expense"; default the parent's, else "Asset"
}

// AddAccount creates an Account and returns its name ("AccountName - Abbr").
func (s *Site) AddAccount(spec AccountSpec) (string, error) {
	if spec.AccountName == "" {
		return "", errors.New("erpnextsim: AddAccount needs AccountName")
	}
	if spec.Company == "" {
		spec.Company = DefaultCompany
	}
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	co := s.db.get("Company", spec.Company)
	if co == nil {
		return "", fmt.Errorf("erpnextsim: no company %q", spec.Company)
	}
	name := spec.AccountName + " - " + co.str("abbr")
	if s.db.get("Account", name) != nil {
		return "", fmt.Errorf("erpnextsim: account %q already exists", name)
	}
	if spec.Currency == "" {
		spec.Currency = co.str("default_currency")
	}
	f := map[string]any{"account_name": spec.AccountName, "company": co.name(), "is_group": int64(b2i(spec.IsGroup)),
		"account_currency": spec.Currency, "freeze_account": "No", "disabled": int64(0), "include_in_gross": int64(0)}
	root := spec.RootType
	if spec.Parent != "" {
		p := s.db.get("Account", spec.Parent)
		if p == nil || p.int("is_group") != 1 {
			return "", fmt.Errorf("erpnextsim: parent account %q is not a group account", spec.Parent)
		}
		f["parent_account"] = p.name()
		if root == "" {
			root = p.str("root_type")
		}
	}
	if root == "" {
		root = "Asset"
	}
	f["root_type"] = root
	f["report_type"] = "Balance Sheet"
	if root == "Income" || root == "Expense" {
		f["report_type"] = "Profit and Loss"
	}
	if spec.AccountType != "" {
		f["account_type"] = spec.AccountType
	}
	var maxRgt int64
	for _, a := range s.db.all("Account") {
		maxRgt = max(maxRgt, a.int("rgt"))
	}
	f["lft"], f["rgt"] = maxRgt+1, maxRgt+2
	r := newRecord("Account")
	for k, v := range f {
		r.f[k] = v
	}
	s.db.stampNew(r, name, admin)
	s.db.put(r)
	return name, nil
}
