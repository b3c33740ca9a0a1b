package erpnextsim

const siDT = "Sales Invoice"

// insertSalesInvoice is POST /api/resource/Sales Invoice: customer, items
// [{item_code, qty, rate}], optional due_date, currency (+ conversion_rate),
// posting_date, docstatus 1 to submit. Totals are Σ qty×rate; outstanding is
// the rounded grand total (spec §4). Taxes, returns and payment terms are not
// modelled.
func (s *Site) insertSalesInvoice(c *call, body map[string]any) (*fErr, step) {
	si := fromBody(siDT, body, nil)
	ds := si.docstatus()
	if ds == 2 {
		_, e := docstatusTransition(0, 2)
		return e, nil
	}
	name := s.clientName(body)
	if c.fixedName != "" {
		name = c.fixedName
	}
	display := name
	if display == "" {
		display = s.seriesName("ACC-SINV-", false)
	}
	if e := s.validateSI(c, si, display, true); e != nil {
		return e, nil
	}
	if name != "" && s.get(siDT, name) != nil {
		return duplicateName(siDT, name), nil
	}
	if ds == 1 {
		if e := s.checkFiscalYear(si.str("posting_date"), si.str("company")); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		n := name
		if n == "" {
			n = s.seriesName("ACC-SINV-", true)
		} else {
			s.noteName("ACC-SINV-", n)
		}
		s.stampNew(si, n, c.user)
		s.put(si)
		if ds == 1 {
			s.applySubmitSI(c, si)
		}
		out := renderUnsaved(si, c.keepNulls(), "items")
		if ds == 1 {
			preLedger(out)
		}
		return out
	}
}

// updateSalesInvoice handles PUT: save a draft, submit, cancel (refused while
// a live Payment Entry references the invoice).
func (s *Site) updateSalesInvoice(c *call, cur *record, body map[string]any) (*fErr, step) {
	to := cur.docstatus()
	if v, ok := body["docstatus"]; ok {
		to = int64(cint(v))
	}
	action, e := docstatusTransition(cur.docstatus(), to)
	if e != nil {
		return e, nil
	}
	switch action {
	case "cancel":
		if pe := s.linkedEntry(cur.name(), func(pe *record) bool { return pe.docstatus() == 1 }); pe != nil {
			return throw("Cannot delete or cancel because Sales Invoice " + cur.name() + " is linked with Payment Entry " + pe.name()).as("LinkExistsError"), nil
		}
		return nil, func() any {
			cur.f["docstatus"] = int64(2)
			cur.f["status"] = "Cancelled"
			s.touch(cur, c.user)
			s.stampRows(cur, cur.str("modified"), c.user)
			s.cancelGL(siDT, cur.name())
			return cur.render(c.keepNulls())
		}
	case "update_after_submit":
		si := fromBody(siDT, body, cur)
		if e := updateAfterSubmit(cur, si); e != nil {
			return e, nil
		}
		return nil, func() any {
			s.touch(si, c.user)
			s.put(si)
			return si.render(c.keepNulls())
		}
	}
	si := fromBody(siDT, body, cur)
	si.f["docstatus"] = to
	if e := s.validateSI(c, si, cur.name(), true); e != nil {
		return e, nil
	}
	if to == 1 {
		if e := s.checkFiscalYear(si.str("posting_date"), si.str("company")); e != nil {
			return e, nil
		}
	}
	return nil, func() any {
		s.touch(si, c.user)
		s.stampRows(si, si.str("modified"), c.user)
		s.put(si)
		if to == 1 {
			s.applySubmitSI(c, si)
		}
		return si.render(c.keepNulls())
	}
}

