package erpnextsim_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// TestCaseInsensitiveReferenceNo: the site collation is case-insensitive
// (recording 50-*), so an idempotency lookup must re-compare in the client.
func TestCaseInsensitiveReferenceNo(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_RZP123456789", "docstatus": 1}))
	for _, f := range []string{`[["reference_no","=","PAY_rzp123456789"]]`, `[["reference_no","like","%RZP123456789"]]`, `[["reference_no","like","pay_rzp123456789"]]`} {
		r := h.do("GET", list(pePath, map[string]string{"fields": `["name","reference_no","docstatus"]`, "filters": f}), nil)
		if r.raw != `{"data":[{"name":"ACC-PAY-2026-00001","reference_no":"pay_RZP123456789","docstatus":1}]}` {
			t.Errorf("%s: %s", f, r.raw)
		}
	}
	r := h.do("GET", list(pePath, map[string]string{"fields": `["name","references.allocated_amount"]`,
		"filters": `[["Payment Entry Reference","reference_name","=","acc-sinv-2026-00001"],["docstatus","!=",2]]`}), nil)
	if r.raw != `{"data":[{"name":"ACC-PAY-2026-00001","allocated_amount":1000.0}]}` {
		t.Errorf("child filter: %s", r.raw)
	}
}

// TestBankersRoundingOnSubmit: amounts keep their decimals, base amounts and
// the ledger are rounded half-to-even (recording 55-*).
func TestBankersRoundingOnSubmit(t *testing.T) {
	h := seeded(t)
	d := h.do("POST", pePath, pe(map[string]any{"paid_amount": 10.125, "received_amount": 10.125, "references": refs("ACC-SINV-2026-00005", 10.125)})).data()
	for k, want := range map[string]string{"paid_amount": "10.125", "base_paid_amount": "10.12", "total_allocated_amount": "10.125",
		"base_total_allocated_amount": "10.12", "difference_amount": "0.0", "in_words": "INR Ten and Twelve Paisa only."} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	r := h.do("PUT", pePath+"/"+field(d, "name"), map[string]any{"docstatus": 1})
	if r.status != 200 {
		t.Fatal(r.raw)
	}
	if got := field(h.invoice("ACC-SINV-2026-00005"), "outstanding_amount"); got != "989.88" {
		t.Errorf("outstanding %s, want 989.88", got)
	}
	gl := h.do("GET", list("/api/resource/GL%20Entry", map[string]string{"fields": `["account","debit","credit","debit_in_account_currency","credit_in_account_currency"]`,
		"filters": `[["voucher_no","=","` + field(d, "name") + `"]]`, "order_by": "account asc"}), nil)
	if gl.raw != `{"data":[{"account":"Debtors - EC","debit":0.0,"credit":10.12,"debit_in_account_currency":0.0,"credit_in_account_currency":10.125},{"account":"Razorpay Clearing - EC","debit":10.12,"credit":0.0,"debit_in_account_currency":10.125,"credit_in_account_currency":0.0}]}` {
		t.Errorf("ledger: %s", gl.raw)
	}
}

// TestFiscalYearOnSubmit is §3.2 S2 (recording 53-*): drafts pass, submit fails.
func TestFiscalYearOnSubmit(t *testing.T) {
	h := seeded(t)
	if r := h.do("POST", pePath, pe(map[string]any{"posting_date": "2026-03-15"})); r.status != 200 {
		t.Fatalf("draft outside the fiscal year: %s", r.raw)
	}
	r := h.do("POST", pePath, pe(map[string]any{"posting_date": "2026-03-15", "docstatus": 1, "references": refs("ACC-SINV-2026-00003", 1000)}))
	r.expectError(t, 417, "FiscalYearError", "Date 15-03-2026 is not in any active Fiscal Year for <strong>Example Company</strong>")
	if r.body["exception"] != "erpnext.accounts.utils.FiscalYearError: Date 15-03-2026 is not in any active Fiscal Year for <strong>Example Company</strong>" || r.body["_exc_source"] != "erpnext (app)" {
		t.Errorf("body %s", r.raw)
	}
}

