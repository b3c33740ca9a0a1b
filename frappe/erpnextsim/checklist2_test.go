package erpnextsim_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

func TestItem04BadFieldsAndJSON(t *testing.T) {
	h := seeded(t)
	h.do("GET", list(siPath, map[string]string{"fields": `["name","nope"]`}), nil).expectError(t, 417, "DataError", "Field not permitted in query: nope")
	h.do("GET", list(siPath, map[string]string{"filters": `[["nope","=",1]]`}), nil).expectError(t, 417, "DataError", "Field not permitted in query: nope")
	r := h.do("GET", list(siPath, map[string]string{"filters": `[["name","=",`}), nil)
	r.expectError(t, 500, "JSONDecodeError")
	if len(r.messages()) != 0 {
		t.Errorf("500 carries messages %q", r.messages())
	}
}

func TestItem06NullsAndModified(t *testing.T) {
	h := seeded(t)
	d := h.do("GET", pePath+"/x", nil)
	d.expectError(t, 404, "DoesNotExistError")
	created := h.do("POST", pePath, pe(nil)).data()
	name := field(created, "name")
	got := h.do("GET", pePath+"/"+name, nil).data()
	if _, ok := got["clearance_date"]; ok {
		t.Error("resource GET kept a null field")
	}
	viaClient := h.do("GET", list("/api/method/frappe.client.get", map[string]string{"doctype": "Payment Entry", "name": name}), nil).data()
	if v, ok := viaClient["clearance_date"]; !ok || v != nil {
		t.Error("frappe.client.get dropped a null field")
	}
	upd := h.do("PUT", pePath+"/"+name, map[string]any{"remarks": "x", "custom_remarks": 1}).data()
	if field(upd, "modified") == field(got, "modified") {
		t.Error("modified did not change on write")
	}
}

func TestItem19FeeRecipe(t *testing.T) {
	h := seeded(t)
	ded := []any{map[string]any{"account": erpnextsim.FeeAccount, "cost_center": erpnextsim.CostCenter, "amount": 23.6}}
	r := h.do("POST", pePath, pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4, "docstatus": 1, "deductions": ded, "references": refs("ACC-SINV-2026-00004", 1000)}))
	if field(r.data(), "status") != "Submitted" || field(h.invoice("ACC-SINV-2026-00004"), "outstanding_amount") != "0.0" {
		t.Fatal(r.raw)
	}
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4, "references": refs("ACC-SINV-2026-00005", 1000),
		"deductions": []any{map[string]any{"account": erpnextsim.FeeAccount, "amount": 23.6}}})).
		expectError(t, 417, "MandatoryError", "Error: <strong>Payment Entry Deduction</strong> Row #1: Value missing for: Cost Center")
}

func TestItem23ResubmitAndUpdateAfterSubmit(t *testing.T) {
	h := seeded(t)
	d := h.do("POST", pePath, pe(map[string]any{"docstatus": 1})).data()
	r := h.do("PUT", pePath+"/"+field(d, "name"), map[string]any{"docstatus": 1})
	if r.status != 200 || field(r.data(), "modified") == field(d, "modified") {
		t.Fatalf("re-submit: %d, modified bumped %v", r.status, field(r.data(), "modified") != field(d, "modified"))
	}
	h.do("PUT", pePath+"/"+field(d, "name"), map[string]any{"paid_amount": 5}).expectError(t, 417, "UpdateAfterSubmitError")
}

func TestItem24Delete(t *testing.T) {
	h := seeded(t)
	sub := h.do("POST", pePath, pe(map[string]any{"docstatus": 1})).data()
	r := h.do("DELETE", pePath+"/"+field(sub, "name"), nil)
	r.expectError(t, 417, "ValidationError")
	if !strings.Contains(r.messages()[0], "Submitted Record cannot be deleted") {
		t.Error(r.messages())
	}
	draft := h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00002", 1000)})).data()
	if r := h.do("DELETE", pePath+"/"+field(draft, "name"), nil); r.status != 202 || r.raw != `{"data":"ok"}` {
		t.Fatalf("delete draft: %d %s", r.status, r.raw)
	}
}

