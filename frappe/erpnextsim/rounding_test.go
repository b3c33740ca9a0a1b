package erpnextsim_test

import (
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// roundedInvoice posts a submitted one-line invoice of rate for Test Customer and returns its name.
func roundedInvoice(t *testing.T, h *harness, rate string) string {
	t.Helper()
	r := mustOK(t, h.do("POST", siPath, map[string]any{"customer": "Test Customer", "posting_date": "2026-12-01", "due_date": "2026-12-01",
		"items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": 1, "rate": rate}}, "docstatus": 1}))
	return field(r.data(), "name")
}

// roundOffPE posts a Receive entry of paid on invoice allocating alloc with a Round Off deduction
// of ded ("" for none).
func roundOffPE(h *harness, invoice, paid, alloc, ded string, docstatus int) resp {
	body := pe(map[string]any{"posting_date": "2026-12-01", "reference_date": "2026-12-01", "reference_no": "pay_round_" + invoice + ded,
		"paid_amount": paid, "received_amount": paid, "references": refs(invoice, alloc), "docstatus": docstatus})
	if ded != "" {
		body["deductions"] = []any{map[string]any{"account": "Round Off - EC", "cost_center": erpnextsim.CostCenter, "amount": ded}}
	}
	return h.do("POST", pePath, body)
}

// TestR81RoundedInvoicesPaidAsERPNextAccepts: invoices are rounded by default (8.35 → 8.00,
// 1234.56 → 1235.00), their outstanding is the rounded total, and a payment of grand_total is
// accepted Paid with unallocated 0 only with allocated = outstanding and a Round Off deduction of
// −rounding_adjustment; the wrong sign is accepted on a rounded-down invoice (a 0.70 advance) and
// refused on a rounded-up one (erpnext-recorded-connector/README "81").
func TestR81RoundedInvoicesPaidAsERPNextAccepts(t *testing.T) {
	h := connectorHarness(t)
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	down := roundedInvoice(t, h, "8.35")
	inv := h.invoice(down)
	for k, want := range map[string]string{"grand_total": "8.35", "rounded_total": "8.0", "rounding_adjustment": "-0.35", "outstanding_amount": "8.0", "status": "Unpaid"} {
		if got := field(inv, k); got != want {
			t.Errorf("8.35 invoice %s = %s, want %s", k, got, want)
		}
	}
	roundOffPE(h, down, "8.35", "8.35", "", 0).expectError(t, 417, "ValidationError", "Row #1: Allocated Amount cannot be greater than outstanding amount.")
	ok := mustOK(t, roundOffPE(h, down, "8.35", "8.0", "-0.35", 1)).data()
	if field(ok, "unallocated_amount") != "0.0" || field(ok, "difference_amount") != "0.0" || field(h.invoice(down), "status") != "Paid" {
		t.Errorf("-0.35: unallocated %s difference %s invoice %s, want 0.0 0.0 Paid", field(ok, "unallocated_amount"), field(ok, "difference_amount"), field(h.invoice(down), "status"))
	}
	gl := h.do("GET", list("/api/resource/GL%20Entry", map[string]string{"filters": `[["voucher_no","=","` + field(ok, "name") + `"]]`,
		"fields": `["account","debit","credit","cost_center"]`, "order_by": "account asc", "limit_page_length": "0"}), nil)
	rows, _ := gl.body["data"].([]any)
	want := []string{"Debtors - EC 0.0 8.0 <nil>", "Razorpay Clearing - EC 8.35 0.0 <nil>", "Round Off - EC 0.0 0.35 Main - EC"}
	if len(rows) != len(want) {
		t.Fatalf("GL rows %v, want %v", rows, want)
	}
	for i, r := range rows {
		m := r.(map[string]any)
		if got := field(m, "account") + " " + field(m, "debit") + " " + field(m, "credit") + " " + field(m, "cost_center"); got != want[i] {
			t.Errorf("GL row %d %s, want %s", i, got, want[i])
		}
	}

	wrong := roundedInvoice(t, h, "8.35")
	acc := mustOK(t, roundOffPE(h, wrong, "8.35", "8.0", "0.35", 1)).data()
	if field(acc, "unallocated_amount") != "0.7" || field(acc, "docstatus") != "1" {
		t.Errorf("+0.35 on a rounded-down invoice: unallocated %s docstatus %s, want the accepted 0.7 advance", field(acc, "unallocated_amount"), field(acc, "docstatus"))
	}

	up := roundedInvoice(t, h, "1234.56")
	if inv := h.invoice(up); field(inv, "rounded_total") != "1235.0" || field(inv, "rounding_adjustment") != "0.44" || field(inv, "outstanding_amount") != "1235.0" {
		t.Errorf("1234.56 invoice %s / %s / %s", field(inv, "rounded_total"), field(inv, "rounding_adjustment"), field(inv, "outstanding_amount"))
	}
	roundOffPE(h, up, "1234.56", "1235.0", "-0.44", 1).expectError(t, 417, "ValidationError", "Difference Amount must be zero")
	roundOffPE(h, up, "1234.56", "1235.0", "", 1).expectError(t, 417, "ValidationError", "Difference Amount must be zero")
	if d := mustOK(t, roundOffPE(h, up, "1234.56", "1235.0", "", 0)).data(); field(d, "difference_amount") != "0.44" {
		t.Errorf("draft without deduction: difference %s, want 0.44", field(d, "difference_amount"))
	}
	big := mustOK(t, roundOffPE(h, up, "1234.56", "1235.0", "0.44", 1)).data()
	if field(big, "unallocated_amount") != "0.0" || field(h.invoice(up), "status") != "Paid" {
		t.Errorf("+0.44: unallocated %s invoice %s, want 0.0 Paid", field(big, "unallocated_amount"), field(h.invoice(up), "status"))
	}
	roundOffPE(h, up, "1234.56", "1235.0", "", 0).expectError(t, 417, "ValidationError", "Sales Invoice "+up+" has already been fully paid.")
}