func (s *Site) validateSI(c *call, si *record, name string, draft bool) *fErr {
	if e := s.validateLinks(si, false); e != nil {
		return e
	}
	setDefault(si, "company", s.company)
	company := s.get("Company", si.str("company"))
	if company == nil {
		return throw("Could not find Company: " + si.str("company")).as("LinkValidationError")
	}
	companyCur := company.str("default_currency")
	today := s.today()
	setDefault(si, "posting_date", today)
	setDefault(si, "posting_time", s.now().In(ist).Format("15:04:05.000000"))
	if cust := s.get("Customer", si.str("customer")); cust != nil {
		setDefault(si, "currency", cust.str("default_currency"))
	}
	setDefault(si, "currency", companyCur)
	if si.str("currency") == companyCur {
		si.f["conversion_rate"] = units(1)
	} else if si.dec("conversion_rate") == 0 {
		return throw("erpnextsim: conversion_rate is required for a " + si.str("currency") + " invoice (no Currency Exchange records)")
	}
	defaults := map[string]any{
		"naming_series": "ACC-SINV-.YYYY.-", "set_posting_time": int64(0), "is_pos": int64(0), "is_consolidated": int64(0),
		"is_return": int64(0), "update_outstanding_for_self": int64(1), "update_billed_amount_in_sales_order": int64(0),
		"update_billed_amount_in_delivery_note": int64(1), "is_debit_note": int64(0), "selling_price_list": "Standard Selling",
		"price_list_currency": si.str("currency"), "plc_conversion_rate": si.dec("conversion_rate"), "ignore_pricing_rule": int64(0),
		"update_stock": int64(0), "disable_rounded_total": int64(0), "apply_discount_on": "Grand Total", "is_opening": "No",
		"debit_to": s.partyAccount(si.str("customer"), company), "against_income_account": IncomeAccount, "language": "en",
		"remarks": "No Remarks", "is_internal_customer": int64(0), "is_discounted": int64(0), "po_no": "",
		"group_same_items": int64(0), "tax_category": "",
		"use_company_roundoff_cost_center": int64(0), "total_net_weight": dec(0), "base_change_amount": dec(0),
		"change_amount": dec(0), "redeem_loyalty_points": int64(0), "only_include_allocated_payments": int64(0),
		"ignore_default_payment_terms_template": int64(0), "additional_discount_percentage": dec(0),
		"is_cash_or_non_trade_discount": int64(0), "loyalty_points": int64(0), "total_billing_hours": dec(0),
		"total_billing_amount": dec(0), "write_off_outstanding_amount_automatically": int64(0), "loyalty_amount": dec(0),
		"allocate_advances_automatically": int64(0),
	}
	for k, v := range defaults {
		setDefault(si, k, v)
	}
	if cust := s.get("Customer", si.str("customer")); cust != nil {
		si.f["customer_name"] = cust.str("customer_name")
		si.f["title"] = cust.str("customer_name")
		// fetched from the customer: a customer without them leaves them NULL
		// (erpnext-recorded-connector/H01, 81-*)
		for _, k := range []string{"customer_group", "territory"} {
			if v := cust.str(k); v != "" {
				setDefault(si, k, v)
			}
		}
	}
	if debit := s.get("Account", si.str("debit_to")); debit != nil {
		cur := debit.str("account_currency")
		if cur == "" {
			cur = companyCur
		}
		si.f["party_account_currency"] = cur
	}
	setDefault(si, "due_date", si.str("posting_date"))
	if si.str("due_date") < si.str("posting_date") {
		return erpThrow("Due Date cannot be before Posting / Supplier Invoice Date")
	}
	var extra []string
	if len(si.rows("items")) == 0 {
		extra = append(extra, "Items|items")
	}
	rate := si.dec("conversion_rate")
	var total, qtySum dec
	for _, it := range si.rows("items") {
		if _, ok := it.f["qty"]; !ok {
			it.f["qty"] = units(1)
		}
		setDefault(it, "rate", dec(0))
		amount := it.dec("qty").mul(it.dec("rate")).round(2)
		for k, v := range map[string]any{"amount": amount, "base_rate": it.dec("rate").mul(rate).round(2), "base_amount": amount.mul(rate).round(2),
			"net_rate": it.dec("rate"), "net_amount": amount, "base_net_rate": it.dec("rate").mul(rate).round(2), "base_net_amount": amount.mul(rate).round(2),
			"price_list_rate": it.dec("rate"), "base_price_list_rate": it.dec("rate").mul(rate).round(2), "stock_uom_rate": it.dec("rate"),
			"stock_qty": it.dec("qty"), "conversion_factor": units(1)} {
			it.f[k] = v
		}
		for k, v := range map[string]any{"item_name": it.str("item_code"), "description": it.str("item_code"), "uom": "Nos", "stock_uom": "Nos",
			"income_account": IncomeAccount, "expense_account": "Cost of Goods Sold - EC", "cost_center": CostCenter,
			"is_free_item": int64(0), "grant_commission": int64(1), "delivered_by_supplier": int64(0), "is_fixed_asset": int64(0),
			"warehouse": "Stores - EC", "image": "", "item_group": "All Item Groups", "margin_type": "", "item_tax_rate": "{}",
			"has_item_scanned": int64(0), "enable_deferred_revenue": int64(0), "use_serial_batch_fields": int64(0),
			"allow_zero_valuation_rate": int64(0), "page_break": int64(0), "delivered_qty": dec(0), "company_total_stock": dec(0),
			"margin_rate_or_amount": dec(0), "discount_percentage": dec(0), "discount_amount": dec(0), "actual_qty": dec(0),
			"base_rate_with_margin": dec(0), "rate_with_margin": dec(0), "actual_batch_qty": dec(0), "weight_per_unit": dec(0),
			"total_weight": dec(0), "incoming_rate": dec(0), "distributed_discount_amount": dec(0)} {
			setDefault(it, k, v)
		}
		total += amount
		qtySum += it.dec("qty")
	}
	rounded := total
	if si.int("disable_rounded_total") == 0 {
		rounded = total.round(0)
	} else {
		rounded = 0
	}
	grandOrRounded, adjustment := rounded, rounded-total
	if si.int("disable_rounded_total") == 1 {
		// set_rounded_total: rounded totals 0, rounding_adjustment left at 0
		grandOrRounded, adjustment = total, 0
	}
	for k, v := range map[string]any{"total_qty": qtySum, "total": total, "net_total": total, "grand_total": total,
		"base_total": total.mul(rate).round(2), "base_net_total": total.mul(rate).round(2), "base_grand_total": total.mul(rate).round(2),
		"rounded_total": rounded, "base_rounded_total": rounded.mul(rate).round(2), "rounding_adjustment": adjustment,
		"base_rounding_adjustment": adjustment.mul(rate).round(2), "total_taxes_and_charges": dec(0),
		"base_total_taxes_and_charges": dec(0), "total_advance": dec(0), "discount_amount": dec(0), "base_discount_amount": dec(0),
		"paid_amount": dec(0), "base_paid_amount": dec(0), "write_off_amount": dec(0), "base_write_off_amount": dec(0),
		"amount_eligible_for_commission": total, "commission_rate": dec(0), "total_commission": dec(0)} {
		si.f[k] = v
	}
	si.f["in_words"] = moneyInWords(grandOrRounded.abs(), si.str("currency")) // returns too: "INR Three Hundred only." (recording 40-*)
	si.f["base_in_words"] = moneyInWords(grandOrRounded.mul(rate).round(2).abs(), companyCur)
	if si.int("is_return") == 1 {
		if e := s.validateReturn(c, si); e != nil {
			return e
		}
	}
	if si.docstatus() == 0 || draft && si.docstatus() == 1 {
		out := grandOrRounded
		if si.str("party_account_currency") != si.str("currency") {
			out = grandOrRounded.mul(rate).round(2)
		}
		if s.returnOriginal(si) != nil {
			out = 0
		}
		si.f["outstanding_amount"] = out
	}
	if len(si.rows("payment_schedule")) == 0 && len(si.rows("items")) > 0 && si.str("payment_terms_template") != "" {
		if sched := s.templateSchedule(si, grandOrRounded, rate); len(sched) > 0 {
			si.f["payment_schedule"] = sched
			due := ""
			for _, ps := range sched {
				due = max(due, ps.str("due_date"))
			}
			si.f["due_date"] = due // set_due_date: the latest term's due date
		}
	}
	if len(si.rows("payment_schedule")) == 0 && len(si.rows("items")) > 0 && si.int("is_return") == 0 {
		// a return gets no schedule (erpnext-recorded-connector/H02)
		ps := newRecord("Payment Schedule")
		base := grandOrRounded.mul(rate).round(2)
		for k, v := range map[string]any{"due_date": si.str("due_date"), "invoice_portion": units(100), "discount": dec(0),
			"payment_amount": grandOrRounded, "outstanding": grandOrRounded, "paid_amount": dec(0), "discounted_amount": dec(0),
			"base_payment_amount": base, "base_outstanding": base, "base_paid_amount": dec(0)} {
			ps.f[k] = v
		}
		si.f["payment_schedule"] = []*record{ps}
	}
	si.f["status"] = s.siStatus(si)
	for _, t := range si.meta().fields {
		if t.typ == ftTable {
			if _, ok := si.f[t.name]; !ok {
				si.f[t.name] = []*record{}
			}
		}
	}
	if si.str("customer") == "" {
		extra = append([]string{"Customer|customer"}, extra...)
	}
	return validateMandatory(si, name, extra)
}

