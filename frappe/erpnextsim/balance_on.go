package erpnextsim

import "strings"

// erpnext.accounts.utils.get_balance_on over REST (recordings 80-*), following the recorded
// 15.71.1 tree (utils.py get_balance_on; read, not copied). Arguments: account, date,
// party_type, party, company, in_account_currency (default true; any non-empty text is true,
// as Python sees it), cost_center, account_type, start_date.
//
//   - an unknown account → 404 DoesNotExistError "Account {name} not found", body exc_type and
//     _server_messages only (80-balance-unknown-account);
//   - the sum is Σ round(debit) − Σ round(credit) of live GL entries (each rounded half away
//     from zero, MariaDB's ROUND; in account currency by default, so a USD receivable sums USD),
//     up to date inclusive (80-balance-clearing-previous-day: 0.0); without date, every entry
//     (80-balance-no-date);
//   - a date outside every fiscal year: in the past → 0.0; in the future with no fiscal year
//     for today either → FiscalYearError;
//   - a group account sums its descendants, in company currency when it is in the company's;
//   - negative balances are returned as they are (80-balance-clearing-after-*: -7812.75); the
//     Accounts User and the System Manager read the same (80-*-api-user / -system-manager);
//   - with neither account, party nor account_type the function returns None: {} without
//     "message".

func init() {
	methodHooks[getBalanceOnCmd] = func(s *Site) handler { return s.ledger.getBalanceOn }
}

// balanceQuery is one get_balance_on call's filters.
type balanceQuery struct {
	account             *record
	partyType, party    string
	company, costCenter string
	accountType         string
	start, upto         string // inclusive bounds on posting_date; "" = open
	inAccountCurrency   bool
}

func (lg *ledger) getBalanceOn(c *call) (*fErr, step) {
	q := balanceQuery{partyType: c.str("party_type"), party: c.str("party"), company: c.str("company"),
		costCenter: c.str("cost_center"), accountType: c.str("account_type"), start: c.str("start_date"),
		upto: c.str("date"), inAccountCurrency: true}
	if v, ok := c.args["in_account_currency"]; ok {
		q.inAccountCurrency = pyTruthy(v)
	}
	if name := c.str("account"); name != "" {
		if q.account = lg.db.get("Account", name); q.account == nil {
			return notFound("Account", name), nil
		}
	}
	date := q.upto
	if date == "" {
		date = lg.db.today()
	}
	if lg.fiscalYear(date) == "" {
		if date <= lg.db.today() {
			return nil, func() any { return dec(0) }
		}
		if e := lg.checkFiscalYear(lg.db.today(), q.company); e != nil {
			return e, nil
		}
	}
	if q.account != nil && !lg.users.can(c.user, "Account", "read") {
		return permissionDenied(c.userName(), "Account", "read"), nil
	}
	if q.account == nil && (q.partyType == "" || q.party == "") && q.accountType == "" {
		return nil, func() any { return noMessage{} }
	}
	if a := q.account; a != nil && a.int("is_group") == 1 {
		if co := lg.db.get("Company", a.str("company")); co != nil && a.str("account_currency") == co.str("default_currency") {
			q.inAccountCurrency = false
		}
	}
	return nil, func() any { return lg.balanceOn(q) }
}

// balanceOn sums the live GL entries matching q: one non-group account or one party from the
// running books (books.go), anything else by a scan of the ledger.
func (lg *ledger) balanceOn(q balanceQuery) dec {
	if sums, ok := lg.booksBalance(q); ok {
		if q.inAccountCurrency {
			return sums.acc
		}
		return sums.base
	}
	var sum dec
	for _, g := range lg.db.docs[glDT] {
		if g.int("is_cancelled") != 0 || (q.start != "" && g.str("posting_date") < q.start) || (q.upto != "" && g.str("posting_date") > q.upto) {
			continue
		}
		if !lg.balanceMatches(q, g) {
			continue
		}
		if q.inAccountCurrency {
			sum += g.dec("debit_in_account_currency").roundHalfAway(2) - g.dec("credit_in_account_currency").roundHalfAway(2)
		} else {
			sum += g.dec("debit").roundHalfAway(2) - g.dec("credit").roundHalfAway(2)
		}
	}
	return sum
}

// booksBalance answers q from the books when it asks for exactly one non-group account (no
// cost center on a Profit and Loss account) or one party, with no account type and the site's
// company or none; ok false otherwise.
func (lg *ledger) booksBalance(q balanceQuery) (bookSums, bool) {
	if q.accountType != "" || (q.company != "" && !strings.EqualFold(q.company, lg.company)) {
		return bookSums{}, false
	}
	hasParty := q.partyType != "" && q.party != ""
	switch a := q.account; {
	case a != nil && !hasParty && a.int("is_group") == 0 && (q.costCenter == "" || a.str("report_type") != "Profit and Loss"):
		return lg.db.books.byAccount[strings.ToLower(a.name())].upto(q.start, q.upto), true
	case a == nil && hasParty:
		if bk, ok := lg.db.books.byParty[partyKey(q.partyType, q.party)]; ok {
			return bk.upto(q.start, q.upto), true
		}
		for k, bk := range lg.db.books.byParty { // party_type in another case
			if pt, p, _ := strings.Cut(k, "\x00"); strings.EqualFold(pt, q.partyType) && p == strings.ToLower(q.party) {
				return bk.upto(q.start, q.upto), true
			}
		}
		return bookSums{}, true
	}
	return bookSums{}, false
}

func (lg *ledger) balanceMatches(q balanceQuery, g *record) bool {
	if a := q.account; a != nil {
		if a.int("is_group") == 1 {
			if !lg.underTree("Account", "parent_account", g.str("account"), a.name()) {
				return false
			}
		} else if !strings.EqualFold(g.str("account"), a.name()) {
			return false
		}
		if q.costCenter != "" && a.str("report_type") == "Profit and Loss" && !lg.underTree("Cost Center", "parent_cost_center", g.str("cost_center"), q.costCenter) {
			return false
		}
	}
	if q.accountType != "" {
		acct := lg.db.get("Account", g.str("account"))
		if acct == nil || acct.str("account_type") != q.accountType || acct.int("is_group") == 1 || !strings.EqualFold(acct.str("company"), q.company) {
			return false
		}
	}
	if q.partyType != "" && q.party != "" && (!strings.EqualFold(g.str("party_type"), q.partyType) || !strings.EqualFold(g.str("party"), q.party)) {
		return false
	}
	return q.company == "" || strings.EqualFold(g.str("company"), q.company)
}

// underTree reports whether name is root or one of root's descendants in a tree doctype,
// walking its parent field (Account: parent_account, Cost Center: parent_cost_center; the
// simulator's lft/rgt are not nested).
func (lg *ledger) underTree(doctype, parentField, name, root string) bool {
	for i := 0; name != "" && i < 64; i++ {
		if strings.EqualFold(name, root) {
			return true
		}
		r := lg.db.get(doctype, name)
		if r == nil {
			return false
		}
		name = r.str(parentField)
	}
	return false
}