// TestR81CompanyRoundOffReadable: the Accounts User + Sales User API user reads the company's
// round-off account and cost center (81-company-round-off-account).
func TestR81CompanyRoundOffReadable(t *testing.T) {
	h := connectorHarness(t)
	d := mustOK(t, h.do("GET", "/api/resource/Company/Example%20Company", nil)).data()
	if field(d, "round_off_account") != "Round Off - EC" || field(d, "round_off_cost_center") != erpnextsim.CostCenter || field(d, "cost_center") != erpnextsim.CostCenter {
		t.Errorf("company %v", d)
	}
}

// TestRoundingDisabledInvoiceHasNoAdjustment: an invoice with disable_rounded_total 1 keeps its
// grand total as outstanding with rounded_total 0 and rounding_adjustment 0 (taxes_and_totals
// set_rounded_total returns before computing an adjustment), and its ledger has no Round Off row.
func TestRoundingDisabledInvoiceHasNoAdjustment(t *testing.T) {
	h := connectorHarness(t)
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	r := mustOK(t, h.do("POST", siPath, map[string]any{"customer": "Test Customer", "posting_date": "2026-12-01", "due_date": "2026-12-01",
		"disable_rounded_total": 1, "items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": 1, "rate": "8.35"}}, "docstatus": 1}))
	name := field(r.data(), "name")
	inv := h.invoice(name)
	for k, want := range map[string]string{"grand_total": "8.35", "rounded_total": "0.0", "rounding_adjustment": "0.0", "base_rounding_adjustment": "0.0", "outstanding_amount": "8.35"} {
		if got := field(inv, k); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	gl := h.do("GET", list("/api/resource/GL%20Entry", map[string]string{"filters": `[["voucher_no","=","` + name + `"]]`,
		"fields": `["account","debit","credit"]`, "order_by": "account asc", "limit_page_length": "0"}), nil)
	rows, _ := gl.body["data"].([]any)
	var got []string
	for _, x := range rows {
		m := x.(map[string]any)
		got = append(got, field(m, "account")+" "+field(m, "debit")+" "+field(m, "credit"))
	}
	if want := []string{"Debtors - EC 8.35 0.0", "Sales - EC 0.0 8.35"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("GL %v, want %v", got, want)
	}
}