func TestItem25TimestampMismatch(t *testing.T) {
	h := seeded(t)
	d := h.do("POST", pePath, pe(nil)).data()
	r := h.do("PUT", pePath+"/"+field(d, "name"), map[string]any{"remarks": "x", "modified": "2026-01-01 00:00:00.000000"})
	r.expectError(t, 417, "TimestampMismatchError")
	if m := r.messages()[0]; !strings.HasPrefix(m, "Error: Document has been modified after you have opened it (") || !strings.HasSuffix(m, "). Please refresh to get the latest document.") {
		t.Errorf("message %q", m)
	}
	if r := h.do("PUT", pePath+"/"+field(d, "name"), map[string]any{"remarks": "y"}); r.status != 200 {
		t.Errorf("PUT without modified: %s", r.raw)
	}
}

func TestItem27ClientReads(t *testing.T) {
	h := seeded(t)
	r := h.do("GET", list("/api/method/frappe.client.get_value", map[string]string{"doctype": "Sales Invoice", "filters": `{"name":"nope"}`, "fieldname": "name"}), nil)
	if r.raw != `{"message":{}}` {
		t.Errorf("no match: %s", r.raw)
	}
	r = h.do("GET", list("/api/method/frappe.client.get_value", map[string]string{"doctype": "Sales Invoice", "filters": "ACC-SINV-2026-00001", "fieldname": "status"}), nil)
	if r.raw != `{"message":{"status":"Unpaid"}}` {
		t.Errorf("found: %s", r.raw)
	}
	r = h.do("GET", list("/api/method/frappe.client.get_list", map[string]string{"doctype": "Sales Invoice", "limit": "2"}), nil)
	if n := len(r.body["message"].([]any)); n != 17 {
		t.Errorf("get_list with limit returned %d rows, want all 17 (limit ignored)", n)
	}
	r = h.do("GET", list("/api/method/frappe.client.get_count", map[string]string{"doctype": "Sales Invoice"}), nil)
	if r.raw != `{"message":17}` {
		t.Errorf("count: %s", r.raw)
	}
}

func TestItem28MethodRules(t *testing.T) {
	h := seeded(t)
	h.do("GET", list("/api/method/frappe.client.insert", map[string]string{"doc": `{"doctype":"Customer","customer_name":"X"}`}), nil).
		expectError(t, 403, "PermissionError", "Not permitted")
	h.do("GET", "/api/method/frappe.client.no_such_fn", nil).
		expectError(t, 417, "ValidationError", "Failed to get method for command frappe.client.no_such_fn with module 'frappe.client' has no attribute 'no_such_fn'")
}

func TestItem29NoPermission(t *testing.T) {
	h := seeded(t, erpnextsim.Options{Users: []erpnextsim.User{{Email: "limited@example.com", Key: "LK", Secret: "LS", Roles: []string{erpnextsim.RoleSalesUser}}}})
	lim := []string{"Authorization", "token LK:LS"}
	r := h.do("GET", pePath, nil, lim...)
	r.expectError(t, 403, "PermissionError", "User <strong>limited@example.com</strong> does not have doctype access via role permission for document <strong>Payment Entry</strong>")
	if r.body["_error_message"] != "No permission for Payment Entry" {
		t.Error(r.raw)
	}
	h.do("POST", pePath, pe(nil), lim...).expectError(t, 403, "PermissionError")
	if r := h.do("GET", siPath+"?limit=1", nil, lim...); r.status != 200 {
		t.Errorf("Sales User cannot list invoices: %s", r.raw)
	}
	h.do("POST", "/api/resource/Integration%20Request", map[string]any{"status": "Queued"}).expectError(t, 403, "PermissionError")
	h.do("POST", "/api/resource/Comment", map[string]any{"comment_type": "Comment"}).expectError(t, 403, "PermissionError")
}

