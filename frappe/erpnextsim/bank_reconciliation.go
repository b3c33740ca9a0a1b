package erpnextsim

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
)

// reconciliation is the Bank Reconciliation Tool's methods: get_linked_payments and
// reconcile_vouchers.
type reconciliation struct {
	db       *store
	users    *users
	bankTxns *bankTransactions
}

// The bank reconciliation tool's whitelisted methods (recordings 68-*…76-*), following erpnext
// 15.71.1 bank_reconciliation_tool.py as read in the recorded tree (not copied).
//
// get_linked_payments(bank_transaction_name, document_types, from_date, to_date,
// filter_by_reference_date, from_reference_date, to_reference_date) lists the submitted,
// uncleared vouchers whose GL rows hit the Bank Account's GL account:
//
//   - the dates are a SQL BETWEEN: without from_date and to_date nothing matches, the answer
//     is [] (68-get-linked-payments-no-dates);
//   - document_types is tested with Python's `in`: a list by element, a JSON string by
//     substring (68-get-linked-payments-document-types-string); "exact_match" keeps only
//     vouchers whose amount equals the transaction's unallocated amount, the reference plays no
//     part (72-get-linked-payments-other-reference-exact); None is a 500 TypeError;
//   - Payment Entries (Receive or Internal Transfer into the account for a deposit, Pay or
//     Internal Transfer out of it for a withdrawal): rank = 1 + (reference_no =
//     reference_number) + (paid_amount = unallocated) + (same party); paid_amount is
//     base_paid_amount_after_tax (76-*: 10000.0 for an entry that put 9764 in the bank);
//   - Journal Entries: per entry the sum of its rows' debit (credit for a withdrawal) on the
//     account; rank = 1 + (cheque_no = reference_number) + (that sum = unallocated);
//   - other Bank Transactions of the same Bank Account in the opposite direction, not
//     Reconciled (rank adds equal unallocated and party);
//   - Sales Invoice payments (POS) and Purchase Invoices are not modelled: no rows;
//   - ranks are computed on the full amounts; then what submitted Bank Transactions already
//     allocated to a voucher on the account is subtracted from paid_amount, which may reach 0.0
//     and is still listed (71-get-linked-payments-after-reconcile); the list is sorted by rank,
//     highest first, stable (76-get-linked-payments-internal-transfer);
//   - a Bank Transaction whose Bank Account does not exist → 500 IndexError "list index out of
//     range" (68-get-linked-payments-bt-with-unknown-bank-account); an unknown transaction →
//     404; Guest → 403 not whitelisted (69-get-linked-payments-guest, methods.go).
//
// Text comparisons are SQL ones: case-insensitive, trailing spaces ignored.
//
// reconcile_vouchers(bank_transaction_name, vouchers) takes vouchers as a JSON string of
// [{payment_doctype, payment_name, amount}] (a list in a JSON body is a 500 TypeError); a
// transaction with nothing unallocated → 417 "Bank Transaction {name} is already fully
// reconciled" (71-reconcile-vouchers-again); the rows are allocated as bank_allocation.go
// describes, the transaction saved (write permission on Bank Transaction: the Accounts User has
// it, 69-reconcile-vouchers) and returned with nulls omitted, its new rows "__unsaved": 1. A GET
// answers the same but Frappe rolls the writes back, so nothing is kept.

func init() {
	methodHooks[getLinkedPaymentsCmd] = func(s *Site) handler { return s.reconciliation.getLinkedPayments }
	methodHooks[reconcileVouchersCmd] = func(s *Site) handler { return s.reconciliation.reconcileVouchers }
}

// linkedRow is one answer row of get_linked_payments, in the recorded key order.
type linkedRow struct {
	doctype, name, refNo, refDate, party, partyType, posting, currency string
	rank                                                               int
	amount                                                             dec
}

func (r linkedRow) render() obj {
	body := obj{{"doctype", r.doctype}, {"name", r.name}, {"paid_amount", r.amount}, {"reference_no", nullable(r.refNo)},
		{"reference_date", nullable(r.refDate)}, {"party", nullable(r.party)}, {"party_type", nullable(r.partyType)},
		{"posting_date", r.posting}, {"currency", nullable(r.currency)}}
	if r.doctype == jeDT { // the JE query selects its columns first and the rank last
		body[0], body[1], body[2] = kv{"paid_amount", r.amount}, kv{"doctype", r.doctype}, kv{"name", r.name}
		return append(body, kv{"rank", r.rank})
	}
	return append(obj{{"rank", r.rank}}, body...)
}

