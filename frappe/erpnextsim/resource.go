package erpnextsim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// rest routes /api/resource and /api/method calls to the part of the site that owns the
// doctype or method, and holds the frappe.client helpers.
type rest struct {
	db       *store
	users    *users
	ledger   *ledger
	accounts *accounts
	comments *comments
	drafts   *entryDrafts
	parties  *parties
	entries  *paymentEntries
	requests *paymentRequests
	queries  *queries
	invoices *salesInvoices
	// inserts, updates and methods are the hooks bound to this site (bindHooks).
	inserts map[string]insertHook
	updates map[string]updateHook
	methods map[string]handler
}

// bindHooks binds insertHooks, updateHooks and methodHooks to the parts of s.
func (rs *rest) bindHooks(s *Site) {
	rs.inserts, rs.updates, rs.methods = map[string]insertHook{}, map[string]updateHook{}, map[string]handler{}
	for dt, bind := range insertHooks {
		rs.inserts[dt] = bind(s)
	}
	for dt, bind := range updateHooks {
		rs.updates[dt] = bind(s)
	}
	for cmd, bind := range methodHooks {
		rs.methods[cmd] = bind(s)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// doctypeError answers a doctype the simulator cannot serve: no permission
// for the API user (recorded), a real doctype not modelled yet (501), or an
// unknown one (500 ImportError, recording 05-get-unknown-doctype).
func doctypeError(c *call, dt, action string) *fErr {
	switch {
	case noPermission[dt] && !(metas[dt] != nil && c.users.can(c.user, dt, action)):
		return permissionDenied(c.userName(), dt, action)
	case metas[dt] != nil && !c.users.can(c.user, dt, action):
		return permissionDenied(c.userName(), dt, action)
	case knownUnmodelled[dt]:
		return notModelled("doctype " + dt)
	case metas[dt] == nil:
		snake := strings.ToLower(strings.ReplaceAll(dt, " ", "_"))
		return serverError("ImportError", "Error: No module named 'frappe.core.doctype."+snake+"'")
	}
	return nil
}

func (c *call) userName() string {
	if c.user == "" {
		return "Guest"
	}
	return c.user
}

// resourceHandler dispatches /api/resource/{dt}[/{name}] (§1.1).
func (rs *rest) resourceHandler(c *call, dt, name string, hasName bool) handler {
	action := map[bool]map[string]string{
		false: {http.MethodGet: "list", http.MethodPost: "create"},
		true:  {http.MethodGet: "read", http.MethodPut: "write", http.MethodDelete: "delete"},
	}[hasName][c.method]
	if action == "" {
		return fail(routeMiss()) // unrouted verb: README difference 10
	}
	if c.user == "" {
		if metas[dt] != nil || knownUnmodelled[dt] || noPermission[dt] {
			return fail(rs.guestDenied(dt, action))
		}
	}
	if e := doctypeError(c, dt, action); e != nil {
		return fail(e)
	}
	m := metas[dt]
	if m.child && (action == "list") && c.str("parent") == "" {
		return fail(&fErr{status: http.StatusForbidden, excType: "PermissionError", bare: true}) // recording 30-child-list-without-parent
	}
	switch action {
	case "list":
		return func(c *call) (*fErr, step) { return rs.queries.listResource(c, dt, false) }
	case "read":
		return func(c *call) (*fErr, step) {
			r := rs.db.get(dt, name)
			if r == nil || m.child {
				return notFound(dt, name), nil
			}
			return nil, func() any { return r.render(false) }
		}
	case "create":
		return func(c *call) (*fErr, step) {
			doc, e := docArg(c)
			if e != nil {
				return e, nil
			}
			return rs.insert(c, dt, doc)
		}
	case "write":
		return func(c *call) (*fErr, step) {
			doc, e := docArg(c)
			if e != nil {
				return e, nil
			}
			delete(doc, "flags")
			return rs.update(c, dt, name, doc, true)
		}
	default:
		return func(c *call) (*fErr, step) { return rs.deleteDoc(c, dt, name) }
	}
}

// guestDenied is the 403 a request without credentials gets (recordings 01-*).
func (rs *rest) guestDenied(dt, action string) *fErr {
	switch action {
	case "list", "read", "create":
		return permissionDenied("Guest", dt, action)
	}
	return permissionDenied("Guest", dt, "read")
}

// docArg takes the document of a POST/PUT: the "data" argument (JSON text or
// object) when present, else the whole body (§1.3). "doctype" is dropped.
func docArg(c *call) (map[string]any, *fErr) {
	var doc map[string]any
	if d, ok := c.args["data"]; ok {
		switch x := d.(type) {
		case map[string]any:
			doc = x
		case string:
			dec := json.NewDecoder(strings.NewReader(x))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				return nil, jsonDecodeError(x, err)
			}
		default:
			return nil, serverError("AttributeError", "AttributeError: 'list' object has no attribute 'get'")
		}
	} else {
		doc = map[string]any{}
		for k, v := range c.args {
			doc[k] = v
		}
	}
	cp := make(map[string]any, len(doc))
	for k, v := range doc {
		cp[k] = v
	}
	delete(cp, "doctype")
	return cp, nil
}

// fromBody builds (or overlays) a record from a JSON document: known columns
// only, unknown keys ignored (§1.3), child tables replaced when present.
func fromBody(dt string, body map[string]any, base *record) *record {
	m := metas[dt]
	r := newRecord(dt)
	if base != nil {
		r = base.clone()
	}
	for k, v := range body {
		f := m.field(k)
		switch {
		case f == nil:
			if k == "docstatus" || k == "name" || k == "modified" {
				if k == "docstatus" {
					r.f[k] = coerce(&field{typ: ftInt}, v)
				}
			}
		case f.typ == ftTable:
			list, _ := v.([]any)
			var rows []*record
			for _, item := range list {
				rm, ok := item.(map[string]any)
				if !ok {
					continue
				}
				child := fromBody(f.options, rm, nil)
				if n, ok := rm["name"].(string); ok && base != nil {
					for _, old := range base.rows(f.name) {
						if old.name() == n {
							child = fromBody(f.options, rm, old)
						}
					}
				}
				rows = append(rows, child)
			}
			r.f[k] = rows
		default:
			if cv := coerce(f, v); cv != nil {
				r.f[k] = cv
			} else {
				delete(r.f, k)
			}
			if n, ok := v.(json.Number); ok && f.typ.numeric() {
				if r.intLit == nil {
					r.intLit = map[string]bool{}
				}
				r.intLit[k] = !strings.ContainsAny(n.String(), ".eE")
			}
		}
	}
	return r
}

// clientName is the string "name" a POST body carries, kept on Frappe 15.72+
// (README difference 1) and discarded on 15.44 (§1.3).
func (db *store) clientName(body map[string]any) string {
	if db.legacy {
		return ""
	}
	n, _ := body["name"].(string)
	return strings.TrimSpace(n)
}

func (rs *rest) insert(c *call, dt string, body map[string]any) (*fErr, step) {
	switch dt {
	case "Payment Entry":
		return rs.entries.insertPaymentEntry(c, body)
	case "Sales Invoice":
		return rs.invoices.insertSalesInvoice(c, body)
	case "Customer":
		return rs.parties.insertCustomer(c, body)
	case contactDT:
		return rs.parties.insertContact(c, body)
	case commentDT:
		return rs.comments.insertComment(c, body)
	}
	if h := rs.inserts[dt]; h != nil {
		return h(c, body)
	}
	return notModelled("creating " + dt), nil
}

func (rs *rest) update(c *call, dt, name string, body map[string]any, viaPut bool) (*fErr, step) {
	cur := rs.db.get(dt, name)
	if cur == nil {
		return notFound(dt, name), nil
	}
	if m, ok := body["modified"].(string); ok && m != cur.str("modified") {
		return timestampMismatch(cur.str("modified"), rs.db.peekStamp()), nil
	}
	switch dt {
	case accountsSettings:
		return rs.accounts.updateSettings(c, cur, body)
	case "Payment Entry":
		return rs.entries.updatePaymentEntry(c, cur, body)
	case "Sales Invoice":
		return rs.invoices.updateSalesInvoice(c, cur, body)
	}
	if h := rs.updates[dt]; h != nil {
		return h(c, cur, body, viaPut)
	}
	return notModelled("updating " + dt), nil
}

// peekStamp is the timestamp the next write would get (for messages).
func (db *store) peekStamp() string {
	last := db.lastTS
	ts := db.stamp()
	db.lastTS = last
	return ts
}

// timestampMismatch is §8.3's conflict (recordings 25-*): the "exception" line lacks the
// message's final period, as recorded.
func timestampMismatch(dbModified, now string) *fErr {
	text := "Error: Document has been modified after you have opened it (" + dbModified + ", " + now +
		"). Please refresh to get the latest document"
	e := throw(text + ".").as("TimestampMismatchError")
	e.exception = "frappe.exceptions.TimestampMismatchError: " + text
	return e
}

// docstatusTransition checks §1.7's table; it returns the action to run.
func docstatusTransition(from, to int64) (string, *fErr) {
	label := map[int64]string{0: "0 (Draft)", 1: "1 (Submitted)", 2: "2 (Cancelled)"}
	switch {
	case from == 2:
		return "", silent(http.StatusExpectationFailed, "ValidationError", "Cannot edit cancelled document")
	case from == 0 && to == 0:
		return "save", nil
	case from == 0 && to == 1:
		return "submit", nil
	case from == 1 && to == 1:
		return "update_after_submit", nil
	case from == 1 && to == 2:
		return "cancel", nil
	}
	return "", silent(http.StatusExpectationFailed, "DocstatusTransitionError",
		"Cannot change docstatus from "+label[from]+" to "+label[to])
}

// deleteDoc is DELETE /api/resource (§1.7, item 24): drafts and cancelled
// documents go (202 {"data":"ok"}), submitted ones are refused. Deleting the
// newest document of a series rolls the series back (README difference 9).
func (rs *rest) deleteDoc(c *call, dt, name string) (*fErr, step) {
	cur := rs.db.get(dt, name)
	if cur == nil {
		return notFound(dt, name), nil
	}
	if dt != "Payment Entry" && dt != "Sales Invoice" {
		return notModelled("deleting " + dt), nil
	}
	if cur.docstatus() == 1 {
		return throw(dt + " " + cur.name() + ": Submitted Record cannot be deleted. You must <a href='https://docs.erpnext.com//docs/user/manual/en/setting-up/articles/delete-submitted-document' target='_blank'> Cancel </a> it first."), nil
	}
	if dt == "Sales Invoice" {
		if pe := rs.invoices.linkedEntry(cur.name(), func(pe *record) bool { return pe.docstatus() != 2 }); pe != nil {
			return throw("Cannot delete or cancel because Sales Invoice " + cur.name() + " is linked with Payment Entry " + pe.name()).as("LinkExistsError"), nil
		}
	}
	return nil, func() any {
		rs.db.remove(dt, cur.name())
		m := metas[dt]
		key := cur.name()
		if len(key) > 5 {
			prefix, num := key[:len(key)-5], key[len(key)-5:]
			if n, err := strconv.Atoi(num); err == nil && strings.HasPrefix(key, m.series) && rs.db.series[prefix] == n {
				rs.db.series[prefix] = n - 1
			}
		}
		for _, gl := range rs.ledger.voucherGL(dt, cur.name()) {
			if gl.int("is_cancelled") == 0 {
				rs.db.books.add(gl, -1)
			}
			rs.db.remove(glDT, gl.name())
		}
		c.status = http.StatusAccepted
		return "ok"
	}
}
