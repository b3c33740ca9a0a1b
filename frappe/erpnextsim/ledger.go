package erpnextsim

import (
	"sort"
	"strings"
)

// ledger posts and cancels GL Entries against the running books, answers balances and
// get_balance_on, and checks a posting's fiscal year, frozen date and accounts (§3.2 S2).
type ledger struct {
	db      *store
	users   *users
	company string
}

// glLine is one ledger posting before it becomes a GL Entry document.
type glLine struct {
	account, partyType, party string
	debit, credit             dec // company currency, rounded to 2 decimals
	debitAcc, creditAcc       dec // account currency
	against                   string
	againstType, againstNo    string
	costCenter, remarks       string // GL Entry cost_center and remarks; "" leaves them NULL
}

// postGL writes GL Entry documents for a voucher (submit effects, §3.4 step 3). A negative
// debit or credit is posted on the other side, as ERPNext's toggle_debit_credit_if_negative does
// (a −0.35 round-off deduction credits Round Off 0.35; a rounded-down invoice debits it:
// erpnext-recorded-connector/81-*-gl-entries).
func (lg *ledger) postGL(voucherType string, voucher *record, postingDate string, lines []glLine, user string) {
	fy := lg.fiscalYear(postingDate)
	for _, l := range lines {
		if l.debit < 0 || l.credit < 0 {
			l.debit, l.credit = max(l.debit, 0)-min(l.credit, 0), max(l.credit, 0)-min(l.debit, 0)
			l.debitAcc, l.creditAcc = max(l.debitAcc, 0)-min(l.creditAcc, 0), max(l.creditAcc, 0)-min(l.debitAcc, 0)
		}
		g := newRecord(glDT)
		acc := lg.db.get("Account", l.account)
		cur := DefaultCurrency
		if acc != nil && acc.str("account_currency") != "" {
			cur = acc.str("account_currency")
		}
		f := g.f
		f["posting_date"], f["transaction_date"], f["account"] = postingDate, postingDate, l.account
		f["debit"], f["credit"], f["account_currency"] = l.debit.round(2), l.credit.round(2), cur
		f["debit_in_account_currency"], f["credit_in_account_currency"] = l.debitAcc, l.creditAcc
		f["voucher_type"], f["voucher_no"], f["company"] = voucherType, voucher.name(), lg.company
		f["is_opening"], f["is_advance"], f["is_cancelled"], f["docstatus"] = "No", "No", int64(0), int64(1)
		f["fiscal_year"] = fy
		if l.partyType != "" {
			g.f["party_type"], g.f["party"] = l.partyType, l.party
		}
		if l.against != "" {
			g.f["against"] = l.against
		}
		if l.againstNo != "" {
			g.f["against_voucher_type"], g.f["against_voucher"] = l.againstType, l.againstNo
		}
		if l.costCenter != "" {
			g.f["cost_center"] = l.costCenter
		}
		if l.remarks != "" {
			g.f["remarks"] = l.remarks
		}
		lg.db.stampNew(g, hashName(), user)
		g.f["docstatus"] = int64(1)
		lg.db.put(g)
		lg.db.books.add(g, 1)
	}
}

// voucherGL returns the GL entries of a voucher (any state), from the voucher_no index.
func (lg *ledger) voucherGL(voucherType, voucherNo string) []*record {
	var out []*record
	for _, g := range lg.db.lookup(glDT, "voucher_no", indexKey(voucherNo)) {
		if g.str("voucher_type") == voucherType && g.str("voucher_no") == voucherNo {
			out = append(out, g)
		}
	}
	return out
}

// cancelGL is ERPNext's make_reverse_gl_entries (§3.5, recording
// erpnext-recorded-settlement/64-je-gl-entries-after-cancel): every live entry of the voucher
// gets a reversing entry (debit and credit swapped, remarks "On cancellation of {voucher}"),
// and originals and reversals are all is_cancelled 1, so balances leave both out.
func (lg *ledger) cancelGL(voucherType, voucherNo string) {
	var live []*record
	for _, g := range lg.voucherGL(voucherType, voucherNo) {
		if g.int("is_cancelled") == 0 {
			live = append(live, g)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].str("creation") < live[j].str("creation") })
	for _, g := range live {
		g.f["is_cancelled"] = int64(1)
		lg.db.books.add(g, -1)
		rev := g.clone()
		for _, pair := range [][2]string{{"debit", "credit"}, {"debit_in_account_currency", "credit_in_account_currency"}} {
			rev.f[pair[0]], rev.f[pair[1]] = g.f[pair[1]], g.f[pair[0]]
		}
		rev.f["remarks"] = "On cancellation of " + voucherNo
		ts := lg.db.stamp()
		rev.f["name"], rev.f["creation"], rev.f["modified"] = hashName(), ts, ts
		lg.db.put(rev)
	}
}

// balance is ERPNext's get_balance_on for a non-group account ("" = any) and
// party ("" = any), live entries up to date (inclusive).
//
// Followed upstream (erpnext v15 accounts/utils.py get_balance_on, read in the
// recorded 15.71.1 tree): with the default in_account_currency=True the SQL is
// sum(round(debit_in_account_currency, p)) - sum(round(credit_in_account_currency, p))
// with p the currency precision (2 here). So the sum is in each entry's account
// currency (a USD customer's party_balance is in USD, recording 48), and every
// entry is rounded on its own by MariaDB's ROUND, which on a DECIMAL column rounds
// half away from zero, not with the site's banker's rounding: the 10.125 entry of
// recording 55 (stored 10.12 in company currency, 10.125 in account currency)
// moves the balances of 57-get-payment-entry-* by 10.13.
//
// One account or one party is answered from the running books (books.go), not a scan.
func (lg *ledger) balance(account, partyType, party, date string) dec {
	switch {
	case account != "" && party == "":
		return lg.db.books.accountBalance(account, date).acc
	case account == "" && party != "":
		return lg.db.books.partyBalance(partyType, party, date).acc
	}
	var sum dec
	for _, g := range lg.db.docs[glDT] {
		if g.int("is_cancelled") == 1 || g.str("posting_date") > date {
			continue
		}
		if account != "" && !strings.EqualFold(g.str("account"), account) {
			continue
		}
		if party != "" && (!strings.EqualFold(g.str("party"), party) || g.str("party_type") != partyType) {
			continue
		}
		sum += g.dec("debit_in_account_currency").roundHalfAway(2) - g.dec("credit_in_account_currency").roundHalfAway(2)
	}
	return sum
}

// fiscalYear names the enabled Fiscal Year containing date, "" if none.
func (lg *ledger) fiscalYear(date string) string {
	for _, fy := range lg.db.all("Fiscal Year") {
		if fy.int("disabled") == 0 && fy.str("year_start_date") <= date && date <= fy.str("year_end_date") {
			return fy.name()
		}
	}
	return ""
}

// checkFiscalYear is §3.2 S2 (recording 53-*): FiscalYearError, raised in
// erpnext.accounts.utils, message without indicator.
func (lg *ledger) checkFiscalYear(date, company string) *fErr {
	if lg.fiscalYear(date) != "" {
		return nil
	}
	dmy := date
	if len(date) == 10 {
		dmy = date[8:10] + "-" + date[5:7] + "-" + date[0:4]
	}
	return &fErr{status: 417, excType: "FiscalYearError", module: "erpnext.accounts.utils", excSource: true,
		msgs: []srvMsg{{message: "Date " + dmy + " is not in any active Fiscal Year for <strong>" + company + "</strong>", title: "Message"}}}
}