func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func (rc *reconciliation) getLinkedPayments(c *call) (*fErr, step) {
	bt := rc.db.get(btDT, c.str("bank_transaction_name"))
	if bt == nil {
		return notFound(btDT, c.str("bank_transaction_name")), nil
	}
	ba := rc.db.get(baDT, bt.str("bank_account"))
	if ba == nil {
		e := serverError("IndexError", "IndexError: list index out of range")
		e.excSource = true
		return e, nil
	}
	has, e := documentTypes(c.args["document_types"])
	if e != nil {
		return e, nil
	}
	q := matchQuery{bt: bt, account: ba.str("account"), exact: has("exact_match"), byRef: cint(c.args["filter_by_reference_date"]) != 0,
		from: c.str("from_date"), to: c.str("to_date")}
	if q.byRef {
		q.from, q.to = c.str("from_reference_date"), c.str("to_reference_date")
	}
	var rows []linkedRow
	if has("payment_entry") {
		rows = append(rows, rc.matchPaymentEntries(q)...)
	}
	if has("journal_entry") {
		rows = append(rows, rc.matchJournalEntries(q)...)
	}
	if has("bank_transaction") {
		rows = append(rows, rc.matchBankTransactions(q)...)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].rank > rows[j].rank })
	for i := range rows {
		if a := rc.bankTxns.voucherAllocations(rows[i].doctype, rows[i].name)[q.account]; a.total != 0 {
			rows[i].amount -= a.total
		}
	}
	return nil, func() any {
		out := make([]any, 0, len(rows))
		for _, r := range rows {
			out = append(out, r.render())
		}
		return out
	}
}

// documentTypes is Python's `x in document_types` for a list (by element) or a string (by
// substring); None cannot be searched.
func documentTypes(v any) (func(string) bool, *fErr) {
	switch x := v.(type) {
	case []any:
		return func(t string) bool {
			for _, item := range x {
				if s, ok := item.(string); ok && s == t {
					return true
				}
			}
			return false
		}, nil
	case string:
		return func(t string) bool { return strings.Contains(x, t) }, nil
	}
	e := serverError("TypeError", "TypeError: argument of type 'NoneType' is not iterable")
	e.excSource = true
	return nil, e
}

// matchQuery holds what the three matching queries share.
type matchQuery struct {
	bt       *record
	account  string // the Bank Account's GL account
	exact    bool
	byRef    bool // filter on reference dates instead of posting dates
	from, to string
}

func (q matchQuery) deposit() bool { return q.bt.dec("deposit") > 0 }

// inWindow is SQL `date BETWEEN from AND to`: false when either bound is missing.
func (q matchQuery) inWindow(date string) bool {
	return q.from != "" && q.to != "" && date != "" && q.from <= date && date <= q.to
}

// amountMatches is the rank term and, with exact_match, the filter on the amount.
func (q matchQuery) amountMatches(amount dec) (rank int, keep bool) {
	if amount == q.bt.dec("unallocated_amount") {
		return 1, true
	}
	return 0, !q.exact && amount > 0
}

// same is a SQL equality of two texts (NULL never equals).
func same(a, b string) bool { return a != "" && b != "" && compareValues(a, b, ftData) == 0 }

func (rc *reconciliation) matchPaymentEntries(q matchQuery) []linkedRow {
	pt, side := "Pay", "paid_from"
	if q.deposit() {
		pt, side = "Receive", "paid_to"
	}
	var out []linkedRow
	for _, pe := range rc.db.docs[peDT] {
		if pe.docstatus() != 1 || (pe.str("payment_type") != pt && pe.str("payment_type") != "Internal Transfer") ||
			pe.str("clearance_date") != "" || !same(pe.str(side), q.account) {
			continue
		}
		date := pe.str("posting_date")
		if q.byRef {
			date = pe.str("reference_date")
		}
		amountRank, keep := q.amountMatches(pe.dec("paid_amount"))
		if !keep || !q.inWindow(date) {
			continue
		}
		rank := 1 + amountRank + b2i(same(pe.str("reference_no"), q.bt.str("reference_number")))
		if same(pe.str("party_type"), q.bt.str("party_type")) && same(pe.str("party"), q.bt.str("party")) {
			rank++
		}
		out = append(out, linkedRow{doctype: peDT, name: pe.name(), amount: pe.dec("base_paid_amount_after_tax"), refNo: pe.str("reference_no"),
			refDate: pe.str("reference_date"), party: pe.str("party"), partyType: pe.str("party_type"), posting: pe.str("posting_date"),
			currency: pe.str(side + "_account_currency"), rank: rank})
	}
	sortByPosting(out)
	return out
}

func (rc *reconciliation) matchJournalEntries(q matchQuery) []linkedRow {
	field := "credit_in_account_currency"
	if q.deposit() || q.bt.dec("withdrawal") <= 0 {
		field = "debit_in_account_currency"
	}
	var out []linkedRow
	for _, je := range rc.db.docs[jeDT] {
		date := je.str("posting_date")
		if q.byRef {
			date = je.str("cheque_date")
		}
		if je.docstatus() != 1 || je.str("voucher_type") == "Opening Entry" || je.str("clearance_date") != "" || !q.inWindow(date) {
			continue
		}
		var sum dec
		var hit *record
		for _, r := range je.rows("accounts") {
			if same(r.str("account"), q.account) {
				sum += r.dec(field)
				if hit == nil {
					hit = r
				}
			}
		}
		if hit == nil {
			continue
		}
		amountRank, keep := q.amountMatches(sum)
		if !keep {
			continue
		}
		out = append(out, linkedRow{doctype: jeDT, name: je.name(), amount: sum, refNo: je.str("cheque_no"), refDate: je.str("cheque_date"),
			party: je.str("pay_to_recd_from"), partyType: hit.str("party_type"), posting: je.str("posting_date"), currency: hit.str("account_currency"),
			rank: 1 + amountRank + b2i(same(je.str("cheque_no"), q.bt.str("reference_number")))})
	}
	sortByPosting(out)
	return out
}

