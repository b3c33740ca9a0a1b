package erpnextsim

import "fmt"

// Payment Entry "Internal Transfer" (recordings 73-*…76-*): money moved between two of the
// company's accounts, e.g. the Razorpay clearing account into the bank. It follows erpnext
// 15.71.1 payment_entry.py validate for that payment type as read in the recorded tree (not
// copied):
//
//   - no party: party, references and the allocation totals are cleared (party_balance,
//     total_allocated_amount, unallocated_amount read 0.0); both account balances are the
//     accounts' real balances on the posting date (73-*: 11951.25 and 29292.0);
//   - received_amount is NOT overwritten by paid_amount; base amounts at the exchange rates;
//   - paid ≠ received in one currency is booked, not refused: set_exchange_gain_loss adds (or
//     updates) a deduction row on the company's exchange_gain_loss_account, cost center the
//     company's, is_exchange_gain_loss 1, amount base_paid − base_received
//     (74-pe-internal-transfer-gross-no-deductions-*: 236 to Exchange Gain/Loss - EC);
//   - difference_amount = base_paid − base_received − Σ deductions, so explicit fee deductions
//     next to that automatic row leave −236 and submit is refused "Difference Amount must be
//     zero" (74-pe-internal-transfer-gross-with-deductions-*, -net-with-deductions-draft);
//   - received > paid in one currency → 417 "Received Amount cannot be greater than Paid Amount";
//   - a Bank-type paid_from needs reference_no and reference_date;
//   - title "{paid_from} - {paid_to}"; remarks replaced (custom_remarks 0): "Amount {cur}
//     {paid} transferred from {from} to {to}", the reference line, one line per deduction;
//   - GL (75-*): Cr paid_from base_paid, Dr paid_to base_received (against each other, cost
//     center the entry's), Dr each deduction against paid_from with its cost center.

func (pes *paymentEntries) validateInternalTransfer(c *call, pe, company *record, name string) *fErr {
	for _, k := range []string{"party_type", "party", "party_name"} {
		delete(pe.f, k)
	}
	pe.f["references"] = []*record{}
	pe.f["party_balance"], pe.f["total_allocated_amount"], pe.f["base_total_allocated_amount"], pe.f["unallocated_amount"] = dec(0), dec(0), dec(0), dec(0)
	companyCur := company.str("default_currency")
	for _, side := range []string{"paid_from", "paid_to"} {
		if e := pes.transferAccount(pe, side, companyCur); e != nil {
			return e
		}
	}
	fromCur, toCur := pe.str("paid_from_account_currency"), pe.str("paid_to_account_currency")
	if pe.str("paid_from") != "" {
		if fromCur == companyCur {
			pe.f["source_exchange_rate"] = units(1)
		} else if pe.dec("source_exchange_rate") == 0 {
			return notModelled("the exchange rate lookup for an Internal Transfer from " + fromCur + " (send source_exchange_rate)")
		}
	}
	if fromCur == toCur {
		pe.f["target_exchange_rate"] = pe.f["source_exchange_rate"]
	} else if pe.str("paid_to") != "" && pe.dec("target_exchange_rate") == 0 {
		if toCur != companyCur {
			return notModelled("the exchange rate lookup for an Internal Transfer to " + toCur + " (send target_exchange_rate)")
		}
		pe.f["target_exchange_rate"] = units(1)
	}
	for _, k := range []struct{ f, label string }{{"paid_amount", "Paid Amount"}, {"received_amount", "Received Amount"},
		{"source_exchange_rate", "Source Exchange Rate"}, {"target_exchange_rate", "Target Exchange Rate"}} {
		if pe.dec(k.f) == 0 {
			return erpThrow(k.label + " is mandatory")
		}
	}
	pes.transferAmounts(c, pe, company)
	if fromCur == toCur && pe.dec("paid_amount") < pe.dec("received_amount") {
		return erpThrow("Received Amount cannot be greater than Paid Amount")
	}
	if pe.str("paid_from_account_type") == "Bank" && (pe.str("reference_no") == "" || pe.str("reference_date") == "") {
		return erpThrow("Reference No and Reference Date is mandatory for Bank transaction")
	}
	pe.f["title"] = pe.str("paid_from") + " - " + pe.str("paid_to")
	if pe.int("custom_remarks") == 0 {
		pe.f["remarks"] = transferRemarks(pe, companyCur)
	}
	peFinish(pe, companyCur)
	return validateMandatory(pe, name, nil)
}

// transferAccount is set_missing_values for one side: the account must be readable under
// Payment Entry; its currency, type and balance on the posting date are copied.
func (pes *paymentEntries) transferAccount(pe *record, side, companyCur string) *fErr {
	name := pe.str(side)
	if name == "" {
		return nil
	}
	a := pes.db.get("Account", name)
	if a == nil || a.int("disabled") == 1 {
		return erpThrow("Account: " + name + " is not permitted under Payment Entry")
	}
	pe.f[side] = a.name()
	cur := a.str("account_currency")
	if cur == "" {
		cur = companyCur
	}
	pe.f[side+"_account_currency"] = cur
	if t := a.str("account_type"); t != "" {
		pe.f[side+"_account_type"] = t
	}
	pe.f[side+"_account_balance"] = pes.ledger.balance(a.name(), "", "", pe.str("posting_date"))
	return nil
}

