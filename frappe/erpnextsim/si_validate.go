package erpnextsim

// validateSI fills in and checks a Sales Invoice the way ERPNext's validate does: defaults
// from the company and the customer, the items' amounts, the totals and their rounding, the
// outstanding amount, the payment schedule, then the mandatory fields.
func (sis *salesInvoices) validateSI(c *call, si *record, name string, draft bool) *fErr {
	companyCur, e := sis.siDefaults(si)
	if e != nil {
		return e
	}
	var extra []string
	if len(si.rows("items")) == 0 {
		extra = append(extra, "Items|items")
	}
	rate := si.dec("conversion_rate")
	total, qtySum := siItems(si, rate)
	grandOrRounded := siTotals(si, total, qtySum, rate, companyCur)
	if si.int("is_return") == 1 {
		if e := sis.validateReturn(c, si); e != nil {
			return e
		}
	}
	if si.docstatus() == 0 || draft && si.docstatus() == 1 {
		out := grandOrRounded
		if si.str("party_account_currency") != si.str("currency") {
			out = grandOrRounded.mul(rate).round(2)
		}
		if sis.returnOriginal(si) != nil {
			out = 0
		}
		si.f["outstanding_amount"] = out
	}
	sis.siSchedule(si, grandOrRounded, rate)
	si.f["status"] = sis.siStatus(si)
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

// siDefaults checks the invoice's links, company, currency and due date and sets the header
// fields ERPNext defaults, also those fetched from the customer and the receivable account. It
// returns the company's currency.
func (sis *salesInvoices) siDefaults(si *record) (companyCur string, e *fErr) {
	if e := sis.links.validateLinks(si, false); e != nil {
		return "", e
	}
	setDefault(si, "company", sis.company)
	company := sis.db.get("Company", si.str("company"))
	if company == nil {
		return "", throw("Could not find Company: " + si.str("company")).as("LinkValidationError")
	}
	companyCur = company.str("default_currency")
	today := sis.db.today()
	setDefault(si, "posting_date", today)
	setDefault(si, "posting_time", sis.now().In(ist).Format("15:04:05.000000"))
	if cust := sis.db.get("Customer", si.str("customer")); cust != nil {
		setDefault(si, "currency", cust.str("default_currency"))
	}
	setDefault(si, "currency", companyCur)
	if si.str("currency") == companyCur {
		si.f["conversion_rate"] = units(1)
	} else if si.dec("conversion_rate") == 0 {
		return "", throw("erpnextsim: conversion_rate is required for a " + si.str("currency") + " invoice (no Currency Exchange records)")
	}
	defaults := map[string]any{
		"naming_series": "ACC-SINV-.YYYY.-", "set_posting_time": int64(0), "is_pos": int64(0), "is_consolidated": int64(0),
		"is_return": int64(0), "update_outstanding_for_self": int64(1), "update_billed_amount_in_sales_order": int64(0),
		"update_billed_amount_in_delivery_note": int64(1), "is_debit_note": int64(0), "selling_price_list": "Standard Selling",
		"price_list_currency": si.str("currency"), "plc_conversion_rate": si.dec("conversion_rate"), "ignore_pricing_rule": int64(0),
		"update_stock": int64(0), "disable_rounded_total": int64(0), "apply_discount_on": "Grand Total", "is_opening": "No",
		"debit_to": sis.parties.partyAccount(si.str("customer"), company), "against_income_account": IncomeAccount, "language": "en",
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
	if cust := sis.db.get("Customer", si.str("customer")); cust != nil {
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
	if debit := sis.db.get("Account", si.str("debit_to")); debit != nil {
		cur := debit.str("account_currency")
		if cur == "" {
			cur = companyCur
		}
		si.f["party_account_currency"] = cur
	}
	setDefault(si, "due_date", si.str("posting_date"))
	if si.str("due_date") < si.str("posting_date") {
		return "", erpThrow("Due Date cannot be before Posting / Supplier Invoice Date")
	}
	return companyCur, nil
}

// siItems sets each item's amounts (qty × rate, and in company currency at rate) and the
// defaults of an item row; it returns the invoice's total and its quantity.
func siItems(si *record, rate dec) (total, qtySum dec) {
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
	return total, qtySum
}

// siTotals sets the invoice's totals, their rounding (rounded to whole units unless
// disable_rounded_total) and the amounts in words; it returns the amount the invoice asks for,
// the rounded total or the grand total.
func siTotals(si *record, total, qtySum, rate dec, companyCur string) dec {
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
	return grandOrRounded
}

// siSchedule gives an invoice without a payment schedule one: the terms of its Payment Terms
// Template, else one row of the whole amount (a return gets none).
func (sis *salesInvoices) siSchedule(si *record, grandOrRounded, rate dec) {
	if len(si.rows("payment_schedule")) == 0 && len(si.rows("items")) > 0 && si.str("payment_terms_template") != "" {
		if sched := sis.terms.templateSchedule(si, grandOrRounded, rate); len(sched) > 0 {
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
}
