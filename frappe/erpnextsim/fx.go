package erpnextsim

import (
	"fmt"
	"sort"
	"strings"
)

// Foreign currency receipts (recordings 48-*, 49-*). An invoice in USD booked on a USD
// receivable ("Debtors USD - EC") is paid by an entry whose source_exchange_rate is the rate
// the money actually came in at; its base allocation is valued at that rate, the row keeps the
// invoice's exchange_rate and gets exchange_gain_loss = base at entry rate − base at invoice
// rate, and on submit ERPNext books the gain or loss in a separate, submitted Journal Entry
// (voucher_type "Exchange Gain Or Loss", multi_currency 1) against the company's
// exchange_gain_loss_account. Behaviour followed: erpnext v15 payment_entry.py
// set_total_allocated_amount / set_exchange_gain_loss and accounts_controller.py
// make_exchange_gain_loss_journal (read, not copied).

const jeDT = "Journal Entry" // its fields and rules: journal_entry.go

// foreignParty reports whether a Payment Entry's party account is not in the company currency.
func foreignParty(pe *record, companyCur string) bool {
	partyField, _ := peSides(pe.str("payment_type"))
	cur := pe.str(partyField + "_account_currency")
	return cur != "" && cur != companyCur
}

// partyRate is the entry's own rate for the party side: source rate for Receive, target for Pay.
func partyRate(pe *record) dec {
	if pe.str("payment_type") == "Pay" {
		return pe.dec("target_exchange_rate")
	}
	return pe.dec("source_exchange_rate")
}

// baseAllocated values a reference row in company currency: at the entry's rate when the party
// account is foreign (setting the row's exchange_gain_loss), else at the row's exchange_rate.
func baseAllocated(pe, row *record, companyCur string) dec {
	a := row.dec("allocated_amount")
	atInvoice := a.mul(nz(row.dec("exchange_rate"))).round(2)
	if !foreignParty(pe, companyCur) {
		return atInvoice
	}
	atEntry := a.mul(nz(partyRate(pe))).round(2)
	gain := atEntry - atInvoice
	if pe.str("payment_type") == "Pay" {
		gain = -gain
	}
	row.f["exchange_gain_loss"] = gain
	return atEntry
}

// bookExchangeGainLoss makes the submitted Journal Entry for the rows' exchange_gain_loss
// (recording 49-usd-je-accounts-after) and queues ERPNext's message naming it
// (49-usd-pe-submitted).
func (pes *paymentEntries) bookExchangeGainLoss(c *call, pe *record) {
	company := pes.db.get("Company", pe.str("company"))
	gainAcct := company.str("exchange_gain_loss_account")
	for _, row := range pe.rows("references") {
		gain := row.dec("exchange_gain_loss")
		if gain == 0 {
			continue
		}
		inv := pes.db.get(row.str("reference_doctype"), row.str("reference_name"))
		partyAcct := row.str("account")
		acc := pes.db.get("Account", partyAcct)
		je := newRecord(jeDT)
		party := jeRow(partyAcct, acc.str("account_currency"), row.dec("exchange_rate"), row.str("reference_doctype"), row.str("reference_name"))
		party.f["party_type"], party.f["party"] = pe.str("party_type"), pe.str("party")
		other := jeRow(gainAcct, company.str("default_currency"), units(1), peDT, pe.name())
		amount := gain.abs()
		debitParty := gain > 0 // a gain on a receipt raises the receivable's base value back to what was credited
		if pe.str("payment_type") == "Pay" {
			debitParty = !debitParty
		}
		if debitParty {
			party.f["debit"], other.f["credit"] = amount, amount
		} else {
			party.f["credit"], other.f["debit"] = amount, amount
		}
		for k, v := range map[string]any{"title": "Exchange Gain Or Loss", "voucher_type": "Exchange Gain Or Loss", "naming_series": "ACC-JV-.YYYY.-",
			"company": company.name(), "posting_date": pe.str("posting_date"), "multi_currency": int64(1), "total_debit": amount,
			"total_credit": amount, "difference": dec(0), "is_opening": "No", "is_system_generated": int64(1),
			"accounts": []*record{party, other}} {
			je.f[k] = v
		}
		pes.db.stampNew(je, pes.db.seriesName("ACC-JV-", true), c.user)
		je.f["docstatus"] = int64(1)
		pes.db.stampRows(je, je.str("modified"), c.user)
		pes.db.put(je)
		var lines []glLine
		for _, r := range je.rows("accounts") {
			l := glLine{account: r.str("account"), debit: r.dec("debit"), credit: r.dec("credit"), partyType: r.str("party_type"), party: r.str("party")}
			if r.str("reference_type") == siDT && inv != nil {
				l.againstType, l.againstNo = siDT, inv.name()
			}
			lines = append(lines, l)
		}
		pes.ledger.postGL(jeDT, je, je.str("posting_date"), lines, c.user)
		c.info("Exchange Gain/Loss amount has been booked through " + pes.links.formLink(jeDT, je.name()))
	}
}

