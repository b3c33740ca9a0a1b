package mapping_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func settlementRules(deducted bool) mapping.SettlementRules {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	return mapping.SettlementRules{Company: "Example Company", Location: ist, BankAccount: "HDFC Bank - EC",
		ClearingAccount: "Razorpay Clearing - EC", FeeAccount: "Razorpay Fees - EC", TaxAccount: "Input Tax GST - EC",
		AdjustmentsAccount: "Razorpay Adjustments - EC", TransfersAccount: "Route Transfers - EC", CostCenter: "Main - EC",
		FeesDeducted: deducted}
}

// 2026-12-01 05:50 UTC = 11:20 IST.
const setlAt = 1796104200

func payRow(id string, amount, fee, tax int64) razorpay.ReconItem {
	return razorpay.ReconItem{EntityID: id, Type: razorpay.ReconPayment, Amount: amount, Fee: fee, Tax: tax, Credit: amount - fee, SettlementID: "setl_T3stSetl000001"}
}

func line(role, account string, debit, credit int64, cc string) mapping.JournalLine {
	return mapping.JournalLine{Role: role, Account: account, Debit: debit, Credit: credit, CostCenter: cc}
}

// The recorded settlement (erpnext-recorded-settlement README): gross 10000.00, fee 200.00, GST
// 36.00, net 9764.00 — and each other kind of row on its own, in both fee modes.
func TestPlanSettlementLines(t *testing.T) {
	refund := razorpay.ReconItem{EntityID: "rfnd_T3stRefund0001", Type: razorpay.ReconRefund, Amount: 50000, Debit: 50000,
		PaymentID: "pay_T3stPay0000001", SettlementID: "setl_T3stSetl000001"}
	adjCredit := razorpay.ReconItem{EntityID: "adj_T3stAdjust0001", Type: razorpay.ReconAdjustment, Amount: 12345, Credit: 12345, SettlementID: "setl_T3stSetl000001"}
	dispute := razorpay.ReconItem{EntityID: "adj_T3stAdjust0002", Type: razorpay.ReconAdjustment, Amount: 30000, Debit: 30000,
		DisputeID: "disp_T3stDispute001", SettlementID: "setl_T3stSetl000001"}
	transfer := razorpay.ReconItem{EntityID: "trf_T3stTransfer01", Type: razorpay.ReconTransfer, Amount: 20000, Fee: 59, Tax: 9, Debit: 20059,
		PaymentID: "pay_T3stPay0000001", SettlementID: "setl_T3stSetl000001"}
	pay := payRow("pay_T3stPay0000001", 1000000, 23600, 3600)
	const bank, fees, gst, adj, trf, clr = "HDFC Bank - EC", "Razorpay Fees - EC", "Input Tax GST - EC", "Razorpay Adjustments - EC", "Route Transfers - EC", "Razorpay Clearing - EC"
	cases := []struct {
		name     string
		deducted bool
		rows     []razorpay.ReconItem
		fees     [2]int64 // the settlement's own fees and tax (instant settlement)
		want     []mapping.JournalLine
	}{
		{name: "PaymentFeesNotDeducted", rows: []razorpay.ReconItem{pay},
			want: []mapping.JournalLine{line("bank", bank, 976400, 0, ""), line("fee", fees, 20000, 0, "Main - EC"), line("tax", gst, 3600, 0, ""), line("clearing", clr, 0, 1000000, "")}},
		{name: "PaymentFeesDeducted", deducted: true, rows: []razorpay.ReconItem{pay},
			want: []mapping.JournalLine{line("bank", bank, 976400, 0, ""), line("clearing", clr, 0, 976400, "")}},
		{name: "Refund", deducted: true, rows: []razorpay.ReconItem{pay, refund},
			want: []mapping.JournalLine{line("bank", bank, 926400, 0, ""), line("clearing", clr, 0, 926400, "")}},
		{name: "AdjustmentCredit", rows: []razorpay.ReconItem{pay, adjCredit},
			want: []mapping.JournalLine{line("bank", bank, 988745, 0, ""), line("fee", fees, 20000, 0, "Main - EC"), line("tax", gst, 3600, 0, ""),
				line("adjustments", adj, 0, 12345, "Main - EC"), line("clearing", clr, 0, 1000000, "")}},
		{name: "DisputeDeduction", deducted: true, rows: []razorpay.ReconItem{pay, dispute},
			want: []mapping.JournalLine{line("bank", bank, 946400, 0, ""), line("adjustments", adj, 30000, 0, "Main - EC"), line("clearing", clr, 0, 976400, "")}},
		{name: "Transfer", deducted: true, rows: []razorpay.ReconItem{pay, transfer},
			want: []mapping.JournalLine{line("bank", bank, 956341, 0, ""), line("fee", fees, 50, 0, "Main - EC"), line("tax", gst, 9, 0, ""),
				line("transfers", trf, 20000, 0, ""), line("clearing", clr, 0, 976400, "")}},
		{name: "InstantSettlementFee", deducted: true, rows: []razorpay.ReconItem{pay}, fees: [2]int64{2441, 372},
			want: []mapping.JournalLine{line("bank", bank, 973959, 0, ""), line("fee", fees, 2069, 0, "Main - EC"), line("tax", gst, 372, 0, ""), line("clearing", clr, 0, 976400, "")}},
		{name: "RefundsAboveReceiptsDebitTheClearing", deducted: true,
			rows: []razorpay.ReconItem{payRow("pay_T3stPay0000002", 10000, 236, 36), refund, adjCredit, {EntityID: "adj_T3stAdjust0003", Type: razorpay.ReconAdjustment, Amount: 100000, Credit: 100000, SettlementID: "setl_T3stSetl000001"}},
			want: []mapping.JournalLine{line("bank", bank, 72109, 0, ""), line("adjustments", adj, 0, 112345, "Main - EC"), line("clearing", clr, 40236, 0, "")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := razorpay.Settlement{ID: "setl_T3stSetl000001", Status: "processed", UTR: "UTR00012345678", CreatedAt: setlAt, Fees: tc.fees[0], Tax: tc.fees[1]}
			other := payRow("pay_T3stOtherSetl01", 99900, 0, 0)
			other.SettlementID = "setl_T3stOtherSetl1" // a row of another settlement on the same day is not this one's
			rows := append(append([]razorpay.ReconItem(nil), tc.rows...), other)
			st.Amount = -st.Fees
			for _, r := range tc.rows {
				st.Amount += r.Credit - r.Debit
			}
			if d := st.Discrepancy(rows); d != 0 {
				t.Fatalf("test rows do not add up: %d", d)
			}
			got, err := mapping.PlanSettlement(settlementRules(tc.deducted), st, rows)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Lines, tc.want) {
				t.Errorf("lines\n got %+v\nwant %+v", got.Lines, tc.want)
			}
			var dr, cr int64
			for _, l := range got.Lines {
				dr, cr = dr+l.Debit, cr+l.Credit
			}
			if dr != cr || got.Lines[0].Debit != st.Amount || got.Lines[0].Account != bank {
				t.Errorf("Σ debit %d, Σ credit %d, bank %+v: want balanced with the bank line = amount %d", dr, cr, got.Lines[0], st.Amount)
			}
			if got.PostingDate != "2026-12-01" || got.UTR != st.UTR || got.Summary.Net != st.Amount {
				t.Errorf("date %s utr %s net %d", got.PostingDate, got.UTR, got.Summary.Net)
			}
		})
	}
}

