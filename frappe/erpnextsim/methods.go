package erpnextsim

import (
	"net/http"
	"strings"
)

const getPaymentEntryCmd = "erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"

// methodHandler dispatches /api/method/{dotted.path} (§1.6).
func (s *Site) methodHandler(c *call, cmd string) handler {
	if c.user == "" {
		return fail(throw("<details><summary>You are not permitted to access this resource. Login to access</summary>Function <strong>" +
			cmd + "</strong> is not whitelisted.</details>").as("PermissionError").withTitle("Method Not Allowed").status403())
	}
	writeOnly := func(h handler) handler {
		if c.method != http.MethodPost && c.method != http.MethodPut {
			return fail(throw("Not permitted").as("PermissionError").status403())
		}
		return h
	}
	c.nulls = strings.HasPrefix(cmd, "frappe.client.")
	c.rpc = c.nulls
	switch cmd {
	case getPaymentEntryCmd:
		return s.getPaymentEntry
	case makePaymentRequestCmd:
		return writeOnly(s.makePaymentRequest)
	case "erpnext.accounts.doctype.sales_invoice.sales_invoice.get_bank_cash_account":
		return s.getBankCashAccount
	case "frappe.client.get_list":
		return s.clientDoctype(func(c *call, dt string) (*fErr, step) { return s.listResource(c, dt, true) })
	case "frappe.client.get_count":
		return s.clientDoctype(s.getCount)
	case "frappe.client.get_value":
		if dt := c.str("doctype"); metas[dt] != nil && !metas[dt].child && !s.can(c.user, dt, "read") {
			return fail(noPermissionThrow(dt)) // recording 54-system-settings-get-value-api-user
		}
		return s.clientDoctype(s.getValue)
	case getSingleValueCmd:
		return s.getSingleValue
	case addCommentCmd:
		return writeOnly(s.addComment)
	case "frappe.client.save":
		return writeOnly(func(c *call) (*fErr, step) { return s.clientSave(c, false) })
	case "frappe.client.submit":
		return writeOnly(func(c *call) (*fErr, step) { return s.clientSave(c, true) })
	case "frappe.client.set_value":
		return writeOnly(s.clientSetValue)
	case "frappe.client.delete":
		if c.method != http.MethodPost && c.method != http.MethodDelete {
			return fail(throw("Not permitted").as("PermissionError").status403())
		}
		return s.clientDelete
	case "frappe.client.get":
		return s.clientDoctype(s.clientGet)
	case "frappe.client.cancel":
		return writeOnly(s.clientDoctype(func(c *call, dt string) (*fErr, step) {
			return s.update(c, dt, c.str("name"), map[string]any{"docstatus": int64(2)}, false)
		}))
	case "frappe.client.insert":
		return writeOnly(s.clientInsert)
	}
	if h := methodHooks[cmd]; h != nil {
		return h(s, c)
	}
	if fn, ok := strings.CutPrefix(cmd, "frappe.client."); ok && !knownClientFns[fn] {
		return fail(throw("Failed to get method for command " + cmd + " with module 'frappe.client' has no attribute '" + fn + "'"))
	}
	return fail(notModelled("method " + cmd))
}

var knownClientFns = map[string]bool{"save": true, "submit": true, "set_value": true, "delete": true, "get_single_value": true,
	"rename_doc": true, "insert_many": true, "bulk_update": true, "get_password": true,
	"attach_file": true, "is_document_amended": true, "validate_link": true, "get_js": true, "get_time_zone": true}

// clientInsert is frappe.client.insert: doc (an object, or JSON text) names its doctype.
func (s *Site) clientInsert(c *call) (*fErr, step) {
	doc, ok := c.args["doc"].(map[string]any)
	if text, isStr := c.args["doc"].(string); isStr {
		d, e := docArg(&call{args: map[string]any{"data": text}})
		if e != nil {
			return e, nil
		}
		doc, ok = d, true
	}
	if !ok {
		return throw("erpnextsim: frappe.client.insert needs doc"), nil
	}
	dt := str(doc["doctype"])
	if e := doctypeError(c, dt, "create"); e != nil {
		return e, nil
	}
	cp := map[string]any{}
	for k, v := range doc {
		if k != "doctype" {
			cp[k] = v
		}
	}
	return s.insert(c, dt, cp)
}