func jeRow(account, currency string, rate dec, refType, refName string) *record {
	r := newRecord("Journal Entry Account")
	for k, v := range map[string]any{"account": account, "account_currency": currency, "exchange_rate": rate, "reference_type": refType,
		"reference_name": refName, "debit": dec(0), "credit": dec(0), "debit_in_account_currency": dec(0),
		"credit_in_account_currency": dec(0), "is_advance": "No", "cost_center": CostCenter} {
		r.f[k] = v
	}
	return r
}

// cancelExchangeGainLoss cancels the journals booked for a Payment Entry (§3.5).
func (pes *paymentEntries) cancelExchangeGainLoss(c *call, pe *record) {
	jes := append([]*record(nil), pes.db.lookup(jeDT, "accounts.reference_name", indexKey(pe.name()))...)
	sort.Slice(jes, func(i, j int) bool { return jes[i].name() < jes[j].name() })
	for _, je := range jes {
		if je.docstatus() != 1 || je.str("voucher_type") != "Exchange Gain Or Loss" {
			continue
		}
		for _, r := range je.rows("accounts") {
			if r.str("reference_type") == peDT && strings.EqualFold(r.str("reference_name"), pe.name()) {
				je.f["docstatus"] = int64(2)
				pes.db.touch(je, c.user)
				pes.ledger.cancelGL(jeDT, je.name())
				break
			}
		}
	}
}

// CustomerSpec describes a customer made by AddCustomerSpec.
type CustomerSpec struct {
	Name              string // customer_name and name
	DefaultCurrency   string // billing currency; invoices default to it (e.g. "USD")
	ReceivableAccount string // the customer's party account for the company (e.g. ReceivableUSD); default the company's
	// CustomerGroup and Territory are fetched into the customer's invoices; empty leaves them
	// NULL, as on the site of erpnext-recorded-connector (H01).
	CustomerGroup, Territory string
}

// AddCustomerSpec creates a customer with a billing currency and its own receivable account
// (accounts row for the company), like recording 48-usd-invoice's "USD Customer".
func (s *Site) AddCustomerSpec(spec CustomerSpec) error {
	s.db.mu.Lock()
	exists := s.db.get("Customer", spec.Name) != nil
	s.db.mu.Unlock()
	if exists {
		return fmt.Errorf("erpnextsim: customer %q already exists", spec.Name)
	}
	body := map[string]any{"customer_name": spec.Name}
	if spec.DefaultCurrency != "" {
		body["default_currency"] = spec.DefaultCurrency
	}
	if spec.ReceivableAccount != "" {
		body["accounts"] = []any{map[string]any{"company": DefaultCompany, "account": spec.ReceivableAccount}}
	}
	for k, v := range map[string]string{"customer_group": spec.CustomerGroup, "territory": spec.Territory} {
		if v != "" {
			body[k] = v
		}
	}
	_, err := s.run(func(c *call) (*fErr, step) { return s.parties.insertCustomer(c, body) })
	return err
}

// partyAccount is get_party_account: the customer's accounts row for the company, else the
// company's default receivable account.
func (pa *parties) partyAccount(customer string, company *record) string {
	if cu := pa.db.get("Customer", customer); cu != nil {
		for _, row := range cu.rows("accounts") {
			if strings.EqualFold(row.str("company"), company.name()) && row.str("account") != "" {
				return row.str("account")
			}
		}
	}
	return company.str("default_receivable_account")
}
