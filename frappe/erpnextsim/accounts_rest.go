package erpnextsim

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Account and Company over REST (recordings 60-create-*), as a System Manager sets a site up.
//
// POST /api/resource/Account follows erpnext v15 account.py (read, not copied): the name is
// "{account_name} - {abbr}" ("{account_number} - {account_name} - {abbr}" with a number); the
// parent must exist ("Account {name}: Parent account {parent} does not exist"), be a group
// ("… can not be a ledger") of the same company ("… does not belong to company: {company}");
// root_type and report_type come from the parent; account_currency defaults to the company's;
// account_type is "" when not sent (60-create-adjustments-account); a taken name is 409
// DuplicateEntryError. Account JSON grants create to the Accounts User and Accounts Manager; the
// recorded System Manager (who also held the accounts roles) created them.
//
// POST /api/resource/Company (60-create-other-company, 3.4 s on the real site) builds the
// standard chart for the new abbreviation (the default company's chart), cost centers
// "{company}" (group) and "Main - {abbr}", and the defaults the recording shows (cash,
// receivable, payable, income, write-off, round-off, exchange gain/loss accounts; no default
// bank account). Only a System Manager may create a company.

func init() {
	insertHooks["Account"] = func(s *Site) insertHook { return s.accounts.insertAccount }
	insertHooks["Company"] = func(s *Site) insertHook { return s.accounts.insertCompany }
}

// hasRole reports whether user (Administrator always) holds one of roles.
func (us *users) hasRole(user string, roles ...string) bool {
	if user == admin {
		return true
	}
	for _, r := range us.roles(user) {
		if slices.Contains(roles, r) {
			return true
		}
	}
	return false
}

func (ac *accounts) insertAccount(c *call, body map[string]any) (*fErr, step) {
	if !ac.users.hasRole(c.user, RoleAccountsUser, RoleAccountsManager, RoleSystemManager) {
		return permissionDenied(c.userName(), "Account", "create"), nil
	}
	a := fromBody("Account", body, nil)
	setDefault(a, "company", ac.company)
	if e := ac.links.validateLinks(a, false); e != nil {
		return e, nil
	}
	co := ac.db.get("Company", a.str("company"))
	name := a.str("account_name") + " - " + co.str("abbr")
	if n := a.str("account_number"); n != "" {
		name = n + " - " + name
	}
	if e := ac.accountParent(a, name, co); e != nil {
		return e, nil
	}
	setDefault(a, "account_currency", co.str("default_currency"))
	for k, v := range map[string]any{"is_group": int64(0), "disabled": int64(0), "include_in_gross": int64(0),
		"tax_rate": dec(0), "freeze_account": "No", "balance_must_be": "", "account_type": ""} {
		setDefault(a, k, v)
	}
	a.f["old_parent"] = a.str("parent_account")
	if e := validateMandatory(a, name, nil); e != nil {
		return e, nil
	}
	if ac.db.get("Account", name) != nil {
		return duplicateName("Account", name), nil
	}
	return nil, func() any {
		var rgt int64
		for _, x := range ac.db.docs["Account"] {
			rgt = max(rgt, x.int("rgt"))
		}
		a.f["lft"], a.f["rgt"] = rgt+1, rgt+2
		ac.db.stampNew(a, name, c.user)
		ac.db.put(a)
		return a.render(c.keepNulls())
	}
}

// accountParent is account.py validate_parent and the root details taken from the parent.
func (ac *accounts) accountParent(a *record, name string, co *record) *fErr {
	parentName := a.str("parent_account")
	if parentName == "" {
		return nil // framework mandatory check reports it
	}
	p := ac.db.get("Account", parentName)
	switch {
	case p == nil:
		return erpThrow(fmt.Sprintf("Account %s: Parent account %s does not exist", name, parentName))
	case strings.EqualFold(p.name(), name):
		return erpThrow(fmt.Sprintf("Account %s: You can not assign itself as parent account", name))
	case p.int("is_group") != 1:
		return erpThrow(fmt.Sprintf("Account %s: Parent account %s can not be a ledger", name, p.name()))
	case !strings.EqualFold(p.str("company"), co.name()):
		return erpThrow(fmt.Sprintf("Account %s: Parent account %s does not belong to company: %s", name, p.name(), co.name()))
	}
	a.f["parent_account"] = p.name()
	a.f["root_type"], a.f["report_type"] = p.str("root_type"), p.str("report_type")
	return nil
}

func (ac *accounts) insertCompany(c *call, body map[string]any) (*fErr, step) {
	if !ac.users.hasRole(c.user, RoleSystemManager) {
		return permissionDenied(c.userName(), "Company", "create"), nil
	}
	co := fromBody("Company", body, nil)
	if e := ac.links.validateLinks(co, false); e != nil {
		return e, nil
	}
	name := co.str("company_name")
	if e := validateMandatory(co, name, nil); e != nil {
		return e, nil
	}
	for _, other := range ac.db.all("Company") {
		if strings.EqualFold(other.str("abbr"), co.str("abbr")) {
			return erpThrow("Abbreviation already used for another company"), nil
		}
	}
	if ac.db.get("Company", name) != nil {
		return duplicateName("Company", name), nil
	}
	return nil, func() any {
		abbr := co.str("abbr")
		add := func(dt, docName string, fields map[string]any) *record {
			r := newRecord(dt)
			for k, v := range fields {
				r.f[k] = v
			}
			ac.db.stampNew(r, docName, c.user)
			ac.db.put(r)
			return r
		}
		main := "Main - " + abbr
		add("Cost Center", name, map[string]any{"cost_center_name": name, "company": name, "is_group": int64(1)})
		add("Cost Center", main, map[string]any{"cost_center_name": "Main", "company": name, "is_group": int64(0), "parent_cost_center": name})
		ac.addChart(add, name, abbr)
		for field, acct := range map[string]string{"default_cash_account": "Cash", "default_receivable_account": "Debtors",
			"default_payable_account": "Creditors", "default_income_account": "Sales", "write_off_account": "Write Off",
			"round_off_account": "Round Off", "exchange_gain_loss_account": "Exchange Gain/Loss"} {
			co.f[field] = acct + " - " + abbr
		}
		co.f["cost_center"], co.f["round_off_cost_center"] = main, main
		setDefault(co, "book_advance_payments_in_separate_party_account", int64(0))
		setDefault(co, "reconcile_on_advance_payment_date", int64(0))
		ac.db.stampNew(co, name, c.user)
		ac.db.touch(co, c.user) // on_update saves the defaults after the chart exists
		ac.db.put(co)
		c.status = http.StatusOK
		return co.render(c.keepNulls())
	}
}