func TestPlanSettlementParks(t *testing.T) {
	st := razorpay.Settlement{ID: "setl_T3stSetl000001", Status: "processed", UTR: "UTR00012345678", CreatedAt: setlAt}
	pay := payRow("pay_T3stPay0000001", 1000000, 23600, 3600)
	odd := payRow("pay_T3stPay0000002", 50000, 1180, 180)
	odd.Credit = 48000 // not amount − fee (48820)
	transfer := razorpay.ReconItem{EntityID: "trf_T3stTransfer01", Type: razorpay.ReconTransfer, Amount: 100, Debit: 100, SettlementID: st.ID}
	cases := []struct {
		name, reason string
		amount       int64
		rows         []razorpay.ReconItem
		rules        func(*mapping.SettlementRules)
	}{
		{name: "AmountAboveTheRows", amount: 976500, rows: []razorpay.ReconItem{pay}, reason: "settlement does not add up: settlement setl_T3stSetl000001 (UTR UTR00012345678) pays INR 9765.00, but its rows add up to INR 9764.00 (difference INR 1.00: 1 payments INR 10000.00, fees INR 200.00, GST INR 36.00"},
		{name: "RowThatDoesNotAddUp", amount: 976400 + 48000, rows: []razorpay.ReconItem{pay, odd}, reason: "pay_T3stPay0000002: credit INR 480.00 ≠ amount INR 500.00 − fee INR 11.80"},
		{name: "RowThatDoesNotAddUpWhenDeducted", amount: 976400 + 48000, rows: []razorpay.ReconItem{pay, odd}, reason: "rows that do not add up: pay_T3stPay0000002",
			rules: func(r *mapping.SettlementRules) { r.FeesDeducted = true }},
		{name: "TransferWithoutAccount", amount: 976300, rows: []razorpay.ReconItem{pay, transfer}, reason: "settlement rows not bookable: row trf_T3stTransfer01 is a Route transfer",
			rules: func(r *mapping.SettlementRules) { r.TransfersAccount = "" }},
		{name: "UnknownRowType", amount: 976400, rows: []razorpay.ReconItem{pay, {EntityID: "x_1", Type: "payout", SettlementID: st.ID}}, reason: `row x_1 has type "payout"`},
		{name: "NoRows", amount: 100, reason: "settlement setl_T3stSetl000001 has no recon rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rules := settlementRules(false)
			if tc.rules != nil {
				tc.rules(&rules)
			}
			s := st
			s.Amount = tc.amount
			_, err := mapping.PlanSettlement(rules, s, tc.rows)
			var p *mapping.Park
			if !errors.As(err, &p) || !strings.Contains(p.Error(), tc.reason) {
				t.Fatalf("err %v\nwant a park containing %q", err, tc.reason)
			}
		})
	}
}
