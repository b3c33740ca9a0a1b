package erpnextsim_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

var sysMgr = erpnextsim.User{Email: "sysmgr@example.com", Key: "SK", Secret: "SS",
	Roles: []string{erpnextsim.RoleSystemManager, erpnextsim.RoleAccountsUser, erpnextsim.RoleAccountsManager, erpnextsim.RoleSalesUser}}

var asSysMgr = []string{"Authorization", "token SK:SS"}

const addCommentPath = "/api/method/frappe.desk.form.utils.add_comment"

// TestCommentsAsRecorded: recordings 51-comment-on-sales-invoice, 51-comment-list-for-invoice,
// 51-add-comment-whitelisted-method.
func TestCommentsAsRecorded(t *testing.T) {
	h := seeded(t, erpnextsim.Options{Users: []erpnextsim.User{sysMgr,
		{Email: "limited@example.com", Key: "LK", Secret: "LS", Roles: []string{erpnextsim.RoleSalesUser}}}})
	roleMsg := "User <strong>api@example.com</strong> does not have doctype access via role permission for document <strong>Comment</strong>"
	const inv = "ACC-SINV-2026-00014"
	content := "Razorpay payment pay_CMTtest000001 parked: amount mismatch"

	r := h.do("POST", "/api/resource/Comment", map[string]any{"comment_type": "Comment", "reference_doctype": "Sales Invoice", "reference_name": inv, "content": content})
	r.expectError(t, 403, "PermissionError", roleMsg)
	if strings.Join(keys(r.body), ",") != "_error_message,_server_messages,exc_type" || r.body["_error_message"] != "No permission for Comment" {
		t.Errorf("create denial body %s", r.raw)
	}
	r = h.do("GET", list("/api/resource/Comment", map[string]string{"fields": `["name","comment_type","reference_doctype","reference_name","content","comment_email","owner"]`,
		"filters": `[["reference_doctype", "=", "Sales Invoice"], ["reference_name", "=", "` + inv + `"], ["comment_type", "=", "Comment"]]`}), nil)
	r.expectError(t, 403, "PermissionError", roleMsg)
	if r.body["exception"] != "frappe.exceptions.PermissionError" || r.body["_error_message"] != "No permission for Comment" {
		t.Errorf("list denial body %s", r.raw)
	}

	args := map[string]any{"reference_doctype": "Sales Invoice", "reference_name": inv, "content": content,
		"comment_email": "api@example.com", "comment_by": "Razorpay connector"}
	before := h.invoice(inv)["modified"]
	r = h.do("POST", addCommentPath, args)
	if r.status != 200 {
		t.Fatalf("add_comment: %s", r.raw)
	}
	// The recorded answer, name and timestamps aside.
	want := `{"message":{"name":"NAME","owner":"api@example.com","creation":"TS","modified":"TS","modified_by":"api@example.com","docstatus":0,"idx":0,` +
		`"comment_type":"Comment","comment_email":"api@example.com","comment_by":"Razorpay connector","published":0,"seen":0,` +
		`"reference_doctype":"Sales Invoice","reference_name":"ACC-SINV-2026-00014","content":"Razorpay payment pay_CMTtest000001 parked: amount mismatch","doctype":"Comment"}}`
	got := regexp.MustCompile(`"name":"[0-9a-z]{10}"`).ReplaceAllString(norm(r.raw), `"name":"NAME"`)
	if got != want {
		t.Errorf("add_comment body\n got %s\nwant %s", got, want)
	}
	if h.invoice(inv)["modified"] != before {
		t.Error("add_comment changed the invoice's modified")
	}
	cs := h.site.Comments("Sales Invoice", strings.ToLower(inv))
	if len(cs) != 1 || cs[0]["content"] != content || cs[0]["comment_by"] != "Razorpay connector" || cs[0]["name"] != r.data()["name"] {
		t.Fatalf("Comments() = %v", cs)
	}
	if len(h.site.Comments("Sales Invoice", "ACC-SINV-2026-00013")) != 0 {
		t.Error("comment on the wrong invoice")
	}
	state := h.do("GET", "/__sim/state", nil)
	if c, _ := state.body["comments"].([]any); len(c) != 1 || c[0].(map[string]any)["reference_name"] != inv {
		t.Errorf("state comments %v", state.body["comments"])
	}
	// A System Manager may list them (comment.json), the API user may not.
	r = h.do("GET", list("/api/resource/Comment", map[string]string{"fields": `["content"]`, "filters": `[["reference_name","=","` + inv + `"]]`}), nil, asSysMgr...)
	if r.raw != `{"data":[{"content":"`+content+`"}]}` {
		t.Errorf("system manager list: %s", r.raw)
	}

	// Unrecorded edges: Python's TypeError for missing parameters, 404 for an unknown document,
	// the read check on the reference, GET refused.
	delete(args, "comment_by")
	delete(args, "comment_email")
	r = h.do("POST", addCommentPath, args)
	if r.status != 500 || r.excType() != "TypeError" || r.body["exception"] != "TypeError: add_comment() missing 2 required positional arguments: 'comment_email' and 'comment_by'" {
		t.Errorf("missing args: %s", r.raw)
	}
	args["comment_email"], args["comment_by"] = "api@example.com", "x"
	args["reference_name"] = "ACC-SINV-2026-09999"
	h.do("POST", addCommentPath, args).expectError(t, 404, "DoesNotExistError", "Sales Invoice ACC-SINV-2026-09999 not found")
	pe := h.do("POST", pePath, pe(map[string]any{"docstatus": 1}))
	args["reference_doctype"], args["reference_name"] = "Payment Entry", pe.data()["name"]
	h.do("POST", addCommentPath, args, "Authorization", "token LK:LS").expectError(t, 403, "PermissionError")
	if r := h.do("POST", addCommentPath, args); r.status != 200 {
		t.Errorf("comment on a PE: %s", r.raw)
	}
	h.do("GET", list(addCommentPath, map[string]string{"reference_doctype": "Sales Invoice", "reference_name": inv, "content": "x", "comment_email": "a", "comment_by": "b"}), nil).
		expectError(t, 403, "PermissionError", "Not permitted")
}