// applySubmitSI posts the invoice's ledger: receivable debit, income credit,
// rounding difference to the round-off account.
func (s *Site) applySubmitSI(c *call, si *record) {
	rate := si.dec("conversion_rate")
	against := si.name()
	if orig := s.returnOriginal(si); orig != nil {
		against = orig.name()
		orig.f["outstanding_amount"] = orig.dec("outstanding_amount") + partyTotal(si)
		s.touch(orig, c.user)
		orig.f["status"] = s.siStatus(orig)
	}
	lines := []glLine{{account: si.str("debit_to"), partyType: "Customer", party: si.str("customer"),
		debit:    si.dec("base_rounded_total") + b2d(si.dec("base_rounded_total") == 0)*si.dec("base_grand_total"),
		debitAcc: partyTotal(si), againstType: siDT, againstNo: against, against: IncomeAccount}}
	for _, it := range si.rows("items") {
		lines = append(lines, glLine{account: it.str("income_account"), credit: it.dec("amount").mul(rate).round(2),
			creditAcc: it.dec("amount").mul(rate).round(2), against: si.str("customer"), costCenter: it.str("cost_center")})
	}
	if adj := si.dec("base_rounding_adjustment"); adj != 0 {
		// Cr Round Off the rounding up, Dr it the rounding down (postGL turns the negative
		// credit), on the company's round-off account and cost center (81-*-gl-entries)
		acct, cc := "Round Off - EC", CostCenter
		if co := s.get("Company", si.str("company")); co != nil {
			acct, cc = co.str("round_off_account"), co.str("round_off_cost_center")
		}
		lines = append(lines, glLine{account: acct, credit: adj, creditAcc: adj, against: si.str("customer"), costCenter: cc})
	}
	s.postGL(siDT, si, si.str("posting_date"), lines, c.user)
	si.f["status"] = s.siStatus(si)
}