func (e *fErr) status403() *fErr { e.status = http.StatusForbidden; return e }

// clientDoctype checks the doctype argument of a frappe.client.* call.
func (s *Site) clientDoctype(h func(c *call, dt string) (*fErr, step)) handler {
	return func(c *call) (*fErr, step) {
		dt := c.str("doctype")
		if e := doctypeError(c, dt, "read"); e != nil {
			return e, nil
		}
		if m := metas[dt]; m.child && c.str("parent") == "" {
			return &fErr{status: http.StatusForbidden, excType: "PermissionError", bare: true}, nil
		}
		return h(c, dt)
	}
}

func (s *Site) getCount(c *call, dt string) (*fErr, step) {
	q, e := s.parseQuery(c, metas[dt], nil)
	if e != nil {
		return e, nil
	}
	if q.ambiguous != nil {
		return q.ambiguous, nil
	}
	q.limit = 0
	docs := s.queryDocs(c, q)
	return nil, func() any {
		seen := map[*record]bool{}
		for _, j := range q.run(docs) {
			seen[j.parent] = true
		}
		return len(seen)
	}
}

// getValue is frappe.client.get_value: filters are a name or filter JSON;
// no match → {} (§9 item 27).
func (s *Site) getValue(c *call, dt string) (*fErr, step) {
	m := metas[dt]
	fv := c.str("fieldname")
	fields := []any{fv}
	if strings.HasPrefix(strings.TrimSpace(fv), "[") {
		v, _, e := c.jsonArg("fieldname")
		if e != nil {
			return e, nil
		}
		fields, _ = v.([]any)
	}
	filt := strings.TrimSpace(c.str("filters"))
	if filt != "" && !strings.HasPrefix(filt, "{") && !strings.HasPrefix(filt, "[") {
		c.args["filters"] = pyJSON([]any{[]any{"name", "=", filt}}, false)
	}
	c.args["fields"] = pyJSON(fields, false)
	c.args["order_by"] = "modified desc"
	q, e := s.parseQuery(c, m, nil)
	if e != nil {
		return e, nil
	}
	q.limit = 1
	docs := s.queryDocs(c, q)
	return nil, func() any {
		rows := q.run(docs)
		if len(rows) == 0 {
			return obj{}
		}
		return q.output(rows)[0]
	}
}

func (s *Site) clientGet(c *call, dt string) (*fErr, step) {
	r := s.get(dt, c.str("name"))
	if r == nil {
		return notFound(dt, c.str("name")), nil
	}
	return nil, func() any { return r.render(true) }
}

func (s *Site) getBankCashAccount(c *call) (*fErr, step) {
	mop := s.get("Mode of Payment", c.str("mode_of_payment"))
	if mop != nil {
		for _, row := range mop.rows("accounts") {
			if strings.EqualFold(row.str("company"), c.str("company")) && row.str("default_account") != "" {
				return nil, func() any { return obj{{"account", row.str("default_account")}} }
			}
		}
	}
	name := c.str("mode_of_payment")
	return erpThrow("Please set default Cash or Bank account in Mode of Payment <a href=\"/app/mode-of-payment/" + name + "\">" + name + "</a>").withTitle("Missing Account"), nil
}

// getPaymentEntry is ERPNext's get_payment_entry for a Sales Invoice (§3.8,
// recordings 26-*, 57-*): an unsaved Payment Entry, nothing written.
// posting_date is the simulator's today; reference_no is not set; paid_to is
// the bank_account argument, else the company's default bank account; with
// party_amount the row's total/outstanding/allocated are party_amount too
// (recording 57, over the spec). A fully paid invoice yields a "Pay" entry
// with zero amounts. An invoice whose Payment Terms Template allocates by term
// gets one row per term with an outstanding (see payment_terms.go).
func (s *Site) getPaymentEntry(c *call) (*fErr, step) {
	dt, dn := c.str("dt"), c.str("dn")
	if dt != siDT {
		if metas[dt] == nil && !knownUnmodelled[dt] {
			return doctypeError(c, dt, "read"), nil
		}
		return notModelled("get_payment_entry for " + dt), nil
	}
	inv := s.get(dt, dn)
	if inv == nil {
		return notFound(dt, dn), nil
	}
	q := peQuery{user: c.user, inv: inv, company: s.get("Company", inv.str("company")), today: s.today(), out: inv.dec("outstanding_amount")}
	if v, ok := c.args["party_amount"]; ok && v != nil && str(v) != "" {
		q.partyAmount, q.hasPartyAmount = decOf(v), true
	}
	q.pt = "Receive"
	if q.out <= 0 {
		q.pt = "Pay"
	}
	q.bank = c.str("bank_account")
	if q.bank == "" {
		q.bank = q.company.str("default_bank_account")
	}
	if q.bank == "" {
		q.bank = q.company.str("default_cash_account")
	}
	q.refDate = c.str("reference_date")
	if q.refDate == "" {
		q.refDate = q.today
	}
	return nil, func() any { return s.draftPaymentEntry(q) }
}

