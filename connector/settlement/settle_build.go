package settlement

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Settlements (DESIGN.md §5): what a settlement's Journal Entry is built from — its recon rows
// read from Razorpay, the configured accounts — and the document itself.

// settlementBooking is the bookings row a settlement claims: its id, the net payout in paise.
func settlementBooking(st *razorpay.Settlement) connector.Booking {
	return connector.Booking{BusinessKey: st.ID, Kind: connector.KindSettlement, AmountMinor: st.Amount, Currency: connector.CompanyCurrency}
}

// settlementRules is config settlements as the planner takes it, with the clearing account
// (the receipts' paid_to) resolved.
func (c *Job) settlementRules(clearing string) mapping.SettlementRules {
	s := c.Account.Settlements
	fee, tax := s.Fees(c.Account.Mapping)
	return mapping.SettlementRules{Company: c.Account.Mapping.Company, Location: c.Account.Location, BankAccount: s.BankAccount,
		ClearingAccount: clearing, FeeAccount: fee, TaxAccount: tax, AdjustmentsAccount: s.AdjustmentsAccount,
		TransfersAccount: s.TransfersAccount, CostCenter: c.Account.Mapping.Fees.CostCenter,
		FeesDeducted: c.Account.Mapping.Fees.Mode == "deduction"}
}

// reconRows reads the recon rows of settlement st: GET /v1/settlements/recon/combined for its
// Indian calendar day (Settlement.ReconDay), every page, keeping the rows with st's id.
func (c *Job) reconRows(ctx context.Context, st *razorpay.Settlement) ([]razorpay.ReconItem, error) {
	y, m, d := st.ReconDay()
	var rows []razorpay.ReconItem
	err := c.Account.Razorpay.ReconCombined(ctx, y, m, d, func(it *razorpay.ReconItem) error {
		if it.SettlementID == st.ID {
			rows = append(rows, *it)
		}
		return nil
	})
	if err != nil {
		return nil, connector.Failed(fmt.Sprintf("read the recon rows of %s (%04d-%02d-%02d)", st.ID, y, m, d), err)
	}
	return rows, nil
}

// settlementMarker starts the user_remark of every settlement Journal Entry the connector
// posts; the lookup before create compares it exactly (settle_lookup.go).
func settlementMarker(id string) string { return "Razorpay settlement " + id + " " }

// settlementRemark is the entry's user_remark: the marker, the UTR and the breakdown.
func settlementRemark(sp mapping.Settlement) string {
	s := sp.Summary
	parts := []string{fmt.Sprintf("%d payments %s", s.Payments, razorpay.INR(s.Gross).String())}
	if s.Fees != 0 || s.Tax != 0 {
		parts = append(parts, fmt.Sprintf("fees %s, GST %s", razorpay.INR(s.Fees).String(), razorpay.INR(s.Tax).String()))
	}
	if s.Refunds > 0 {
		parts = append(parts, fmt.Sprintf("%d refunds %s", s.Refunds, razorpay.INR(s.Refunded).String()))
	}
	if s.Adjustments > 0 {
		parts = append(parts, fmt.Sprintf("%d adjustments %s", s.Adjustments, razorpay.INR(s.Adjusted).String()))
	}
	if s.Transfers > 0 {
		parts = append(parts, fmt.Sprintf("%d transfers %s", s.Transfers, razorpay.INR(s.Transferred).String()))
	}
	return fmt.Sprintf("%sUTR %s: %s; net %s", settlementMarker(sp.ID), sp.UTR, strings.Join(parts, ", "), razorpay.INR(s.Net).String())
}

// settlementDoc is the Journal Entry (Bank Entry) of sp as it is inserted, submitted in one
// call: amounts as *_in_account_currency decimal text (the site recomputes debit and credit
// from them, 63-je-debit-credit-only-draft), cheque_no the UTR and cheque_date the posting date
// (a Bank Entry needs both, 62-*), named after the settlement id under
// erpnext.name_entries_by_payment_id (a client name is kept, a repeat is 409, 61-je-insert-
// client-name-*). The shape is the recorded one (61-je-insert-submitted).
func (c *Job) settlementDoc(sp mapping.Settlement) map[string]any {
	accounts := make([]any, 0, len(sp.Lines))
	for _, l := range sp.Lines {
		row := map[string]any{"account": l.Account}
		if l.Debit > 0 {
			row["debit_in_account_currency"] = json.Number(razorpay.FormatMinor(l.Debit, 2))
		} else {
			row["credit_in_account_currency"] = json.Number(razorpay.FormatMinor(l.Credit, 2))
		}
		if l.CostCenter != "" {
			row["cost_center"] = l.CostCenter
		}
		accounts = append(accounts, row)
	}
	doc := map[string]any{"voucher_type": frappe.VoucherTypeBankEntry, "company": c.Account.Mapping.Company,
		"posting_date": sp.PostingDate, "cheque_no": sp.UTR, "cheque_date": sp.PostingDate,
		"user_remark": settlementRemark(sp), "accounts": accounts, "docstatus": 1}
	if c.Account.NameEntriesByPaymentID {
		doc["name"] = sp.ID
	}
	return doc
}

// settlementFields explains where the entry's values came from.
func settlementFields(sp mapping.Settlement, st *razorpay.Settlement) []connector.ExplainedField {
	f := []connector.ExplainedField{
		{Field: "voucher_type", Value: frappe.VoucherTypeBankEntry, Source: "a settlement moves money from the clearing account to the bank"},
		{Field: "posting_date", Value: sp.PostingDate, Source: "the settlement's created_at in mapping.timezone"},
		{Field: "cheque_no", Value: sp.UTR, Source: "the settlement's UTR, the reference on the bank statement"},
	}
	for _, l := range sp.Lines {
		side, v := "debit", l.Debit
		if l.Credit > 0 {
			side, v = "credit", l.Credit
		}
		f = append(f, connector.ExplainedField{Field: side + " " + l.Account, Value: razorpay.FormatMinor(v, 2), Source: lineSource(l.Role, st)})
	}
	return f
}

func lineSource(role string, st *razorpay.Settlement) string {
	switch role {
	case mapping.RoleBank:
		return fmt.Sprintf("settlements.bank_account: the amount Razorpay paid out (%s)", razorpay.INR(st.Amount).String())
	case mapping.RoleClearing:
		return "the receipts' paid_to: what the settlement's payments put into it, less its refunds"
	case mapping.RoleFee:
		return "settlements.fee_account: Razorpay's fee without GST not deducted per payment"
	case mapping.RoleTax:
		return "settlements.tax_account: the GST on those fees"
	case mapping.RoleAdjustments:
		return "settlements.adjustments_account: Razorpay's adjustments and dispute deductions"
	}
	return "settlements.transfers_account: Route transfers"
}