func b2d(b bool) dec { return dec(b2i(b)) }

// siStatus is the Sales Invoice status of spec §4, first match wins; Overdue
// (from the payment schedule, see overdue) before Partly Paid.
func (s *Site) siStatus(si *record) string {
	switch si.docstatus() {
	case 0:
		return "Draft"
	case 2:
		return "Cancelled"
	}
	if si.int("is_return") == 1 {
		return "Return"
	}
	out := si.dec("outstanding_amount")
	total := si.dec("rounded_total")
	if si.int("disable_rounded_total") == 1 || total == 0 {
		total = si.dec("grand_total")
	}
	if si.str("party_account_currency") != si.str("currency") {
		total = si.dec("base_rounded_total")
		if si.int("disable_rounded_total") == 1 || total == 0 {
			total = si.dec("base_grand_total")
		}
	}
	today := s.today()
	switch {
	case overdue(si, total, out, today):
		return "Overdue"
	case out > 0 && out < total:
		return "Partly Paid"
	case out > 0:
		return "Unpaid"
	case out <= 0:
		return "Paid"
	}
	return "Submitted"
}

// refreshStatuses plays ERPNext's daily overdue job once per site day (checked at every
// request), so an invoice turns Overdue as the clock passes its due date (without touching
// modified). Within a day only writes change a status, and they recompute it themselves.
func (s *Site) refreshStatuses() {
	today := s.today()
	if today == s.statusDay {
		return
	}
	s.statusDay = today
	for _, si := range s.docs[siDT] {
		if si.docstatus() == 1 {
			si.f["status"] = s.siStatus(si)
		}
	}
}

// linkedEntry returns the Payment Entry with a reference row naming invoice that keep
// accepts, first by name (from the references.reference_name index); nil when none.
func (s *Site) linkedEntry(invoice string, keep func(*record) bool) *record {
	var best *record
	for _, pe := range s.lookup(peDT, "references.reference_name", indexKey(invoice)) {
		if keep(pe) && (best == nil || pe.name() < best.name()) {
			best = pe
		}
	}
	return best
}
