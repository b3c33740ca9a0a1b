package erpnextsim

import "strings"

// glLine is one ledger posting before it becomes a GL Entry document.
type glLine struct {
	account, partyType, party string
	debit, credit             dec // company currency, rounded to 2 decimals
	debitAcc, creditAcc       dec // account currency
	against                   string
	againstType, againstNo    string
}

// postGL writes GL Entry documents for a voucher (submit effects, §3.4 step 3).
func (s *Site) postGL(voucherType string, voucher *record, postingDate string, lines []glLine, user string) {
	for _, l := range lines {
		g := newRecord("GL Entry")
		acc := s.get("Account", l.account)
		cur := DefaultCurrency
		if acc != nil && acc.str("account_currency") != "" {
			cur = acc.str("account_currency")
		}
		g.f = map[string]any{
			"posting_date": postingDate, "transaction_date": postingDate, "account": l.account,
			"cost_center": nil, "debit": l.debit.round(2), "credit": l.credit.round(2), "account_currency": cur,
			"debit_in_account_currency": l.debitAcc, "credit_in_account_currency": l.creditAcc,
			"voucher_type": voucherType, "voucher_no": voucher.name(), "company": s.company,
			"is_opening": "No", "is_advance": "No", "is_cancelled": int64(0), "docstatus": int64(1),
			"fiscal_year": s.fiscalYear(postingDate),
		}
		if l.partyType != "" {
			g.f["party_type"], g.f["party"] = l.partyType, l.party
		}
		if l.against != "" {
			g.f["against"] = l.against
		}
		if l.againstNo != "" {
			g.f["against_voucher_type"], g.f["against_voucher"] = l.againstType, l.againstNo
		}
		s.stampNew(g, hashName(), user)
		g.f["docstatus"] = int64(1)
		s.put(g)
	}
}

// cancelGL marks a voucher's entries cancelled (§3.5).
func (s *Site) cancelGL(voucherType, voucherNo string) {
	for _, g := range s.docs["GL Entry"] {
		if g.str("voucher_type") == voucherType && g.str("voucher_no") == voucherNo {
			g.f["is_cancelled"] = int64(1)
		}
	}
}

// balance is Σ debit − credit of live entries up to date (inclusive) for an
// account ("" = any) and party ("" = any).
func (s *Site) balance(account, partyType, party, date string) dec {
	// An account, or a party whose receivable is, in a foreign currency is summed in that
	// currency (recording 48-usd-get-payment-entry: party_balance 25.0 for a USD customer).
	foreign := false
	acct := account
	if acct == "" && party != "" {
		acct = s.partyAccount(party, s.get("Company", s.company))
	}
	if a := s.get("Account", acct); a != nil && a.str("account_currency") != "" && a.str("account_currency") != DefaultCurrency {
		foreign = true
	}
	var sum dec
	for _, g := range s.docs["GL Entry"] {
		if g.int("is_cancelled") == 1 || g.str("posting_date") > date {
			continue
		}
		if account != "" && !strings.EqualFold(g.str("account"), account) {
			continue
		}
		if party != "" && (!strings.EqualFold(g.str("party"), party) || g.str("party_type") != partyType) {
			continue
		}
		if foreign {
			sum += g.dec("debit_in_account_currency") - g.dec("credit_in_account_currency")
		} else {
			sum += g.dec("debit") - g.dec("credit")
		}
	}
	return sum
}

// fiscalYear names the enabled Fiscal Year containing date, "" if none.
func (s *Site) fiscalYear(date string) string {
	for _, fy := range s.all("Fiscal Year") {
		if fy.int("disabled") == 0 && fy.str("year_start_date") <= date && date <= fy.str("year_end_date") {
			return fy.name()
		}
	}
	return ""
}

// checkFiscalYear is §3.2 S2 (recording 53-*): FiscalYearError, raised in
// erpnext.accounts.utils, message without indicator.
func (s *Site) checkFiscalYear(date, company string) *fErr {
	if s.fiscalYear(date) != "" {
		return nil
	}
	dmy := date
	if len(date) == 10 {
		dmy = date[8:10] + "-" + date[5:7] + "-" + date[0:4]
	}
	return &fErr{status: 417, excType: "FiscalYearError", module: "erpnext.accounts.utils", excSource: true,
		msgs: []srvMsg{{message: "Date " + dmy + " is not in any active Fiscal Year for <strong>" + company + "</strong>", title: "Message"}}}
}
