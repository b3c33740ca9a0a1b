package erpnextsim

import (
	"fmt"
	"strings"
)

// validateJE is JournalEntry.validate on je (a private copy), in the order of erpnext v15
// journal_entry.py as read in the recorded 15.71.1 tree; each step's first failure is the
// answer. Everything here also runs for drafts: a row with neither debit nor credit
// (63-je-debit-credit-only-draft: debit/credit are recomputed from the *_in_account_currency
// values, so rows sending only debit/credit are zero), a Receivable/Payable row without party
// (63-je-receivable-without-party), cheque_no without cheque_date (MandatoryError "Please enter
// Reference date", 62-je-bank-entry-no-cheque-date). Balance, Bank Entry reference and ledger
// checks wait for submit (journal_entry.go). name is the entry's (future) name.
func (jes *journalEntries) validateJE(je *record, name string, isNew bool) *fErr {
	if je.str("voucher_type") == "Opening Entry" {
		je.f["is_opening"] = "Yes"
	}
	setDefault(je, "is_opening", "No")
	delete(je.f, "clearance_date")
	co := jes.db.get("Company", je.str("company"))
	if co == nil {
		return nil // link validation reported it
	}
	rows := je.rows("accounts")
	for i, r := range rows {
		r.f["idx"] = int64(i + 1)
		if r.str("reference_type") != "" || r.str("reference_name") != "" {
			return notModelled("Journal Entry rows with a reference (reference_type " + r.str("reference_type") + ")")
		}
	}
	if e := jes.jeParties(rows); e != nil {
		return e
	}
	if e := jes.jeCurrencies(je, co.str("default_currency")); e != nil {
		return e
	}
	if e := jeAmounts(je); e != nil {
		return e
	}
	if je.docstatus() == 0 {
		setAgainstAccounts(rows)
	}
	if e := jeRemark(je); e != nil {
		return e
	}
	jes.jePrintFields(je)
	if len(rows) == 0 {
		return erpThrow("Accounts table cannot be blank.")
	}
	for _, r := range rows {
		if r.str("account_type") == "Depreciation" && je.str("voucher_type") != "Depreciation Entry" {
			return erpThrow("Journal Entry type should be set as Depreciation Entry for asset depreciation")
		}
	}
	if isNew || je.str("title") == "" {
		je.f["title"] = je.str("pay_to_recd_from")
		if je.str("title") == "" {
			je.f["title"] = rows[0].str("account")
		}
	}
	return validateMandatory(je, name, nil)
}

// partyAccountType is the Party Type master's account_type.
var partyAccountType = map[string]string{"Customer": "Receivable", "Supplier": "Payable", "Employee": "Payable", "Shareholder": "Payable"}

// jeParties is validate_party and validate_entries_for_advance.
func (jes *journalEntries) jeParties(rows []*record) *fErr {
	for _, r := range rows {
		idx := r.int("idx")
		acct := jes.db.get("Account", r.str("account"))
		t := ""
		if acct != nil {
			t = acct.str("account_type")
		}
		if t == "Receivable" || t == "Payable" {
			if r.str("party_type") == "" || r.str("party") == "" {
				return erpThrow(fmt.Sprintf("Row %d: Party Type and Party is required for Receivable / Payable account %s", idx, r.str("account")))
			}
			if partyAccountType[r.str("party_type")] != t {
				return erpThrow(fmt.Sprintf("Row %d: Account %s and Party Type %s have different account types", idx, r.str("account"), r.str("party_type")))
			}
		}
		if r.str("is_advance") == "Yes" { // debit/credit as sent: the company amounts are set later
			if r.str("party_type") == "Customer" && r.dec("debit") > 0 {
				return erpThrow(fmt.Sprintf("Row %d: Advance against Customer must be credit", idx))
			}
			if r.str("party_type") == "Supplier" && r.dec("credit") > 0 {
				return erpThrow(fmt.Sprintf("Row %d: Advance against Supplier must be debit", idx))
			}
		}
	}
	return nil
}

// jeCurrencies is validate_multi_currency and set_exchange_rate: each row takes its account's
// currency and type; a row in another currency needs multi_currency and an exchange_rate (the
// Currency Exchange lookup ERPNext would make is not modelled).
func (jes *journalEntries) jeCurrencies(je *record, companyCur string) *fErr {
	foreign := false
	for _, r := range je.rows("accounts") {
		if a := jes.db.get("Account", r.str("account")); a != nil {
			r.f["account_currency"], r.f["account_type"] = a.str("account_currency"), a.str("account_type")
		}
		if r.str("account_currency") == "" {
			r.f["account_currency"] = companyCur
		}
		foreign = foreign || r.str("account_currency") != companyCur
	}
	if foreign && je.int("multi_currency") == 0 {
		return erpThrow("Please check Multi Currency option to allow accounts with other currency")
	}
	for _, r := range je.rows("accounts") {
		switch rate := r.dec("exchange_rate"); {
		case r.str("account_currency") == companyCur:
			r.f["exchange_rate"] = units(1)
		case rate == 0 || rate == units(1):
			return notModelled("the exchange rate lookup for a " + r.str("account_currency") + " Journal Entry row (send exchange_rate)")
		}
	}
	return nil
}

