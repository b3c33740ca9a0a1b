package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// transfer is the recorded Internal Transfer body (73-*, 74-*) with overrides (nil deletes).
func transfer(paid, received int, ref string, over map[string]any) map[string]any {
	b := map[string]any{"payment_type": "Internal Transfer", "company": "Example Company", "posting_date": "2026-12-01",
		"paid_from": clearing, "paid_to": hdfcGL, "paid_amount": paid, "received_amount": received,
		"reference_no": ref, "reference_date": "2026-12-01", "remarks": "Razorpay settlement UTR " + ref}
	return override(b, over)
}

var feeDeductions = []any{
	map[string]any{"account": feesAccount, "amount": 200, "cost_center": erpnextsim.CostCenter, "description": "Razorpay fee"},
	map[string]any{"account": gstAccount, "amount": 36, "cost_center": erpnextsim.CostCenter, "description": "GST on fee"},
}

// 73-pe-internal-transfer-net-submitted, 75-pe-internal-transfer-net-gl-entries: the remarks
// sent are replaced, the title names both accounts, both balances are real, two GL rows.
func TestInternalTransfer73NetAndItsLedger(t *testing.T) {
	h := settlementSite(t)
	seedClearing(t, h, "31951.25", "")
	d := mustOK(t, h.do("POST", pePath, transfer(9764, 9764, "UTR00012345673", map[string]any{"docstatus": 1}), as(limitedUser)...)).data()
	for k, want := range map[string]string{"status": "Submitted", "title": clearing + " - " + hdfcGL, "party_balance": "0.0",
		"paid_from_account_type": "Bank", "paid_to_account_type": "Bank", "paid_from_account_balance": "31951.25", "paid_to_account_balance": "0.0",
		"base_paid_amount_after_tax": "9764.0", "difference_amount": "0.0", "custom_remarks": "0",
		"remarks":  "Amount INR 9764 transferred from Razorpay Clearing - EC to HDFC Bank - EC\nTransaction reference no UTR00012345673 dated 2026-12-01",
		"in_words": "INR Nine Thousand, Seven Hundred And Sixty Four only."} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := d["party"]; ok {
		t.Error("an Internal Transfer has no party")
	}
	gl := glEntries(t, h, field(d, "name"))
	if len(gl) != 2 || balanced(t, gl) != 976_400 {
		t.Fatalf("GL rows %v", gl)
	}
	for _, row := range gl {
		if row["cost_center"] != nil || (field(row, "account") == clearing) != (field(row, "against") == hdfcGL) {
			t.Errorf("GL row %v", row)
		}
	}
}

// 74-*, 75-pe-internal-transfer-gross-no-deductions-*: gross paid, net received: ERPNext books
// the 236 as Exchange Gain/Loss by itself; explicit fee deductions then leave -236 and submit
// is refused.
func TestInternalTransfer74GrossBooksExchangeGainLoss(t *testing.T) {
	h := settlementSite(t)
	for _, ds := range []int{0, 1} {
		d := mustOK(t, h.do("POST", pePath, transfer(10000, 9764, "UTR00012345675", map[string]any{"docstatus": ds}), as(limitedUser)...)).data()
		row := row0(d, "deductions")
		if field(d, "difference_amount") != "0.0" || len(d["deductions"].([]any)) != 1 || field(row, "account") != "Exchange Gain/Loss - EC" ||
			field(row, "amount") != "236.0" || field(row, "is_exchange_gain_loss") != "1" || field(row, "cost_center") != erpnextsim.CostCenter ||
			field(d, "remarks") != "Amount INR 10000 transferred from Razorpay Clearing - EC to HDFC Bank - EC\nTransaction reference no UTR00012345675 dated 2026-12-01\nAmount INR 236.0 deducted against Exchange Gain/Loss - EC" {
			t.Errorf("docstatus %d: %v", ds, d)
		}
		if ds == 1 {
			gl := glEntries(t, h, field(d, "name"))
			if len(gl) != 3 || balanced(t, gl) != 1_000_000 {
				t.Errorf("GL rows %v", gl)
			}
		}
	}
	withFees := transfer(10000, 9764, "UTR00012345676", map[string]any{"deductions": feeDeductions})
	d := mustOK(t, h.do("POST", pePath, withFees, as(limitedUser)...)).data()
	if field(d, "difference_amount") != "-236.0" || len(d["deductions"].([]any)) != 3 {
		t.Errorf("74-pe-internal-transfer-gross-with-deductions-draft: %v", d)
	}
	withFees["docstatus"] = 1
	h.do("POST", pePath, withFees, as(limitedUser)...).expectError(t, 417, "ValidationError", "Difference Amount must be zero")
	net := mustOK(t, h.do("POST", pePath, transfer(9764, 9764, "UTR00012345677", map[string]any{"deductions": feeDeductions}), as(limitedUser)...)).data()
	if field(net, "difference_amount") != "-236.0" || len(net["deductions"].([]any)) != 2 {
		t.Errorf("74-pe-internal-transfer-net-with-deductions-draft: %v", net)
	}
}

// 76-*: a Bank-type paid_from needs the reference; the transfer ranks 3 and is allocated but
// never cleared (both its accounts are of type Bank); received above paid is refused.
func TestInternalTransfer76ReconciledNotCleared(t *testing.T) {
	h := settlementSite(t)
	h.do("POST", pePath, transfer(9764, 9764, "", map[string]any{"docstatus": 1}), as(limitedUser)...).expectError(t, 417, "ValidationError",
		"Reference No and Reference Date is mandatory for Bank transaction")
	h.do("POST", pePath, transfer(9764, 10000, "UTR1", nil), as(limitedUser)...).expectError(t, 417, "ValidationError",
		"Received Amount cannot be greater than Paid Amount")
	pe := field(mustOK(t, h.do("POST", pePath, transfer(9764, 9764, "UTR00012345673", map[string]any{"docstatus": 1}), as(limitedUser)...)).data(), "name")
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345673", "setl_00000000000006", 9764, true), as(limitedUser)...))
	if got := join(linked(t, h, window("ACC-BTN-2026-00001", []any{"payment_entry", "journal_entry"}))); got != "Payment Entry "+pe+" 3 9764.0" {
		t.Errorf("76-get-linked-payments-internal-transfer: %s", got)
	}
	r := mustOK(t, reconcile(h, "ACC-BTN-2026-00001", "Payment Entry", pe))
	if field(r.data(), "status") != "Reconciled" {
		t.Errorf("76-reconcile-vouchers-internal-transfer: %s", r.raw)
	}
	if doc, _ := h.site.Doc("Payment Entry", pe); doc["clearance_date"] != nil {
		t.Error("76-pe-get-after-reconcile: both accounts are of type Bank, the transfer must stay uncleared")
	}
}

// seedClearing puts amount into Razorpay Clearing - EC by a receipt dated 2026-12-01, named
// name when given.
func seedClearing(t *testing.T, h *harness, amount, name string) {
	t.Helper()
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	inv, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-30", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "40000.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	body := pe(map[string]any{"docstatus": 1, "posting_date": "2026-12-01", "reference_date": "2026-12-01",
		"paid_amount": amount, "received_amount": amount, "references": refs(inv, amount)})
	if name != "" {
		body["name"] = name
	}
	mustOK(t, h.do("POST", pePath, body))
}