func TestItem30ChildWithoutParent(t *testing.T) {
	h := seeded(t)
	r := h.do("GET", "/api/resource/Payment%20Entry%20Reference", nil)
	if r.status != 403 || r.excType() != "PermissionError" || r.body["_server_messages"] != nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if r := h.do("GET", list("/api/resource/Mode%20of%20Payment%20Account", map[string]string{"parent": "Mode of Payment", "fields": `["default_account"]`, "filters": `[["parent","=","Razorpay"]]`}), nil); r.raw != `{"data":[{"default_account":"Razorpay Clearing - EC"}]}` {
		t.Errorf("with parent: %s", r.raw)
	}
}

func TestItem31RateLimit(t *testing.T) {
	h := seeded(t)
	h.site.SetRateLimit(time.Second, time.Minute, 600*time.Millisecond)
	ok := h.do("GET", siPath+"?limit=1", nil)
	if ok.status != 200 || ok.header.Get("X-RateLimit-Limit") != "1000000" || ok.header.Get("X-RateLimit-Remaining") != "400000" || ok.header.Get("X-RateLimit-Reset") == "" {
		t.Fatalf("accepted: %d %v", ok.status, ok.header)
	}
	h.do("GET", siPath+"?limit=1", nil) // spends past the budget
	r := h.do("GET", siPath+"?limit=1", nil)
	r.expectError(t, 429, "TooManyRequestsError")
	if r.header.Get("Retry-After") == "" || r.header.Get("Retry-After") != r.header.Get("X-RateLimit-Reset") || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429 headers %v", r.header)
	}
	if r.body["exception"] != "frappe.exceptions.TooManyRequestsError" || r.body["_server_messages"] != nil {
		t.Errorf("429 body %s", r.raw)
	}
}

func TestItem32LockWaitAndGatewayFaults(t *testing.T) {
	h := seeded(t)
	h.site.FailNextWith(1, erpnextsim.FaultQueryTimeout)
	r := h.do("POST", pePath, pe(map[string]any{"docstatus": 1}))
	r.expectError(t, 500, "QueryTimeoutError")
	if r.body["exception"] != "frappe.exceptions.QueryTimeoutError: (1205, 'Lock wait timeout exceeded; try restarting transaction')" {
		t.Error(r.raw)
	}
	h.site.FailNextWith(1, erpnextsim.FaultDeadlock)
	h.do("POST", pePath, pe(map[string]any{"docstatus": 1})).expectError(t, 500, "QueryDeadlockError")
	if field(h.invoice("ACC-SINV-2026-00001"), "outstanding_amount") != "1000.0" {
		t.Fatal("an injected failure committed")
	}
	h.site.DropResponseAfterCommit(1)
	r = h.do("POST", pePath, pe(map[string]any{"docstatus": 1}))
	if r.status != 504 || !strings.Contains(r.raw, "<html>") || field(h.invoice("ACC-SINV-2026-00001"), "outstanding_amount") != "0.0" {
		t.Fatalf("gateway timeout after commit: %d", r.status)
	}
	h.site.FailNextWith(1, erpnextsim.FaultMaintenance)
	h.do("GET", siPath, nil).expectError(t, 503, "SessionStopped")
}

func TestItem33SuccessMayCarryMessages(t *testing.T) {
	h := seeded(t)
	_, _ = creditNote(t, h)
	r := h.do("POST", siPath, map[string]any{"customer": "Test Customer", "is_return": 1, "return_against": "ACC-SINV-2026-00006",
		"items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": -1, "rate": 100}}})
	if r.status != 200 || len(r.messages()) != 2 || r.data() == nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
}

func TestItem34NonAPIPathIsHTML404(t *testing.T) {
	h := seeded(t)
	r := h.do("GET", "/app/sales-invoice", nil)
	if r.status != 404 || !strings.Contains(r.raw, "<title>404 Not Found</title>") || r.body != nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
}