// peQuery is what get_payment_entry was asked and what it read of the invoice and its company.
type peQuery struct {
	user, today, refDate string
	inv, company         *record
	out                  dec // the invoice's outstanding_amount
	partyAmount          dec
	hasPartyAmount       bool
	pt                   string // payment_type: Receive, or Pay for an invoice with nothing outstanding
	bank                 string // the bank or cash account of the entry
}

// draftPaymentEntry renders the unsaved Payment Entry of getPaymentEntry.
func (s *Site) draftPaymentEntry(q peQuery) any {
	pe := newRecord(peDT)
	amount := q.out.abs()
	if q.hasPartyAmount {
		amount = q.partyAmount.abs()
	}
	s.draftHeader(pe, q, amount)
	s.draftAccounts(pe, q)
	rowRate := units(1)
	if rate := q.inv.dec("conversion_rate"); q.inv.str("party_account_currency") != q.company.str("default_currency") && q.pt == "Receive" {
		// Bank in company currency, party in the invoice currency: valued at the invoice's
		// rate, no Currency Exchange record needed (recording 48-usd-get-payment-entry).
		base := amount.mul(rate).round(2)
		pe.f["source_exchange_rate"], rowRate = rate, rate
		for _, k := range []string{"base_paid_amount", "received_amount", "base_received_amount", "base_total_allocated_amount"} {
			pe.f[k] = base
		}
	}
	row := s.draftReference(q, rowRate)
	rows := []*record{row}
	if s.termBased(q.inv) {
		rows = draftTermReferences(pe, q, row, amount, rowRate)
	}
	pe.f["references"] = s.splitByPaymentRequests(rows, q.inv, q.pt)
	pe.f["__islocal"], pe.f["__unsaved"] = int64(1), int64(1)
	return pe.render(false)
}

// draftHeader sets the entry's own fields: party, amounts in one currency, no taxes.
func (s *Site) draftHeader(pe *record, q peQuery, amount dec) {
	inv := q.inv
	for k, v := range map[string]any{
		"owner": q.user, "docstatus": int64(0), "idx": int64(0), "naming_series": "ACC-PAY-.YYYY.-", "payment_type": q.pt,
		"payment_order_status": "Initiated", "posting_date": q.today, "company": inv.str("company"), "party_type": "Customer",
		"party": inv.str("customer"), "party_name": inv.str("customer_name"), "book_advance_payments_in_separate_party_account": int64(0),
		"reconcile_on_advance_payment_date": int64(0), "party_balance": s.balance("", "Customer", inv.str("customer"), q.today),
		"paid_amount": amount, "received_amount": amount, "base_paid_amount": amount, "base_received_amount": amount,
		"source_exchange_rate": units(1), "target_exchange_rate": units(1),
		"paid_amount_after_tax": dec(0), "base_paid_amount_after_tax": dec(0), "received_amount_after_tax": dec(0),
		"base_received_amount_after_tax": dec(0), "total_allocated_amount": amount, "base_total_allocated_amount": amount,
		"unallocated_amount": dec(0), "difference_amount": dec(0), "apply_tax_withholding_amount": int64(0),
		"base_total_taxes_and_charges": dec(0), "total_taxes_and_charges": dec(0), "reference_date": q.refDate,
		"status": "Draft", "custom_remarks": int64(0), "is_opening": "No", "taxes": []*record{}, "deductions": []*record{},
	} {
		pe.f[k] = v
	}
	if q.pt == "Pay" && !q.hasPartyAmount && q.out == 0 {
		pe.f["total_allocated_amount"], pe.f["base_total_allocated_amount"] = dec(0), dec(0)
	}
}