// transferAmounts is set_amounts and set_amounts_after_tax for an Internal Transfer, with the
// automatic exchange gain/loss deduction.
func (pes *paymentEntries) transferAmounts(c *call, pe, company *record) {
	paid, received := pe.dec("paid_amount"), pe.dec("received_amount")
	basePaid, baseReceived := paid.mul(pe.dec("source_exchange_rate")).round(2), received.mul(pe.dec("target_exchange_rate")).round(2)
	pe.f["base_paid_amount"], pe.f["base_received_amount"] = basePaid, baseReceived
	pes.exchangeGainLossRow(c, pe, company, (basePaid - baseReceived).round(2))
	var deducted dec
	for _, d := range pe.rows("deductions") {
		setDefault(d, "is_exchange_gain_loss", int64(0))
		deducted += d.dec("amount")
	}
	pe.f["difference_amount"] = (basePaid - baseReceived - deducted).round(2)
	pe.f["paid_amount_after_tax"], pe.f["received_amount_after_tax"] = paid.round(2), received.round(2)
	pe.f["base_paid_amount_after_tax"] = paid.round(2).mul(pe.dec("source_exchange_rate")).round(2)
	pe.f["base_received_amount_after_tax"] = received.round(2).mul(pe.dec("target_exchange_rate")).round(2)
	pe.f["base_total_taxes_and_charges"], pe.f["total_taxes_and_charges"] = dec(0), dec(0)
}

// exchangeGainLossRow is set_exchange_gain_loss: one is_exchange_gain_loss deduction carrying
// amount, or none when amount is 0. A company without exchange_gain_loss_account or
// cost_center gets the warning ERPNext prints (a refusal once submitted).
func (pes *paymentEntries) exchangeGainLossRow(c *call, pe, company *record, amount dec) {
	var rows []*record
	var egl *record
	for _, d := range pe.rows("deductions") {
		if d.int("is_exchange_gain_loss") == 1 {
			if egl != nil {
				continue // the others are removed
			}
			egl = d
		}
		rows = append(rows, d)
	}
	if amount == 0 {
		var kept []*record
		for _, d := range rows {
			if d != egl {
				kept = append(kept, d)
			}
		}
		pe.f["deductions"] = kept
		return
	}
	if egl == nil {
		for _, f := range []struct{ field, label string }{{"exchange_gain_loss_account", "Exchange Gain / Loss Account"}, {"cost_center", "Default Cost Center"}} {
			if company.str(f.field) == "" {
				c.infos = append(c.infos, srvMsg{message: fmt.Sprintf("Please set %s in Company %s to account for Exchange Gain / Loss",
					f.label, pes.links.formLink("Company", company.name())), title: "Missing Default in Company", indicator: "yellow"})
				pe.f["deductions"] = rows
				return
			}
		}
		egl = newRecord("Payment Entry Deduction")
		egl.f["account"], egl.f["cost_center"], egl.f["is_exchange_gain_loss"] = company.str("exchange_gain_loss_account"), company.str("cost_center"), int64(1)
		rows = append(rows, egl)
	}
	egl.f["amount"] = amount
	pe.f["deductions"] = rows
}

// transferRemarks is set_remarks for an Internal Transfer (73-pe-internal-transfer-net-submitted).
func transferRemarks(pe *record, companyCur string) string {
	text := fmt.Sprintf("Amount %s %s transferred from %s to %s", pe.str("paid_from_account_currency"), pyStr(pe, "paid_amount"), pe.str("paid_from"), pe.str("paid_to"))
	if pe.str("reference_no") != "" {
		text += fmt.Sprintf("\nTransaction reference no %s dated %s", pe.str("reference_no"), pe.str("reference_date"))
	}
	for _, d := range pe.rows("deductions") {
		if d.dec("amount") != 0 {
			text += fmt.Sprintf("\nAmount %s %s deducted against %s", companyCur, pyStr(d, "amount"), d.str("account"))
		}
	}
	return text
}

// internalTransferGLLines is build_gl_map for an Internal Transfer (75-pe-internal-transfer-*).
func internalTransferGLLines(pe *record) []glLine {
	from, to := pe.str("paid_from"), pe.str("paid_to")
	lines := []glLine{
		{account: from, credit: pe.dec("base_paid_amount"), creditAcc: pe.dec("paid_amount"), against: to, costCenter: pe.str("cost_center")},
		{account: to, debit: pe.dec("base_received_amount"), debitAcc: pe.dec("received_amount"), against: from, costCenter: pe.str("cost_center")},
	}
	for _, d := range pe.rows("deductions") {
		if d.dec("amount") != 0 {
			lines = append(lines, glLine{account: d.str("account"), debit: d.dec("amount"), debitAcc: d.dec("amount"), against: from, costCenter: d.str("cost_center")})
		}
	}
	return lines
}