// jeAmounts is set_amounts_in_company_currency, validate_debit_credit_amount and
// set_total_debit_credit. Amounts are rounded to the currency precision (2, banker's, the site's
// rounding method).
func jeAmounts(je *record) *fErr {
	var totalDebit, totalCredit dec
	for _, r := range je.rows("accounts") {
		dAcc, cAcc := r.dec("debit_in_account_currency").round(2), r.dec("credit_in_account_currency").round(2)
		r.f["debit_in_account_currency"], r.f["credit_in_account_currency"] = dAcc, cAcc
		r.f["debit"], r.f["credit"] = dAcc.mul(r.dec("exchange_rate")).round(2), cAcc.mul(r.dec("exchange_rate")).round(2)
	}
	for _, r := range je.rows("accounts") {
		if r.dec("debit") == 0 && r.dec("credit") == 0 {
			return erpThrow(fmt.Sprintf("Row %d: Both Debit and Credit values cannot be zero", r.int("idx")))
		}
	}
	for _, r := range je.rows("accounts") {
		if r.dec("debit") != 0 && r.dec("credit") != 0 {
			return erpThrow("You cannot credit and debit same account at the same time")
		}
		totalDebit += r.dec("debit")
		totalCredit += r.dec("credit")
	}
	je.f["total_debit"], je.f["total_credit"], je.f["difference"] = totalDebit, totalCredit, totalDebit-totalCredit
	return nil
}

// setAgainstAccounts is set_against_account (drafts only): each debit row names the credited
// accounts (or parties) and each credit row the debited ones, joined by ", ". ERPNext joins a
// Python set, whose order is arbitrary; the simulator keeps first-seen order.
func setAgainstAccounts(rows []*record) {
	var debited, credited []string
	add := func(list []string, v string) []string {
		for _, x := range list {
			if x == v {
				return list
			}
		}
		return append(list, v)
	}
	for _, r := range rows {
		who := r.str("party")
		if who == "" {
			who = r.str("account")
		}
		if r.dec("debit") > 0 {
			debited = add(debited, who)
		}
		if r.dec("credit") > 0 {
			credited = add(credited, who)
		}
	}
	for _, r := range rows {
		if r.dec("debit") > 0 {
			r.f["against_account"] = strings.Join(credited, ", ")
		}
		if r.dec("credit") > 0 {
			r.f["against_account"] = strings.Join(debited, ", ")
		}
	}
}

// jeRemark is create_remarks: "Note: {user_remark}\nReference #{cheque_no} dated {dd-mm-yyyy}"
// (61-je-insert-draft); cheque_no without cheque_date is a MandatoryError.
func jeRemark(je *record) *fErr {
	var parts []string
	if t := je.str("user_remark"); t != "" {
		parts = append(parts, "Note: "+t)
	}
	if no := je.str("cheque_no"); no != "" {
		d := je.str("cheque_date")
		if d == "" {
			return erpThrow("Please enter Reference date").as("MandatoryError")
		}
		if len(d) == 10 {
			d = d[8:10] + "-" + d[5:7] + "-" + d[0:4]
		}
		parts = append(parts, "Reference #"+no+" dated "+d)
	}
	if len(parts) > 0 {
		je.f["remark"] = strings.Join(parts, "\n")
	}
	return nil
}

// jePrintFields is set_print_format_fields: with a Customer/Supplier row, pay_to_recd_from is
// that party's name and total_amount the Bank/Cash rows' amount (else the party's); without
// one total_amount is 0 and its words "INR Zero only." (61-je-get-submitted).
func (jes *journalEntries) jePrintFields(je *record) {
	var bank, party dec
	var partyName, partyType, bankCur, partyCur string
	for _, r := range je.rows("accounts") {
		amount := r.dec("debit_in_account_currency")
		if amount == 0 {
			amount = r.dec("credit_in_account_currency")
		}
		switch pt := r.str("party_type"); {
		case (pt == "Customer" || pt == "Supplier") && r.str("party") != "":
			partyType = pt
			if partyName == "" {
				partyName = r.str("party")
			}
			if partyName == r.str("party") {
				party += amount
				partyCur = r.str("account_currency")
			}
		case r.str("account_type") == "Bank" || r.str("account_type") == "Cash":
			bank += amount
			bankCur = r.str("account_currency")
		}
	}
	var total dec
	var currency string
	if partyType != "" && partyName != "" {
		if p := jes.db.get(partyType, partyName); p != nil && p.str("customer_name") != "" {
			je.f["pay_to_recd_from"] = p.str("customer_name")
		} else {
			je.f["pay_to_recd_from"] = partyName
		}
		total, currency = party, partyCur
		if bank != 0 {
			total, currency = bank, bankCur
		}
	}
	je.f["total_amount"] = total
	if currency != "" {
		je.f["total_amount_currency"] = currency
	} else {
		delete(je.f, "total_amount_currency")
		currency = DefaultCurrency
	}
	je.f["total_amount_in_words"] = moneyInWords(total, currency)
}
