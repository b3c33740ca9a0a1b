package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// TestR11GetLoggedUser: frappe.auth.get_logged_user answers the API user, by POST as `check`
// sends it (R11) and by GET as Client.Ping does.
func TestR11GetLoggedUser(t *testing.T) {
	h := connectorHarness(t)
	replayFile(t, h, connectorFolder, "R11-check-get-logged-user.json")
	if r := h.do("GET", "/api/method/frappe.auth.get_logged_user", nil); r.status != 200 || r.raw != `{"message":"api@example.com"}` {
		t.Errorf("GET: %d %s", r.status, r.raw)
	}
	if r := h.do("GET", "/api/method/frappe.auth.get_logged_user", nil, as(siteAdmin)...); r.raw != `{"message":"siteadmin@example.com"}` {
		t.Errorf("other user: %s", r.raw)
	}
}

// TestR12HasPermission: frappe.client.has_permission answers by the user's roles (R12), and
// 404 for a document that does not exist.
func TestR12HasPermission(t *testing.T) {
	h := connectorHarness(t)
	seedSplitInvoice(t, h, erpnextsim.RazorpayClearing)
	mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": "ACC-PAY-2026-00017", "posting_date": "2026-12-01", "reference_date": "2026-12-01", "references": []any{}})))
	replayFile(t, h, connectorFolder, "R12-check-has-permission.json")
	call := func(dt, name, perm string) resp {
		return h.do("POST", "/api/method/frappe.client.has_permission", map[string]any{"doctype": dt, "docname": name, "perm_type": perm})
	}
	if r := call("Integration Request", "", "read"); r.raw != `{"message":{"has_permission":false}}` {
		t.Errorf("Integration Request read: %s", r.raw)
	}
	if r := call("Payment Entry", "ACC-PAY-2026-09999", "read"); r.status != 404 {
		t.Errorf("missing document: %d %s", r.status, r.raw)
	}
}

// TestR13UserPermissionForbidden: the Accounts User + Sales User API user may not list User
// Permissions (R13, the recorded body); a System Manager reads an empty list.
func TestR13UserPermissionForbidden(t *testing.T) {
	h := connectorHarness(t)
	replayFile(t, h, connectorFolder, "R13-check-user-permission-403.json")
	r := h.do("GET", list("/api/resource/User%20Permission", map[string]string{"fields": `["allow","for_value"]`}), nil, as(siteAdmin)...)
	if r.status != 200 || r.raw != `{"data":[]}` {
		t.Errorf("system manager: %d %s", r.status, r.raw)
	}
}

// TestDefaultAPIUserHasAccountsUserAndSalesUser: the default API user holds exactly the roles of
// the connector recordings, so what they could not read is refused here too (45-*, 51-*, 52-*,
// R13), while what they could is read.
func TestDefaultAPIUserHasAccountsUserAndSalesUser(t *testing.T) {
	h := connectorHarness(t)
	for _, path := range []string{"/api/resource/Integration%20Request", "/api/resource/User%20Permission", "/api/resource/Comment"} {
		if r := h.do("GET", path, nil); r.status != 403 || r.excType() != "PermissionError" {
			t.Errorf("GET %s: %d %s, want 403", path, r.status, r.raw)
		}
	}
	if r := h.do("GET", "/api/resource/Accounts%20Settings/Accounts%20Settings", nil); r.status != 403 {
		t.Errorf("Accounts Settings: %d, want 403", r.status)
	}
	for _, path := range []string{pePath, siPath, "/api/resource/Payment%20Request", "/api/resource/Journal%20Entry", "/api/resource/GL%20Entry", "/api/resource/Bank%20Transaction", "/api/resource/Company/Example%20Company"} {
		if r := h.do("GET", path, nil); r.status != 200 {
			t.Errorf("GET %s: %d %s, want 200", path, r.status, r.raw)
		}
	}
	first := newHarness(t, erpnextsim.Options{APIRoles: erpnextsim.FirstPassAPIRoles})
	if r := first.do("GET", "/api/resource/Accounts%20Settings/Accounts%20Settings", nil); r.status != 200 {
		t.Errorf("first-pass roles: Accounts Settings %d, want 200", r.status)
	}
}