// TestConcurrentEntriesOverpay reproduces §3.7: two entries for one invoice
// that validate before either commits both submit (NoInvoiceLock, default);
// with the lock the second one is refused.
func TestConcurrentEntriesOverpay(t *testing.T) {
	for _, lock := range []bool{false, true} {
		noLock := !lock
		h := seeded(t, erpnextsim.Options{NoInvoiceLock: &noLock})
		h.site.CommitTogether(2, testtime.Bound)
		done := make(chan resp, 2)
		for i := 0; i < 2; i++ {
			go func(i int) {
				done <- h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_c" + strconv.Itoa(i), "docstatus": 1}))
			}(i)
		}
		a, b := <-done, <-done
		out := field(h.invoice("ACC-SINV-2026-00001"), "outstanding_amount")
		if noLock {
			if a.status != 200 || b.status != 200 || out != "-1000.0" {
				t.Fatalf("no lock: %d %d outstanding %s", a.status, b.status, out)
			}
		} else {
			if (a.status == 200) == (b.status == 200) || out != "0.0" {
				t.Fatalf("with lock: %d %d outstanding %s", a.status, b.status, out)
			}
		}
	}
}

func TestSalesInvoiceAndCustomerOverREST(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{})
	r := h.do("POST", "/api/resource/Customer", map[string]any{"customer_name": "Acme"})
	if field(r.data(), "name") != "Acme" {
		t.Fatal(r.raw)
	}
	if r := h.do("POST", "/api/resource/Customer", map[string]any{"customer_name": "Acme"}); field(r.data(), "name") != "Acme - 1" {
		t.Fatalf("second customer: %s", r.raw)
	}
	r = h.do("POST", siPath, map[string]any{"customer": "acme", "due_date": "2026-12-15", "docstatus": 1,
		"items": []any{map[string]any{"item_code": "A", "qty": 2, "rate": "12000.50"}, map[string]any{"item_code": "B", "qty": 1, "rate": 99}}})
	// the insert-and-submit answer is the pre-ledger document (erpnext-recorded-connector/H01)
	if d := r.data(); field(d, "status") != "Draft" || field(d, "outstanding_amount") != "0.0" || field(d, "docstatus") != "1" {
		t.Errorf("insert answer status %s outstanding %s docstatus %s, want Draft 0.0 1", field(d, "status"), field(d, "outstanding_amount"), field(d, "docstatus"))
	}
	d := h.do("GET", siPath+"/ACC-SINV-2026-00001", nil).data()
	for k, want := range map[string]string{"name": "ACC-SINV-2026-00001", "customer": "Acme", "grand_total": "24100.0", "outstanding_amount": "24100.0",
		"status": "Unpaid", "docstatus": "1", "debit_to": erpnextsim.DefaultReceivable, "due_date": "2026-12-15", "currency": "INR"} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	h.do("POST", siPath, map[string]any{"customer": "Nobody", "items": []any{map[string]any{"item_code": "A", "qty": 1, "rate": 1}}}).
		expectError(t, 417, "LinkValidationError", "Could not find Customer: Nobody")
	h.do("POST", siPath, map[string]any{"customer": "Acme"}).
		expectError(t, 417, "MandatoryError", "Error: Value missing for Sales Invoice: Items")
}

