package erpnextsim

import (
	"net/http"
	"strings"
)

const getPaymentEntryCmd = "erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"

// methodHandler dispatches /api/method/{dotted.path} (§1.6).
func (rs *rest) methodHandler(c *call, cmd string) handler {
	if c.user == "" {
		return fail(throw("<details><summary>You are not permitted to access this resource. Login to access</summary>Function <strong>" +
			cmd + "</strong> is not whitelisted.</details>").as("PermissionError").withTitle("Method Not Allowed").status403())
	}
	writeOnly := func(h handler) handler {
		if c.method != http.MethodPost && c.method != http.MethodPut {
			return fail(throw("Not permitted").as("PermissionError").status403())
		}
		return h
	}
	c.nulls = strings.HasPrefix(cmd, "frappe.client.")
	c.rpc = c.nulls
	switch cmd {
	case getPaymentEntryCmd:
		return rs.drafts.getPaymentEntry
	case makePaymentRequestCmd:
		return writeOnly(rs.requests.makePaymentRequest)
	case "erpnext.accounts.doctype.sales_invoice.sales_invoice.get_bank_cash_account":
		return rs.getBankCashAccount
	case "frappe.client.get_list":
		return rs.clientDoctype(func(c *call, dt string) (*fErr, step) { return rs.queries.listResource(c, dt, true) })
	case "frappe.client.get_count":
		return rs.clientDoctype(rs.queries.getCount)
	case "frappe.client.get_value":
		if dt := c.str("doctype"); metas[dt] != nil && !metas[dt].child && !rs.users.can(c.user, dt, "read") {
			return fail(noPermissionThrow(dt)) // recording 54-system-settings-get-value-api-user
		}
		return rs.clientDoctype(rs.queries.getValue)
	case getSingleValueCmd:
		return rs.accounts.getSingleValue
	case addCommentCmd:
		return writeOnly(rs.comments.addComment)
	case "frappe.client.save":
		return writeOnly(func(c *call) (*fErr, step) { return rs.clientSave(c, false) })
	case "frappe.client.submit":
		return writeOnly(func(c *call) (*fErr, step) { return rs.clientSave(c, true) })
	case "frappe.client.set_value":
		return writeOnly(rs.clientSetValue)
	case "frappe.client.delete":
		if c.method != http.MethodPost && c.method != http.MethodDelete {
			return fail(throw("Not permitted").as("PermissionError").status403())
		}
		return rs.clientDelete
	case "frappe.client.get":
		return rs.clientDoctype(rs.clientGet)
	case "frappe.client.cancel":
		return writeOnly(rs.clientDoctype(func(c *call, dt string) (*fErr, step) {
			return rs.update(c, dt, c.str("name"), map[string]any{"docstatus": int64(2)}, false)
		}))
	case "frappe.client.insert":
		return writeOnly(rs.clientInsert)
	}
	if h := rs.methods[cmd]; h != nil {
		return h
	}
	if fn, ok := strings.CutPrefix(cmd, "frappe.client."); ok && !knownClientFns[fn] {
		return fail(throw("Failed to get method for command " + cmd + " with module 'frappe.client' has no attribute '" + fn + "'"))
	}
	return fail(notModelled("method " + cmd))
}

var knownClientFns = map[string]bool{"save": true, "submit": true, "set_value": true, "delete": true, "get_single_value": true,
	"rename_doc": true, "insert_many": true, "bulk_update": true, "get_password": true,
	"attach_file": true, "is_document_amended": true, "validate_link": true, "get_js": true, "get_time_zone": true}

// clientInsert is frappe.client.insert: doc (an object, or JSON text) names its doctype.
func (rs *rest) clientInsert(c *call) (*fErr, step) {
	doc, ok := c.args["doc"].(map[string]any)
	if text, isStr := c.args["doc"].(string); isStr {
		d, e := docArg(&call{args: map[string]any{"data": text}})
		if e != nil {
			return e, nil
		}
		doc, ok = d, true
	}
	if !ok {
		return throw("erpnextsim: frappe.client.insert needs doc"), nil
	}
	dt := str(doc["doctype"])
	if e := doctypeError(c, dt, "create"); e != nil {
		return e, nil
	}
	cp := map[string]any{}
	for k, v := range doc {
		if k != "doctype" {
			cp[k] = v
		}
	}
	return rs.insert(c, dt, cp)
}

func (e *fErr) status403() *fErr { e.status = http.StatusForbidden; return e }

// clientDoctype checks the doctype argument of a frappe.client.* call.
func (rs *rest) clientDoctype(h func(c *call, dt string) (*fErr, step)) handler {
	return func(c *call) (*fErr, step) {
		dt := c.str("doctype")
		if e := doctypeError(c, dt, "read"); e != nil {
			return e, nil
		}
		if m := metas[dt]; m.child && c.str("parent") == "" {
			return &fErr{status: http.StatusForbidden, excType: "PermissionError", bare: true}, nil
		}
		return h(c, dt)
	}
}

func (qs *queries) getCount(c *call, dt string) (*fErr, step) {
	q, e := qs.parseQuery(c, metas[dt], nil)
	if e != nil {
		return e, nil
	}
	if q.ambiguous != nil {
		return q.ambiguous, nil
	}
	q.limit = 0
	docs := qs.queryDocs(c, q)
	return nil, func() any {
		seen := map[*record]bool{}
		for _, j := range q.run(docs) {
			seen[j.parent] = true
		}
		return len(seen)
	}
}

// getValue is frappe.client.get_value: filters are a name or filter JSON;
// no match → {} (§9 item 27).
func (qs *queries) getValue(c *call, dt string) (*fErr, step) {
	m := metas[dt]
	fv := c.str("fieldname")
	fields := []any{fv}
	if strings.HasPrefix(strings.TrimSpace(fv), "[") {
		v, _, e := c.jsonArg("fieldname")
		if e != nil {
			return e, nil
		}
		fields, _ = v.([]any)
	}
	filt := strings.TrimSpace(c.str("filters"))
	if filt != "" && !strings.HasPrefix(filt, "{") && !strings.HasPrefix(filt, "[") {
		c.args["filters"] = pyJSON([]any{[]any{"name", "=", filt}}, false)
	}
	c.args["fields"] = pyJSON(fields, false)
	c.args["order_by"] = "modified desc"
	q, e := qs.parseQuery(c, m, nil)
	if e != nil {
		return e, nil
	}
	q.limit = 1
	docs := qs.queryDocs(c, q)
	return nil, func() any {
		rows := q.run(docs)
		if len(rows) == 0 {
			return obj{}
		}
		return q.output(rows)[0]
	}
}

func (rs *rest) clientGet(c *call, dt string) (*fErr, step) {
	r := rs.db.get(dt, c.str("name"))
	if r == nil {
		return notFound(dt, c.str("name")), nil
	}
	return nil, func() any { return r.render(true) }
}

func (rs *rest) getBankCashAccount(c *call) (*fErr, step) {
	mop := rs.db.get("Mode of Payment", c.str("mode_of_payment"))
	if mop != nil {
		for _, row := range mop.rows("accounts") {
			if strings.EqualFold(row.str("company"), c.str("company")) && row.str("default_account") != "" {
				return nil, func() any { return obj{{"account", row.str("default_account")}} }
			}
		}
	}
	name := c.str("mode_of_payment")
	return erpThrow("Please set default Cash or Bank account in Mode of Payment <a href=\"/app/mode-of-payment/" + name + "\">" + name + "</a>").withTitle("Missing Account"), nil
}
