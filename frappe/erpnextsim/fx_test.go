package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

func usdSite(t *testing.T) (*harness, string) {
	t.Helper()
	h := seeded(t)
	if err := h.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
		t.Fatal(err)
	}
	inv, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", ConversionRate: "84", DueDate: "2026-12-30", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "25.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	return h, inv
}

// TestForeignCurrencyReceipt is recordings 48-* and 49-*.
func TestForeignCurrencyReceipt(t *testing.T) {
	h, inv := usdSite(t)
	d := h.invoice(inv)
	for k, want := range map[string]string{"currency": "USD", "conversion_rate": "84.0", "grand_total": "25.0", "base_grand_total": "2100.0",
		"outstanding_amount": "25.0", "debit_to": erpnextsim.ReceivableUSD, "party_account_currency": "USD", "status": "Unpaid"} {
		if got := field(d, k); got != want {
			t.Errorf("invoice %s = %s, want %s", k, got, want)
		}
	}
	g := h.do("POST", getPECmd, map[string]any{"dt": "Sales Invoice", "dn": inv, "bank_account": erpnextsim.RazorpayClearing}).data()
	for k, want := range map[string]string{"paid_from": erpnextsim.ReceivableUSD, "paid_from_account_currency": "USD", "paid_to_account_currency": "INR",
		"paid_amount": "25.0", "source_exchange_rate": "84.0", "target_exchange_rate": "1.0", "base_paid_amount": "2100.0", "received_amount": "2100.0",
		"total_allocated_amount": "25.0", "base_total_allocated_amount": "2100.0", "party_balance": "25.0", "paid_from_account_balance": "25.0"} {
		if got := field(g, k); got != want {
			t.Errorf("get_payment_entry %s = %s, want %s", k, got, want)
		}
	}
	if row := row0(g, "references"); field(row, "exchange_rate") != "84.0" || field(row, "account") != erpnextsim.ReceivableUSD {
		t.Errorf("row %v", row)
	}
	r := h.do("POST", pePath, map[string]any{"payment_type": "Receive", "company": "Example Company", "posting_date": "2026-11-30",
		"party_type": "Customer", "party": "USD Customer", "mode_of_payment": "Razorpay", "paid_from": erpnextsim.ReceivableUSD,
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 25.0, "received_amount": 2131.25, "source_exchange_rate": 85.25,
		"reference_no": "pay_USDtest0000001", "reference_date": "2026-11-30", "docstatus": 1,
		"references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": 25.0}}})
	p := r.data()
	for k, want := range map[string]string{"status": "Submitted", "base_paid_amount": "2131.25", "base_received_amount": "2131.25",
		"received_amount": "2131.25", "base_total_allocated_amount": "2131.25", "total_allocated_amount": "25.0", "difference_amount": "0.0",
		"unallocated_amount": "0.0", "in_words": "INR Two Thousand, One Hundred And Thirty One and Twenty Five Paisa only."} {
		if got := field(p, k); got != want {
			t.Errorf("PE %s = %s, want %s", k, got, want)
		}
	}
	if row := row0(p, "references"); field(row, "exchange_rate") != "84.0" || field(row, "exchange_gain_loss") != "31.25" || field(row, "outstanding_amount") != "25.0" {
		t.Errorf("row %v", row)
	}
	if n := len(p["deductions"].([]any)); n != 0 {
		t.Errorf("%d deduction rows", n)
	}
	want := `Exchange Gain/Loss amount has been booked through <a href="http://erp.localhost:8000/app/journal-entry/ACC-JV-2026-00001">ACC-JV-2026-00001</a>`
	if m := r.messages(); len(m) != 1 || m[0] != want {
		t.Errorf("messages %q", m)
	}
	je := h.do("GET", list("/api/resource/Journal%20Entry", map[string]string{"fields": `["name","voucher_type","docstatus","posting_date","total_debit","multi_currency"]`}), nil)
	if je.raw != `{"data":[{"name":"ACC-JV-2026-00001","voucher_type":"Exchange Gain Or Loss","docstatus":1,"posting_date":"2026-11-30","total_debit":31.25,"multi_currency":1}]}` {
		t.Errorf("journal: %s", je.raw)
	}
	rows := h.do("GET", list("/api/resource/Journal%20Entry", map[string]string{"fields": `["accounts.account","accounts.debit","accounts.credit","accounts.debit_in_account_currency","accounts.reference_type","accounts.reference_name","accounts.exchange_rate"]`,
		"filters": `[["Journal Entry Account","reference_name","in",["` + field(p, "name") + `","` + inv + `"]]]`, "order_by": "`tabJournal Entry Account`.idx asc"}), nil)
	if rows.raw != `{"data":[{"account":"Debtors USD - EC","debit":31.25,"credit":0.0,"debit_in_account_currency":0.0,"reference_type":"Sales Invoice","reference_name":"`+inv+`","exchange_rate":84.0},`+
		`{"account":"Exchange Gain/Loss - EC","debit":0.0,"credit":31.25,"debit_in_account_currency":0.0,"reference_type":"Payment Entry","reference_name":"`+field(p, "name")+`","exchange_rate":1.0}]}` {
		t.Errorf("journal accounts: %s", rows.raw)
	}
	gl := h.do("GET", list("/api/resource/GL%20Entry", map[string]string{"fields": `["account","debit","credit","credit_in_account_currency","against_voucher"]`,
		"filters": `[["voucher_no","=","` + field(p, "name") + `"],["is_cancelled","=",0]]`, "order_by": "account desc"}), nil)
	if gl.raw != `{"data":[{"account":"Razorpay Clearing - EC","debit":2131.25,"credit":0.0,"credit_in_account_currency":0.0,"against_voucher":null},{"account":"Debtors USD - EC","debit":0.0,"credit":2131.25,"credit_in_account_currency":25.0,"against_voucher":"`+inv+`"}]}` {
		t.Errorf("ledger: %s", gl.raw)
	}
	if d := h.invoice(inv); field(d, "outstanding_amount") != "0.0" || field(d, "status") != "Paid" {
		t.Errorf("invoice after %v %v", d["outstanding_amount"], d["status"])
	}
	h.do("PUT", pePath+"/"+field(p, "name"), map[string]any{"docstatus": 2})
	if d, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001"); field(d, "docstatus") != "2" {
		t.Errorf("journal not cancelled with the entry: %v", d["docstatus"])
	}
	if d := h.invoice(inv); field(d, "outstanding_amount") != "25.0" || field(d, "status") != "Unpaid" {
		t.Errorf("invoice after cancel %v %v", d["outstanding_amount"], d["status"])
	}
}