func TestDefaultSiteRecords(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{})
	r := h.do("GET", "/api/resource/Mode%20of%20Payment/Razorpay", nil)
	row := row0(r.data(), "accounts")
	if field(r.data(), "type") != "Bank" || field(row, "company") != erpnextsim.DefaultCompany || field(row, "default_account") != erpnextsim.RazorpayClearing {
		t.Fatalf("mode of payment: %s", r.raw)
	}
	for name, typ := range map[string]string{erpnextsim.DefaultReceivable: "Receivable", erpnextsim.DefaultBank: "Bank", erpnextsim.RazorpayClearing: "Bank",
		erpnextsim.CashAccount: "Cash", erpnextsim.GSTInputAccount: "Tax", erpnextsim.FeeAccount: ""} {
		d, ok := h.site.Doc("Account", name)
		if !ok || field(d, "company") != erpnextsim.DefaultCompany || (typ != "" && field(d, "account_type") != typ) {
			t.Errorf("account %s: %v", name, d)
		}
	}
	co, _ := h.site.Doc("Company", erpnextsim.DefaultCompany)
	if field(co, "default_bank_account") != erpnextsim.DefaultBank || field(co, "default_receivable_account") != erpnextsim.DefaultReceivable || field(co, "abbr") != erpnextsim.DefaultAbbr {
		t.Errorf("company %v", co)
	}
	fy := h.site.Docs("Fiscal Year")
	if len(fy) != 1 || field(fy[0], "year_start_date") != "2026-04-01" || field(fy[0], "year_end_date") != "2027-03-31" {
		t.Errorf("fiscal year %v", fy)
	}
	if n := len(h.site.Docs("Customer")) + len(h.site.Docs("Sales Invoice")); n != 0 {
		t.Errorf("default site has %d customers/invoices", n)
	}
	r = h.do("GET", list("/api/method/frappe.client.get_value", map[string]string{"doctype": "Mode of Payment Account", "fieldname": "default_account",
		"parent": "Mode of Payment", "filters": `{"parent":"Razorpay","company":"Example Company"}`}), nil)
	if r.raw != `{"message":{"default_account":"Razorpay Clearing - EC"}}` {
		t.Errorf("get_value: %s", r.raw)
	}
}

func TestLoadSeed(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{})
	err := h.site.LoadSeed(strings.NewReader(`{"customers": ["Test Customer", {"customer_name": "Other Customer"}],
		"sales_invoices": [{"customer": "Test Customer", "items": [{"item_code": "RZP-ITEM", "qty": 1, "rate": 1000}], "due_date": "2026-12-30", "submit": true},
		                   {"customer": "Other Customer", "items": [{"item_code": "RZP-ITEM", "qty": 3, "rate": "0.10"}], "name": "INV-FIXED"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := h.site.Doc("Sales Invoice", "ACC-SINV-2026-00001"); !ok || field(d, "outstanding_amount") != "1000.0" {
		t.Errorf("seeded invoice %v", d)
	}
	if d, ok := h.site.Doc("Sales Invoice", "INV-FIXED"); !ok || field(d, "grand_total") != "0.3" || field(d, "status") != "Draft" {
		t.Errorf("fixed-name invoice %v", d)
	}
	if err := h.site.LoadSeed(strings.NewReader(`{"customers": ["Test Customer"]}`)); err == nil {
		t.Error("duplicate customer accepted")
	}
}

// TestInsertSeedsLikePOST: Site.Insert creates and submits a Payment Entry through POST's
// validation and effects without HTTP, and refuses what POST refuses.
func TestInsertSeedsLikePOST(t *testing.T) {
	h := seeded(t)
	doc, err := h.site.Insert("Payment Entry", pe(map[string]any{"docstatus": 1, "reference_no": "pay_inserted", "paid_amount": "1000.00",
		"received_amount": "1000.00", "references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00003", "allocated_amount": "1000"}}}))
	if err != nil || doc["docstatus"] != json.Number("1") || doc["name"] == "" {
		t.Fatalf("Insert = %v, %v", doc, err)
	}
	if got := field(h.invoice("ACC-SINV-2026-00003"), "status"); got != "Paid" {
		t.Errorf("invoice %s, want Paid", got)
	}
	if n := h.entriesWithReference("pay_inserted"); n != 1 {
		t.Errorf("%d entries listed, want 1", n)
	}
	_, err = h.site.Insert("Payment Entry", pe(map[string]any{"docstatus": 1, "reference_no": "pay_again",
		"references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00003", "allocated_amount": 1000}}}))
	if err == nil || !strings.Contains(err.Error(), "ACC-SINV-2026-00003 has already been fully paid") {
		t.Errorf("second entry: %v", err)
	}
	if _, err := h.site.Insert("No Such Doctype", map[string]any{}); err == nil {
		t.Error("unknown doctype accepted")
	}
}