// TestFrozenPeriodOnSubmitOnly is recordings 52-*: drafts pass, submit is refused.
func TestFrozenPeriodOnSubmitOnly(t *testing.T) {
	h := seeded(t)
	r := h.do("PUT", "/api/resource/Accounts%20Settings/Accounts%20Settings", map[string]any{"acc_frozen_upto": "2026-11-29"})
	if field(r.data(), "acc_frozen_upto") != "2026-11-29" {
		t.Fatal(r.raw)
	}
	body := pe(map[string]any{"posting_date": "2026-11-28", "reference_date": "2026-11-28"})
	if r := h.do("POST", pePath, body); r.status != 200 {
		t.Fatalf("draft: %s", r.raw)
	}
	body["docstatus"] = 1
	r = h.do("POST", pePath, body)
	r.expectError(t, 417, "ValidationError", "You are not authorized to add or update entries before 29-11-2026")
	if r.body["_exc_source"] != "erpnext (app)" {
		t.Error(r.raw)
	}
	h.site.SetFrozenUpto("")
	if r := h.do("POST", pePath, body); r.status != 200 {
		t.Fatalf("after unfreeze: %s", r.raw)
	}
}

// TestControlEndpoints covers /__sim/state, /__sim/faults and /__sim/reset.
func TestControlEndpoints(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "deductions": []any{map[string]any{"account": erpnextsim.FeeAccount, "cost_center": erpnextsim.CostCenter, "amount": 10}},
		"paid_amount": 990, "received_amount": 990}))
	st := h.do("GET", "/__sim/state", nil)
	pes := st.body["payment_entries"].([]any)
	p := pes[0].(map[string]any)
	if len(pes) != 1 || field(row0(p, "references"), "allocated_amount") != "1000.0" || field(row0(p, "deductions"), "amount") != "10.0" {
		t.Fatalf("state: %s", st.raw)
	}
	for _, si := range st.body["sales_invoices"].([]any) {
		if m := si.(map[string]any); m["name"] == "ACC-SINV-2026-00001" && (field(m, "outstanding_amount") != "0.0" || m["status"] != "Paid") {
			t.Errorf("invoice state %v", m)
		}
	}
	h.do("POST", "/__sim/faults", map[string]any{"fail_next": 1, "fault": "bad-gateway"})
	if r := h.do("GET", siPath, nil); r.status != 502 {
		t.Errorf("fault not applied: %d", r.status)
	}
	if r := h.do("POST", "/__sim/reset", nil); r.status != 200 {
		t.Fatal(r.raw)
	}
	if n := len(h.site.Docs("Sales Invoice")); n != 0 {
		t.Errorf("%d invoices after reset", n)
	}
	if _, ok := h.site.Doc("Account", erpnextsim.DefaultBank); !ok {
		t.Error("reset lost the chart")
	}
}

// TestItem34UnknownSiteIsHTML404 is recordings 34-unknown-host and 34-unknown-site-header.
func TestItem34UnknownSiteIsHTML404(t *testing.T) {
	site := erpnextsim.New(erpnextsim.Options{APIKey: "KEY", APISecret: "SECRET", SiteNames: []string{"erp.localhost"}})
	for _, tc := range []struct{ host, header, name string }{
		{"unknown.example", "", "unknown.example"},
		{"erp.localhost", "nosuchsite.local", "nosuchsite.local"},
	} {
		req := httptest.NewRequest("GET", "/api/resource/Sales%20Invoice", nil)
		req.Host = tc.host
		if tc.header != "" {
			req.Header.Set("X-Frappe-Site-Name", tc.header)
		}
		req.Header.Set("Authorization", "token KEY:SECRET")
		w := httptest.NewRecorder()
		site.ServeHTTP(w, req)
		want := "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>" + tc.name + " does not exist</p>\n"
		if w.Code != 404 || w.Body.String() != want || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s/%s: %d %q %q", tc.host, tc.header, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
	req := httptest.NewRequest("GET", "/api/resource/Sales%20Invoice", nil)
	req.Host = "erp.localhost:8000"
	req.Header.Set("Authorization", "token KEY:SECRET")
	w := httptest.NewRecorder()
	site.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Errorf("the site's own name: %d %s", w.Code, w.Body)
	}
}
