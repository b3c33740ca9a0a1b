package erpnextsim_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
)

// connectorNow is the clock of the connector recordings: 2026-12-01 11:20 IST.
var connectorNow = time.Date(2026, 12, 1, 5, 50, 0, 0, time.UTC)

// seedSplitInvoice makes the connector pass's ACC-SINV-2026-00015 (1000.00, Test Customer) and
// ACC-PAY-2026-00013..16 paying it 300, 300, 300 and 100 of a 300 payment (erpnext-recorded-
// settlement 77-*: reference_no pay_RS204…, pay_RS404…, pay_RS104…, pay_RS304…), received
// into paid_to, all dated 2026-12-01, created in name order.
func seedSplitInvoice(t *testing.T, h *harness, paidTo string) {
	t.Helper()
	if _, ok := h.site.Doc("Customer", "Test Customer"); !ok {
		if err := h.site.AddCustomer("Test Customer"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-31", Submit: true,
		Name: "ACC-SINV-2026-00015", Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}}); err != nil {
		t.Fatal(err)
	}
	for i, p := range []struct {
		ref   string
		alloc int
	}{{"pay_RS204000000000", 300}, {"pay_RS404000000000", 300}, {"pay_RS104000000000", 300}, {"pay_RS304000000000", 100}} {
		mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": fmt.Sprintf("ACC-PAY-2026-%05d", 13+i),
			"docstatus": 1, "posting_date": "2026-12-01", "reference_date": "2026-12-01", "reference_no": p.ref, "paid_to": paidTo,
			"paid_amount": 300, "received_amount": 300, "references": refs("ACC-SINV-2026-00015", p.alloc)})))
	}
}

// replayFile sends one recorded exchange of erpnext-recorded-connector or -settlement
// and compares status, exc_type, messages and the exception line.
func replayFile(t *testing.T, h *harness, folder, name string) resp {
	t.Helper()
	rec, path, _ := loadRecording(t, filepath.Join(sharedtest.Dir(t, "reference", folder), name))
	var body any
	if rec.Request.Body != nil && *rec.Request.Body != "" {
		body = *rec.Request.Body
	}
	got := h.do(rec.Request.Method, path, body)
	if got.status != rec.Response.Status {
		t.Fatalf("%s: status %d, recorded %d; body %s", name, got.status, rec.Response.Status, got.raw)
	}
	compareRecorded(t, rec.Response.Body, got, true)
	return got
}

// TestR01AuditChildFieldsOrderByCreationIs1052: the paid-twice audit's list (child-table
// fields, order_by "creation asc") is 500 OperationalError 1052 as on the real site.
func TestR01AuditChildFieldsOrderByCreationIs1052(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }})
	seedSplitInvoice(t, h, erpnextsim.RazorpayClearing)
	r := replayFile(t, h, "erpnext-recorded-connector", "R01-audit-paid-twice-child-fields-order-by-creation-500.json")
	if ex, _ := r.body["exception"].(string); ex != `pymysql.err.OperationalError: (1052, "Column 'creation' in ORDER BY is ambiguous")` {
		t.Errorf("exception %q", ex)
	}
}

// TestR02CheckoutChildFilterOrderByCreationIs1052: the Payment Request lookup (4-element filter
// on Payment Entry Reference, parent fields only, order_by "creation asc") is the same 500.
func TestR02CheckoutChildFilterOrderByCreationIs1052(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }})
	replayFile(t, h, "erpnext-recorded-connector", "R02-checkout-entries-child-filter-order-by-creation-500.json")
	// Qualified with the parent table, the same list runs.
	q := map[string]string{"fields": `["name","reference_no","paid_amount"]`, "limit_page_length": "0",
		"filters":  `[["Payment Entry Reference","payment_request","=","ACC-PRQ-2026-00001"],["docstatus","=",1]]`,
		"order_by": "`tabPayment Entry`.`creation` asc"}
	if r := h.do("GET", list(pePath, q), nil); r.status != 200 || r.raw != `{"data":[]}` {
		t.Fatalf("qualified: %d %s", r.status, r.raw)
	}
}

