package erpnextsim

// peMissingValues is V1 (set_missing_values: party, accounts, currencies,
// balances) and V2 (reference rows refreshed from their invoices). It returns
// the first referenced invoice (for exchange rates).
func (pes *paymentEntries) peMissingValues(c *call, pe, company *record, isNew bool) (*record, *fErr) {
	pt := pe.str("payment_type")
	if pe.str("party_type") == "" {
		return nil, erpThrow("Party Type is mandatory")
	}
	if pe.str("party") == "" {
		return nil, erpThrow("Party is mandatory")
	}
	if pe.str("party_type") != "Customer" {
		return nil, notModelled("party type " + pe.str("party_type"))
	}
	cust := pes.db.get("Customer", pe.str("party"))
	pe.f["party_name"] = cust.str("customer_name")
	partyField, _ := peSides(pt)
	if pe.str(partyField) == "" && (pt == "Receive" || pt == "Pay") {
		pe.f[partyField] = pes.parties.partyAccount(pe.str("party"), company)
	}
	partyBalance := pes.ledger.balance("", "Customer", pe.str("party"), pe.str("posting_date"))
	if !isNew && pe.f["party_balance"] != nil {
		partyBalance = pe.dec("party_balance") // set_missing_values keeps a stored balance
	}
	pe.f["party_balance"] = partyBalance
	for _, side := range []string{"paid_from", "paid_to"} {
		if e := pes.peAccount(pe, company, side, side == partyField, partyBalance, isNew); e != nil {
			return nil, e
		}
	}
	return pes.peRefDetails(c, pe), nil
}

// peAccount sets the details of the account on side (paid_from or paid_to), when one is
// named: its currency (the company's when it has none), type and balance. partyBalance is the
// balance shown when side is the party's.
func (pes *paymentEntries) peAccount(pe, company *record, side string, partySide bool, partyBalance dec, isNew bool) *fErr {
	acctName := pe.str(side)
	if acctName == "" {
		return nil
	}
	// get_account_details only asks whether the account is readable under Payment
	// Entry (frappe.get_list, no is_group or company filter): a group account or one of
	// another company passes here and is refused on submit by the ledger (checkGL, S2).
	a := pes.db.get("Account", acctName)
	if a == nil || a.int("disabled") == 1 {
		return erpThrow("Account: " + acctName + " is not permitted under Payment Entry")
	}
	pe.f[side] = a.name()
	cur := a.str("account_currency")
	if cur == "" {
		cur = company.str("default_currency")
	}
	pe.f[side+"_account_currency"] = cur
	if t := a.str("account_type"); t != "" {
		pe.f[side+"_account_type"] = t
	}
	// Recorded quirk: on insert the bank side keeps what the client sent (0.0 when
	// nothing: recordings 07-*, R04; the balance get_payment_entry proposed when the
	// client copies it: H05), the party side shows the party's balance; a later save
	// computes the bank balance.
	switch {
	case partySide:
		pe.f[side+"_account_balance"] = partyBalance
	case isNew:
		pe.f[side+"_account_balance"] = pe.dec(side + "_account_balance")
	default:
		pe.f[side+"_account_balance"] = pes.ledger.balance(a.name(), "", "", pe.str("posting_date"))
	}
	return nil
}

// peRefDetails is V2, set_missing_ref_details(force=True): each allocated Sales Invoice row
// refreshed from its invoice. It returns the first such invoice, nil when none.
func (pes *paymentEntries) peRefDetails(c *call, pe *record) *record {
	var firstInv *record
	for _, row := range pe.rows("references") {
		if row.dec("allocated_amount") == 0 || row.str("reference_doctype") != "Sales Invoice" {
			continue
		}
		inv := pes.db.get("Sales Invoice", row.str("reference_name"))
		if inv == nil {
			continue
		}
		if firstInv == nil {
			firstInv = inv
		}
		pes.refDetails(c, row, inv)
	}
	return firstInv
}
