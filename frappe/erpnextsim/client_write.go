package erpnextsim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The frappe.client write helpers (spec §1.6, §8.3; recordings 23-resubmit-frappe-client-submit-current,
// 25-client-*). save and submit take a whole document dict (JSON text or object) under "doc",
// built with frappe.get_doc(dict):
//
//   - without a name (or with __islocal) it is inserted — submit inserts and submits;
//   - with a name, the stored document must exist (417 "Record does not exist") and the dict's
//     `modified` must equal the stored one, else 417 TimestampMismatchError "Error: Document has
//     been modified after you have opened it ({stored}, {now}). Please refresh to get the latest
//     document." — a dict without `modified` always conflicts;
//   - the dict replaces the document: a field it lacks becomes null and a child table it lacks
//     loses its rows (rows matched by name keep the fields their dict lacks);
//   - submit sets docstatus 1: a draft is submitted, a submitted document with its current
//     modified goes through update-after-submit and its modified is bumped (README difference 7).
//
// set_value(doctype, name, fieldname, value) loads the stored document, so it never conflicts;
// standard fields are refused ("Cannot edit standard fields"); with no value, fieldname may be
// a JSON object of several fields. delete(doctype, name) answers 200 {} (no message).
// save, submit, set_value accept POST and PUT; delete accepts POST and DELETE; other verbs
// get 403 "Not permitted".

// noMessage is a method result of None: the answer has no "message" key.
type noMessage struct{}

// defaultFields are Frappe's default_fields and child_table_fields, which set_value refuses.
var defaultFields = map[string]bool{"doctype": true, "name": true, "owner": true, "creation": true, "modified": true,
	"modified_by": true, "docstatus": true, "idx": true, "parent": true, "parentfield": true, "parenttype": true}

// docParam decodes the "doc" argument of frappe.client.insert/save/submit.
func docParam(c *call) (map[string]any, *fErr) {
	switch x := c.args["doc"].(type) {
	case map[string]any:
		cp := make(map[string]any, len(x))
		for k, v := range x {
			cp[k] = v
		}
		return cp, nil
	case string:
		d := json.NewDecoder(strings.NewReader(x))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			return nil, jsonDecodeError(x, err)
		}
		return m, nil
	case nil:
		return nil, serverError("TypeError", "TypeError: missing 1 required positional argument: 'doc'")
	}
	return nil, serverError("AttributeError", "AttributeError: 'list' object has no attribute 'get'")
}

// clientSave is frappe.client.save (submit false) and frappe.client.submit (submit true).
func (rs *rest) clientSave(c *call, submit bool) (*fErr, step) {
	doc, e := docParam(c)
	if e != nil {
		return e, nil
	}
	dt := str(doc["doctype"])
	if dt == "" {
		return notModelled("frappe.client.save/submit of a dict without doctype"), nil
	}
	if submit {
		doc["docstatus"] = json.Number("1")
	}
	name := str(doc["name"])
	if name == "" || doc["__islocal"] != nil {
		if e := doctypeError(c, dt, "create"); e != nil {
			return e, nil
		}
		body := map[string]any{}
		for k, v := range doc {
			if k != "doctype" && k != "__islocal" && k != "__unsaved" {
				body[k] = v
			}
		}
		return rs.insert(c, dt, body)
	}
	if e := doctypeError(c, dt, "write"); e != nil {
		return e, nil
	}
	m := metas[dt]
	cur := rs.db.get(dt, name)
	if cur == nil || m.child {
		return throw("Record does not exist"), nil
	}
	if mod := str(doc["modified"]); mod != cur.str("modified") {
		return timestampMismatch(cur.str("modified"), rs.db.peekStamp()), nil
	}
	body := map[string]any{}
	for _, f := range m.fields {
		v, ok := doc[f.name]
		switch {
		case ok:
			body[f.name] = v
		case f.typ == ftTable:
			body[f.name] = []any{}
		default:
			body[f.name] = nil
		}
	}
	if v, ok := doc["docstatus"]; ok {
		body["docstatus"] = v
	} else {
		body["docstatus"] = json.Number("0") // get_doc(dict) defaults docstatus to 0
	}
	return rs.update(c, dt, cur.name(), body, false)
}

// clientSetValue is frappe.client.set_value(doctype, name, fieldname, value=None).
func (rs *rest) clientSetValue(c *call) (*fErr, step) {
	dt, name := c.str("doctype"), c.str("name")
	if e := doctypeError(c, dt, "write"); e != nil {
		return e, nil
	}
	fv, hasField := c.args["fieldname"]
	fieldname, isText := fv.(string)
	if !hasField {
		return serverError("TypeError", "TypeError: set_value() missing 1 required positional argument: 'fieldname'"), nil
	}
	if isText && defaultFields[fieldname] {
		return throw("Cannot edit standard fields"), nil
	}
	values := map[string]any{}
	if v := c.args["value"]; pyTruthy(v) {
		values[fieldname] = v
	} else {
		switch x := fv.(type) {
		case map[string]any:
			values = x
		case string:
			d := json.NewDecoder(strings.NewReader(x))
			d.UseNumber()
			var m map[string]any
			if err := d.Decode(&m); err == nil {
				values = m
			} else {
				values[x] = "" // not JSON: the field is cleared, as Frappe does for a falsy value
			}
		}
	}
	if metas[dt].child {
		return notModelled("frappe.client.set_value on a child doctype"), nil
	}
	cur := rs.db.get(dt, name)
	if cur == nil {
		return notFound(dt, name), nil
	}
	body := map[string]any{}
	for k, v := range values {
		if k != "modified" {
			body[k] = v
		}
	}
	return rs.update(c, dt, cur.name(), body, false)
}

// pyTruthy is Python truthiness of a JSON/form value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case json.Number:
		return decOf(x) != 0
	case bool:
		return x
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// clientDelete is frappe.client.delete(doctype, name): as DELETE /api/resource, but 200 {}.
func (rs *rest) clientDelete(c *call) (*fErr, step) {
	dt, name := c.str("doctype"), c.str("name")
	if e := doctypeError(c, dt, "delete"); e != nil {
		return e, nil
	}
	e, st := rs.deleteDoc(c, dt, name)
	if e != nil {
		return e, nil
	}
	return nil, func() any {
		st()
		c.status = http.StatusOK
		return noMessage{}
	}
}