// TestR77ListQueryRules: which order_by a joined list accepts (erpnext-recorded-settlement
// 77-*…79-*, 65-*), in GET and frappe.client.get_list alike.
func TestR77ListQueryRules(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }})
	seedSplitInvoice(t, h, erpnextsim.RazorpayClearing)
	childFilter := `[["Payment Entry Reference","reference_name","=","ACC-SINV-2026-00015"]]`
	cases := []struct {
		name, fields, orderBy string
		status                int
		first                 string
	}{
		{"UnqualifiedCreationNotSelected", `["name","paid_amount"]`, "creation asc", 500, ""},
		{"UnqualifiedModifiedNotSelected", `["name","` + "`tabPayment Entry Reference`" + `.allocated_amount"]`, "modified desc", 500, ""},
		{"UnqualifiedNameSelected", `["name","paid_amount"]`, "name desc", 200, "ACC-PAY-2026-00016"},
		{"CreationSelectedResolves", `["name","creation","paid_amount"]`, "creation asc", 200, "ACC-PAY-2026-00013"},
		{"ModifiedSelectedResolves", `["name","modified"]`, "modified desc", 200, "ACC-PAY-2026-00016"},
		{"Qualified", `["name"]`, "`tabPayment Entry`.`creation` desc", 200, "ACC-PAY-2026-00016"},
		{"QualifiedUnquoted", `["name"]`, "`tabPayment Entry`.creation asc", 200, "ACC-PAY-2026-00013"},
		{"ChildOnlyColumn", `["name"]`, "allocated_amount asc, `tabPayment Entry`.`name` asc", 200, "ACC-PAY-2026-00016"},
		{"NoOrderBy", `["name"]`, "", 200, "ACC-PAY-2026-00013"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := map[string]string{"fields": tc.fields, "filters": childFilter, "limit_page_length": "0"}
			if tc.orderBy != "" {
				q["order_by"] = tc.orderBy
			}
			body := map[string]any{"doctype": "Payment Entry", "limit_page_length": 0}
			for k, v := range q {
				if k != "limit_page_length" {
					body[k] = v
				}
			}
			for _, r := range []resp{h.do("GET", list(pePath, q), nil), h.do("POST", "/api/method/frappe.client.get_list", body)} {
				if r.status != tc.status {
					t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
				}
				if tc.status == 500 {
					col := strings.Fields(tc.orderBy)[0]
					r.expectError(t, 500, "OperationalError")
					if ex := str(r.body["exception"]); ex != `pymysql.err.OperationalError: (1052, "Column '`+col+`' in ORDER BY is ambiguous")` {
						t.Errorf("exception %q", ex)
					}
					continue
				}
				rows, _ := r.body["data"].([]any)
				if rows == nil {
					rows, _ = r.body["message"].([]any)
				}
				if len(rows) != 4 || field(rows[0].(map[string]any), "name") != tc.first {
					t.Errorf("rows %v, want 4 starting with %s", rows, tc.first)
				}
			}
		})
	}
}

// TestR79NoOrderByIsPrimaryKeyOrder: without order_by there is no ORDER BY: rows come in
// name order under the site's collation, every time, whatever the creation order
// (79-pe-list-no-order-by-storage-order: pay_RN… created first comes after ACC-PAY-…).
func TestR79NoOrderByIsPrimaryKeyOrder(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }})
	seedSplitInvoice(t, h, erpnextsim.RazorpayClearing)
	for _, name := range []string{"pay_RN100000000000", "ACC-PAY-2026-00011", "Acc-pay-2026-00012"} {
		mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": name, "posting_date": "2026-12-01", "reference_date": "2026-12-01",
			"reference_no": name, "references": []any{}})))
	}
	want := "ACC-PAY-2026-00011,Acc-pay-2026-00012,ACC-PAY-2026-00013,ACC-PAY-2026-00014,ACC-PAY-2026-00015,ACC-PAY-2026-00016,pay_RN100000000000"
	for i := 0; i < 5; i++ {
		if got := strings.Join(names(h.do("GET", list(pePath, map[string]string{"limit_page_length": "0"}), nil)), ","); got != want {
			t.Fatalf("list %d without order_by: %s, want %s", i, got, want)
		}
	}
	byCreation := names(h.do("GET", list(pePath, map[string]string{"limit_page_length": "0", "order_by": "creation asc"}), nil))
	if got := strings.Join(byCreation[4:], ","); got != "pay_RN100000000000,ACC-PAY-2026-00011,Acc-pay-2026-00012" {
		t.Errorf("by creation %v: the client-named entries were created last", byCreation)
	}
}
