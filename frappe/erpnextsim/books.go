package erpnextsim

import "strings"

// ledgerBooks keeps running balances of the live GL entries per account and per party, by
// posting date, so that the balances every Payment Entry validation reads (party_balance,
// paid_from/paid_to_account_balance) and get_balance_on cost O(distinct posting dates of that
// account or party) instead of a scan of the whole ledger. postGL adds an entry,
// cancelGL subtracts the entries it cancels; reversals are born cancelled and never count.
//
// Each entry contributes as ERPNext's get_balance_on sums it (see balance): its debit and credit
// rounded on their own, half away from zero, to 2 decimals, in account currency (acc) and in
// company currency (base).
type ledgerBooks struct {
	byAccount map[string]book // lower-case account name
	byParty   map[string]book // party_type + "\x00" + lower-case party
}

// book is one account's or party's balance per posting date.
type book map[string]bookSums

// bookSums is Σ round(debit) − Σ round(credit) in account currency and in company currency.
type bookSums struct{ acc, base dec }

func partyKey(partyType, party string) string { return partyType + "\x00" + strings.ToLower(party) }

// add books a GL entry (sign +1) or takes it out again (−1).
func (b *ledgerBooks) add(g *record, sign dec) {
	if b.byAccount == nil {
		b.byAccount, b.byParty = map[string]book{}, map[string]book{}
	}
	d := bookSums{
		acc:  sign * (g.dec("debit_in_account_currency").roundHalfAway(2) - g.dec("credit_in_account_currency").roundHalfAway(2)),
		base: sign * (g.dec("debit").roundHalfAway(2) - g.dec("credit").roundHalfAway(2)),
	}
	date := g.str("posting_date")
	post := func(m map[string]book, key string) {
		bk := m[key]
		if bk == nil {
			bk = book{}
			m[key] = bk
		}
		s := bk[date]
		s.acc += d.acc
		s.base += d.base
		bk[date] = s
	}
	post(b.byAccount, strings.ToLower(g.str("account")))
	if g.str("party") != "" {
		post(b.byParty, partyKey(g.str("party_type"), g.str("party")))
	}
}

// upto sums a book over posting dates ≤ date ("" = every date) from start ("" = open).
func (bk book) upto(start, date string) bookSums {
	var out bookSums
	for d, s := range bk {
		if (date != "" && d > date) || (start != "" && d < start) {
			continue
		}
		out.acc += s.acc
		out.base += s.base
	}
	return out
}

// accountBalance is the account-currency balance of a non-group account up to date.
func (b *ledgerBooks) accountBalance(account, date string) bookSums {
	return b.byAccount[strings.ToLower(account)].upto("", date)
}

// partyBalance is the balance of a party over every account up to date.
func (b *ledgerBooks) partyBalance(partyType, party, date string) bookSums {
	return b.byParty[partyKey(partyType, party)].upto("", date)
}