func (rc *reconciliation) matchBankTransactions(q matchQuery) []linkedRow {
	field := "withdrawal"
	if q.bt.dec("withdrawal") > 0 {
		field = "deposit"
	}
	var out []linkedRow
	for _, o := range rc.db.docs[btDT] {
		if o.docstatus() != 1 || o.str("status") == "Reconciled" || o.name() == q.bt.name() || !same(o.str("bank_account"), q.bt.str("bank_account")) {
			continue
		}
		amountRank, keep := q.amountMatches(o.dec(field))
		if !keep {
			continue
		}
		rank := 1 + amountRank + b2i(same(o.str("reference_number"), q.bt.str("reference_number"))) +
			b2i(o.dec("unallocated_amount") == q.bt.dec("unallocated_amount"))
		if same(o.str("party_type"), q.bt.str("party_type")) && same(o.str("party"), q.bt.str("party")) {
			rank++
		}
		out = append(out, linkedRow{doctype: btDT, name: o.name(), amount: o.dec("unallocated_amount"), refNo: o.str("reference_number"),
			refDate: o.str("date"), party: o.str("party"), partyType: o.str("party_type"), posting: o.str("date"), currency: o.str("currency"), rank: rank})
	}
	sortByPosting(out)
	return out
}

// sortByPosting orders a query's rows by posting date (its ORDER BY), ties in name (storage)
// order. The queries scan the documents unsorted: only the matches are sorted.
func sortByPosting(rows []linkedRow) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].posting != rows[j].posting {
			return rows[i].posting < rows[j].posting
		}
		return rows[i].name < rows[j].name
	})
}

func (rc *reconciliation) reconcileVouchers(c *call) (*fErr, step) {
	vouchers, e := voucherList(c.args["vouchers"])
	if e != nil {
		return e, nil
	}
	cur := rc.db.get(btDT, c.str("bank_transaction_name"))
	if cur == nil {
		return notFound(btDT, c.str("bank_transaction_name")), nil
	}
	next := cur.clone()
	if next.dec("unallocated_amount") <= 0 {
		return erpThrow("Bank Transaction " + next.name() + " is already fully reconciled"), nil
	}
	var added []*record
	for _, v := range vouchers {
		row := newRecord(btpDT)
		row.f["payment_document"], row.f["payment_entry"], row.f["allocated_amount"] = str(v["payment_doctype"]), str(v["payment_name"]), dec(0)
		added = append(added, row)
	}
	next.f["payment_entries"] = append(next.rows("payment_entries"), added...)
	if e := duplicateReferences(next); e != nil {
		return e, nil
	}
	res, e := rc.bankTxns.allocateRows(next)
	if e != nil {
		return e, nil
	}
	setBTStatus(next)
	if next.docstatus() == 2 {
		return silent(http.StatusExpectationFailed, "ValidationError", "Cannot edit cancelled document"), nil
	}
	if !rc.users.can(c.user, btDT, "write") {
		return permissionDenied(c.userName(), btDT, "create"), nil
	}
	return nil, func() any {
		if c.method == http.MethodGet {
			next.f["modified"] = rc.db.peekStamp()
		} else {
			rc.bankTxns.applyClearances(c, res.clears)
			rc.bankTxns.applyLinks(c, res.links)
			rc.db.touch(next, c.user)
			rc.db.put(next)
		}
		rc.db.stampRows(next, next.str("modified"), c.user)
		out := next.clone()
		for i, row := range next.rows("payment_entries") {
			for _, a := range added {
				if a == row {
					out.rows("payment_entries")[i].f["__unsaved"] = int64(1)
				}
			}
		}
		return out.render(false)
	}
}

// voucherList is json.loads(vouchers) with the keys reconcile_vouchers reads.
func voucherList(v any) ([]map[string]any, *fErr) {
	text, ok := v.(string)
	if !ok {
		kind := "NoneType"
		if v != nil {
			kind = "list"
		}
		return nil, serverError("TypeError", "TypeError: the JSON object must be str, bytes or bytearray, not "+kind)
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var list []map[string]any
	if err := d.Decode(&list); err != nil {
		return nil, jsonDecodeError(text, err)
	}
	for _, m := range list {
		for _, k := range []string{"payment_doctype", "payment_name"} {
			if _, ok := m[k]; !ok {
				e := serverError("KeyError", "KeyError: '"+k+"'")
				e.excSource = true
				return nil, e
			}
		}
	}
	return list, nil
}