// draftAccounts sets paid_from and paid_to (the party's receivable and the bank, swapped for
// Pay) with their currency, type and balance.
func (s *Site) draftAccounts(pe *record, q peQuery) {
	partySide, bankSide := "paid_from", "paid_to"
	if q.pt == "Pay" {
		partySide, bankSide = "paid_to", "paid_from"
	}
	for side, acct := range map[string]string{partySide: q.inv.str("debit_to"), bankSide: q.bank} {
		a := s.get("Account", acct)
		if a == nil {
			continue
		}
		pe.f[side] = a.name()
		pe.f[side+"_account_currency"] = a.str("account_currency")
		if t := a.str("account_type"); t != "" {
			pe.f[side+"_account_type"] = t
		}
		pe.f[side+"_account_balance"] = s.balance(a.name(), "", "", q.today)
	}
}

// draftReference is the entry's one reference row: the whole invoice, or party_amount of it.
func (s *Site) draftReference(q peQuery, rowRate dec) *record {
	inv := q.inv
	row := newRecord("Payment Entry Reference")
	rowTotal := inv.dec("rounded_total")
	if rowTotal == 0 {
		rowTotal = inv.dec("grand_total")
	}
	rowOut, rowAlloc := q.out, q.out
	if q.hasPartyAmount {
		rowTotal, rowOut, rowAlloc = q.partyAmount, q.partyAmount, q.partyAmount
	}
	for k, v := range map[string]any{"docstatus": int64(0), "idx": int64(1), "reference_doctype": siDT, "reference_name": inv.name(),
		"due_date": inv.str("due_date"), "payment_term_outstanding": dec(0), "total_amount": rowTotal, "outstanding_amount": rowOut,
		"allocated_amount": rowAlloc, "exchange_rate": rowRate, "exchange_gain_loss": dec(0), "account": inv.str("debit_to"),
		"payment_request_outstanding": dec(0), "parentfield": "references", "parenttype": peDT, "__islocal": int64(1),
		"modified": s.peekStamp(), "modified_by": q.user} {
		row.f[k] = v
	}
	if q.out == 0 && !q.hasPartyAmount {
		row.f["exchange_rate"] = dec(0)
		delete(row.f, "account")
		delete(row.f, "modified")
		delete(row.f, "modified_by")
	}
	return row
}

// draftTermReferences is get_reference_as_per_payment_terms: one copy of row per term with an
// outstanding, allocating that term's outstanding whatever party_amount says (15.71.1 does not
// spread party_amount over the terms: the difference shows in difference_amount). It sets the
// entry's allocated totals, and for Receive its unallocated and difference amounts.
func draftTermReferences(pe *record, q peQuery, row *record, amount, rowRate dec) []*record {
	inv, company := q.inv, q.company
	var rows []*record
	var alloc dec
	for _, ps := range inv.rows("payment_schedule") {
		t := ps.dec("payment_amount") - ps.dec("paid_amount")
		if inv.str("currency") != company.str("default_currency") && inv.str("party_account_currency") == company.str("default_currency") {
			t = t.mul(inv.dec("conversion_rate")).round(2)
		}
		if t == 0 {
			continue
		}
		r := row.clone()
		r.f["payment_term"], r.f["payment_term_outstanding"], r.f["allocated_amount"] = ps.str("payment_term"), t, t
		rows = append(rows, r)
		alloc += t
	}
	pe.f["total_allocated_amount"] = alloc.abs()
	pe.f["base_total_allocated_amount"] = alloc.abs().mul(rowRate).round(2)
	if q.pt == "Receive" {
		var unalloc dec
		if alloc < amount {
			unalloc = amount - alloc
		}
		pe.f["unallocated_amount"] = unalloc
		pe.f["difference_amount"] = (pe.dec("base_total_allocated_amount") + unalloc.mul(rowRate) - pe.dec("base_received_amount")).round(2)
	}
	return rows
}
