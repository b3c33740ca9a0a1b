package erpnextsim

import "strings"

// What `razorpay-erpnext check` asks about the API user (erpnext-recorded-connector R11-R13):
//   - frappe.auth.get_logged_user (GET or POST) answers the user's id (R11);
//   - frappe.client.has_permission(doctype, docname, perm_type="read") answers
//     {"has_permission": bool} by role (R12), 404 when docname does not exist;
//   - User Permission is readable by a System Manager only: Accounts User + Sales User get the
//     list refusal 403 with "No permission for User Permission" (R13). The simulator holds no
//     User Permissions, so a System Manager reads an empty list.

const (
	getLoggedUserCmd  = "frappe.auth.get_logged_user"
	hasPermissionCmd  = "frappe.client.has_permission"
	userPermissionDT  = "User Permission"
	userPermissionDef = `
user|Link|User|User|r
allow|Link|Allow|DocType|r
for_value|Dynamic Link|For Value|allow|r
is_default|Check|Is Default||
apply_to_all_doctypes|Check|Apply To All Document Types||
applicable_for|Link|Applicable For|DocType|
hide_descendants|Check|Hide Descendants||
`
)

func init() {
	register(userPermissionDT, userPermissionDef, nil)
	docPerms[userPermissionDT] = struct{ read, create []string }{read: []string{RoleSystemManager}, create: []string{RoleSystemManager}}
	noPermission[userPermissionDT] = true
	methodHooks[getLoggedUserCmd] = func(*Site) handler {
		return func(c *call) (*fErr, step) { return nil, func() any { return c.user } }
	}
	methodHooks[hasPermissionCmd] = func(s *Site) handler { return s.users.hasPermission }
	readOnlyMethods[hasPermissionCmd] = true
}

// hasPermission is frappe.client.has_permission: frappe.has_permission(doctype, perm_type,
// docname) by the user's roles.
func (us *users) hasPermission(c *call) (*fErr, step) {
	dt, name := c.str("doctype"), c.str("docname")
	if metas[dt] == nil {
		if knownUnmodelled[dt] {
			return notModelled("has_permission on " + dt), nil
		}
		return doctypeError(c, dt, "read"), nil
	}
	if name != "" && us.db.get(dt, name) == nil {
		return notFound(dt, name), nil
	}
	action := "read"
	switch strings.ToLower(c.str("perm_type")) {
	case "write", "create", "submit", "cancel", "delete", "amend":
		action = "create"
	}
	ok := us.can(c.user, dt, action)
	return nil, func() any { return obj{{"has_permission", ok}} }
}
