package erpnextsim

import (
	"crypto/subtle"
	"slices"
)

// users answers who a caller is and what their roles let them do (Options.APIKey, Users).
type users struct {
	db  *store
	opt Options
}

// Roles the simulator's permission table knows (Frappe role names).
const (
	RoleSystemManager   = "System Manager"
	RoleAccountsUser    = "Accounts User"
	RoleAccountsManager = "Accounts Manager"
	RoleSalesUser       = "Sales User"
	RoleSalesManager    = "Sales Manager"
)

// User is an API user of the site besides APIUser (Options.Users): token key:secret
// authenticates as Email with Roles. Recordings 29-limited-user-* use a user with only
// RoleSalesUser; 45-* and 54-* a System Manager.
type User struct {
	Email  string   // user id, e.g. "sysmgr@example.com"
	Key    string   // API key
	Secret string   // API secret
	Roles  []string // e.g. []string{RoleSystemManager, RoleAccountsUser}
}

// DefaultAPIRoles are APIUser's roles unless Options.APIRoles says otherwise: exactly what the
// connector's documented API user holds and what the real site's API user held while the
// connector recordings were made (erpnext-recorded-connector/README: Accounts User + Sales
// User). Such a user may not read Integration Requests (45-*), Comments (51-*), Accounts
// Settings (52-*), System Settings (54-*) or User Permissions (R13), nor cancel a Bank
// Transaction (erpnext-recorded-settlement/72-bt-cancel-api-user-403).
var DefaultAPIRoles = []string{RoleAccountsUser, RoleSalesUser}

// FirstPassAPIRoles are the roles the API user of the first recordings held
// (erpnext-recorded/README "Site data"): Accounts User/Manager and Sales User/Manager.
var FirstPassAPIRoles = []string{RoleAccountsUser, RoleAccountsManager, RoleSalesUser, RoleSalesManager}

// lookupUser returns the user for an API key/secret pair, "" when none matches.
func (us *users) lookupUser(key, secret string) string {
	match := func(k, sec string) bool {
		return k != "" && subtle.ConstantTimeCompare([]byte(key), []byte(k)) == 1 &&
			subtle.ConstantTimeCompare([]byte(secret), []byte(sec)) == 1
	}
	if match(us.opt.APIKey, us.opt.APISecret) {
		return APIUser
	}
	for _, u := range us.opt.Users {
		if match(u.Key, u.Secret) {
			return u.Email
		}
	}
	return ""
}

func (us *users) roles(user string) []string {
	if user == APIUser {
		if us.opt.APIRoles != nil {
			return us.opt.APIRoles
		}
		return DefaultAPIRoles
	}
	for _, u := range us.opt.Users {
		if u.Email == user {
			return u.Roles
		}
	}
	return nil
}

// docPerms is the role permission table of the modelled doctypes (from each doctype's JSON
// "permissions", reduced to read and create): roles that may read, roles that may create.
// Doctypes not listed are readable and creatable by any logged-in user with a role.
var docPerms = map[string]struct{ read, create []string }{
	"Payment Entry":       {read: []string{RoleAccountsUser, RoleAccountsManager}, create: []string{RoleAccountsUser, RoleAccountsManager}},
	"Journal Entry":       {read: []string{RoleAccountsUser, RoleAccountsManager}, create: []string{RoleAccountsUser, RoleAccountsManager}},
	"GL Entry":            {read: []string{RoleAccountsUser, RoleAccountsManager}},
	"Payment Request":     {read: []string{RoleAccountsUser, RoleAccountsManager}, create: []string{RoleAccountsUser, RoleAccountsManager}},
	"Integration Request": {read: []string{RoleSystemManager}},                                                             // in_create: nobody but Administrator (§5.1)
	"Comment":             {read: []string{RoleSystemManager}, create: []string{RoleSystemManager}},                        // recordings 51-*
	"System Settings":     {read: []string{RoleSystemManager}, create: []string{RoleSystemManager}},                        // recordings 54-*
	"Accounts Settings":   {read: []string{RoleAccountsManager, RoleSystemManager}, create: []string{RoleAccountsManager}}, // 52-*
	"User":                {read: []string{RoleSystemManager}, create: []string{RoleSystemManager}},
	"Role":                {read: []string{RoleSystemManager}, create: []string{RoleSystemManager}},
}

// can reports whether user may perform action ("list", "read", "create", "write", "delete")
// on doctype by role. Administrator may do anything; Guest nothing.
func (us *users) can(user, doctype, action string) bool {
	if user == admin {
		return true
	}
	if user == "" {
		return false
	}
	p, ok := docPerms[doctype]
	if !ok {
		return true
	}
	allowed := p.read
	if action == "create" || action == "write" || action == "delete" {
		allowed = p.create
	}
	for _, r := range us.roles(user) {
		if slices.Contains(allowed, r) {
			return true
		}
	}
	return false
}
