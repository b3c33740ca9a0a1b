package erpnextsim

import (
	"fmt"
	"slices"
	"strings"
)

// PUT /api/resource/Account/{name}: the one change of an account a site makes for the
// connector, its Account Type (README "Accounts to create": the clearing account of type Cash,
// not Bank). Real ERPNext saves any field of an Account this way; the simulator models only
// account_type and answers 501 NotImplementedError for a change of any other field, so a test
// cannot pass against an update that is not modelled. Account Type is a Select field: a value
// outside its options is Frappe's select validation, 417 ValidationError
// `Account Type cannot be "X". It should be one of "", "Accumulated Depreciation", …` (the
// framework's wording, not recorded). The same roles as for creating an Account may write it;
// `modified` in the body is checked like every update (TimestampMismatchError). A change of type
// takes effect for what is validated afterwards: V9 (Bank needs a reference no and date) and
// the clearance rule of reconcile_vouchers (only Bank-type GL rows must be allocated) read the
// account as it is then, as ERPNext does.

func init() {
	updateHooks["Account"] = func(s *Site) updateHook { return s.accounts.updateAccount }
}

// accountTypes are the options of Account.account_type in ERPNext v15 (account.json), "" first.
var accountTypes = []string{"", "Accumulated Depreciation", "Asset Received But Not Billed", "Bank", "Cash", "Chargeable",
	"Capital Work in Progress", "Cost of Goods Sold", "Current Asset", "Current Liability", "Depreciation", "Direct Expense",
	"Direct Income", "Equity", "Expense Account", "Expenses Included In Asset Valuation", "Expenses Included In Valuation",
	"Fixed Asset", "Income Account", "Indirect Expense", "Indirect Income", "Liability", "Payable", "Receivable", "Round Off",
	"Round Off for Opening", "Service Received But Not Billed", "Stock", "Stock Adjustment", "Stock Received But Not Billed",
	"Tax", "Temporary"}

// accountFrameworkKeys may come in a PUT body without changing anything of the account.
var accountFrameworkKeys = map[string]bool{"name": true, "doctype": true, "modified": true, "docstatus": true}

func (ac *accounts) updateAccount(c *call, cur *record, body map[string]any, _ bool) (*fErr, step) {
	if !ac.users.hasRole(c.user, RoleAccountsUser, RoleAccountsManager, RoleSystemManager) {
		return permissionDenied(c.userName(), "Account", "write"), nil
	}
	next := fromBody("Account", body, cur)
	for k := range body {
		if k == "account_type" || accountFrameworkKeys[k] {
			continue
		}
		if fmt.Sprint(next.f[k]) != fmt.Sprint(cur.f[k]) {
			return notModelled("updating Account field " + k + " (only account_type is modelled)"), nil
		}
	}
	typ := strings.TrimSpace(next.str("account_type"))
	if !slices.Contains(accountTypes, typ) {
		return throw(fmt.Sprintf(`Account Type cannot be "%s". It should be one of "%s"`, typ, strings.Join(accountTypes, `", "`))), nil
	}
	return nil, func() any {
		next.f["account_type"] = typ
		next.f["docstatus"] = cur.f["docstatus"]
		ac.db.touch(next, c.user)
		ac.db.put(next)
		return next.render(c.keepNulls())
	}
}

// SetAccountType changes the account_type of an account as PUT /api/resource/Account does
// (accounts_update.go), without HTTP: e.g. SetAccountType(RazorpayClearing, "Bank") makes the
// default site's clearing account the recorded site's. It returns an error for an unknown
// account or a type that is not one of ERPNext's options.
func (s *Site) SetAccountType(account, accountType string) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	a := s.db.get("Account", account)
	if a == nil {
		return fmt.Errorf("erpnextsim: no Account %q", account)
	}
	if !slices.Contains(accountTypes, accountType) {
		return fmt.Errorf("erpnextsim: %q is not an ERPNext account type", accountType)
	}
	next := a.clone()
	next.f["account_type"] = accountType
	s.db.touch(next, admin)
	s.db.put(next)
	return nil
}