// TestSystemSettingsNeedsSystemManager: recordings 54-*.
func TestSystemSettingsNeedsSystemManager(t *testing.T) {
	h := seeded(t, erpnextsim.Options{Users: []erpnextsim.User{sysMgr}})
	const path = "/api/resource/System%20Settings/System%20Settings"
	r := h.do("GET", path, nil)
	r.expectError(t, 403, "PermissionError", "User <strong>api@example.com</strong> does not have doctype access via role permission for document <strong>System Settings</strong><br>User <strong>api@example.com</strong> does not have access to this document")
	if r.body["exception"] != "frappe.exceptions.PermissionError" || r.body["_error_message"] != nil {
		t.Errorf("resource denial %s", r.raw)
	}
	for _, q := range []string{
		list("/api/method/frappe.client.get_value", map[string]string{"doctype": "System Settings", "fieldname": `["currency_precision","float_precision","number_format","rounding_method"]`}),
		list("/api/method/frappe.client.get_single_value", map[string]string{"doctype": "System Settings", "field": "currency_precision"}),
	} {
		r := h.do("GET", q, nil)
		r.expectError(t, 403, "PermissionError", "No permission for System Settings")
		if r.body["exception"] != "frappe.exceptions.PermissionError: No permission for System Settings" {
			t.Errorf("%s: %s", q, r.raw)
		}
	}
	r = h.do("GET", path, nil, asSysMgr...)
	d := r.data()
	if r.status != 200 || field(d, "currency_precision") != "" || field(d, "float_precision") != "3" || field(d, "rounding_method") != "Banker's Rounding" ||
		field(d, "number_format") != "#,##,###.##" || field(d, "time_zone") != "Asia/Kolkata" || field(d, "idx") != "0" || d["creation"] != nil ||
		field(d, "link_field_results_limit") != "10" || field(d, "doctype") != "System Settings" {
		t.Fatalf("system manager read: %s", r.raw)
	}
	if !strings.HasPrefix(r.raw, `{"data":{"name":"System Settings","owner":"Administrator","modified":"`) || !strings.Contains(r.raw, `"docstatus":0,"idx":"0","app_name":"ERPNext","country":"India",`) {
		t.Errorf("key order: %s", r.raw[:120])
	}
	if len(d) != 68 {
		t.Errorf("%d keys, recorded 68", len(d))
	}
	r = h.do("GET", list("/api/method/frappe.client.get_single_value", map[string]string{"doctype": "System Settings", "field": "float_precision"}), nil, asSysMgr...)
	if r.raw != `{"message":"3"}` {
		t.Errorf("get_single_value: %s", r.raw)
	}
	r = h.do("GET", list("/api/method/frappe.client.get_value", map[string]string{"doctype": "System Settings", "fieldname": `["currency_precision","rounding_method"]`}), nil, asSysMgr...)
	if r.raw != `{"message":{"currency_precision":"","rounding_method":"Banker's Rounding"}}` {
		t.Errorf("get_value: %s", r.raw)
	}
	// Accounts Settings is a Single the API user (Accounts Manager) may read.
	r = h.do("GET", list("/api/method/frappe.client.get_single_value", map[string]string{"doctype": "Accounts Settings", "field": "create_pr_in_draft_status"}), nil)
	if r.raw != `{"message":1}` {
		t.Errorf("accounts settings: %s", r.raw)
	}
}
