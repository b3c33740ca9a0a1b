package erpnextsim

import "strings"

// checkGL is §3.2 S2: what ERPNext's ledger posting refuses when a voucher is
// submitted. Drafts never reach it (a draft with a group account, an account
// of another company or a foreign-currency deduction account saves fine).
//
// Order and wording follow erpnext v15 as read in the recorded 15.71.1 tree
// (nateabowman/frappe-bench, apps/erpnext):
//   - controllers/accounts_controller.py get_gl_dict asks get_fiscal_years for the
//     first ledger line, so FiscalYearError comes first (recording 53-*);
//   - payment_entry.py add_deductions_gl_entries, while building the GL map, refuses a
//     deduction row with an amount whose account is not in company currency:
//     "Currency for {account} must be {company currency}";
//   - general_ledger.py save_entries runs check_freezing_date (acc_frozen_upto,
//     recording 52-*) before any GL Entry is made;
//   - gl_entry.py GLEntry.on_update → validate_account_details, per ledger line in
//     posting order: "{voucher_type} {voucher_no}: Account {account} is a Group Account
//     and group accounts cannot be used in transactions", then (inactive, not modelled)
//     "{voucher_type} {voucher_no}: Account {account} does not belong to Company {company}".
//
// All are frappe.throw: 417 ValidationError raised from ERPNext code.
func (lg *ledger) checkGL(c *call, voucherType, voucherNo, company, postingDate string, deductionAccounts []string, lines []glLine) *fErr {
	if e := lg.checkFiscalYear(postingDate, company); e != nil {
		return e
	}
	companyCur := DefaultCurrency
	if co := lg.db.get("Company", company); co != nil && co.str("default_currency") != "" {
		companyCur = co.str("default_currency")
	}
	for _, name := range deductionAccounts {
		if a := lg.db.get("Account", name); a != nil && a.str("account_currency") != "" && a.str("account_currency") != companyCur {
			return erpThrow("Currency for " + a.name() + " must be " + companyCur)
		}
	}
	if e := lg.checkFrozen(c, postingDate); e != nil {
		return e
	}
	for _, l := range lines {
		if l.debit.round(2) == 0 && l.credit.round(2) == 0 {
			continue // general_ledger.py merge_similar_entries drops zero lines
		}
		a := lg.db.get("Account", l.account)
		if a == nil {
			continue
		}
		prefix := voucherType + " " + voucherNo + ": Account " + a.name()
		if a.int("is_group") == 1 {
			return erpThrow(prefix + " is a Group Account and group accounts cannot be used in transactions")
		}
		if !strings.EqualFold(a.str("company"), company) {
			return erpThrow(prefix + " does not belong to Company " + company)
		}
	}
	return nil
}
