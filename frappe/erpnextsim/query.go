package erpnextsim

import (
	"encoding/json"
	"strconv"
	"strings"
)

// queries is the list and query engine: filters, fields, order and paging of
// GET /api/resource, frappe.client.get_list, get_count and get_value.
type queries struct {
	db *store
}

// col is a resolved column reference: a parent column, or a column of the
// child table held in parent field table.
type col struct {
	table string // parent Table fieldname; "" for the parent itself
	name  string
	alias string // output key
	typ   fieldType
}

// cond is one filter condition.
type cond struct {
	c   col
	op  string
	val any
}

// query is a parsed get_list call (§1.4).
type query struct {
	m         *meta
	fields    []col
	filters   []cond
	orFilters []cond
	order     []orderTerm
	start     int
	limit     int // 0 = all
	asDict    bool
	// ambiguous is the 500 MariaDB answers when this statement runs (parseOrder); the list
	// calls return it, frappe.client.get_value (whose order the site adds itself) does not.
	ambiguous *fErr
}

type orderTerm struct {
	c    col
	desc bool
}

// operators accepted by Frappe's filters; the message lists them in the
// arbitrary set order the recorded site printed (04-bad-operator).
const operatorMessage = "Operator must be one of >=, <, ancestors of, not ancestors of, timespan, >, descendants of, <=, not in, next, descendants of (inclusive), not like, =, like, not descendants of, !=, in, fiscal year, between, previous, is"

var modelledOps = map[string]bool{"=": true, "!=": true, ">": true, "<": true, ">=": true, "<=": true,
	"like": true, "not like": true, "in": true, "not in": true, "is": true, "between": true}
var otherOps = map[string]bool{"ancestors of": true, "not ancestors of": true, "timespan": true, "descendants of": true,
	"next": true, "descendants of (inclusive)": true, "not descendants of": true, "fiscal year": true, "previous": true}

func dataError(field string) *fErr {
	return throw("Field not permitted in query: " + field).as("DataError")
}

// jsonArg decodes a JSON-text argument. A JSON body that already carries a list crashes
// /api/resource with a TypeError (recording 03-list-query-ignored-with-json-body); the
// frappe.client.* methods take it as it is.
func (c *call) jsonArg(k string) (any, bool, *fErr) {
	v, ok := c.args[k]
	if !ok || v == nil {
		return nil, false, nil
	}
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, false, nil
		}
		d := json.NewDecoder(strings.NewReader(x))
		d.UseNumber()
		var out any
		if err := d.Decode(&out); err != nil {
			return nil, false, jsonDecodeError(x, err)
		}
		return out, true, nil
	case []any, map[string]any:
		if c.rpc {
			return x, true, nil // frappe.client.* takes JSON values as they are (78-client-get-list-*)
		}
		kind := "list"
		if _, isMap := x.(map[string]any); isMap {
			kind = "dict"
		}
		return nil, false, serverError("TypeError", "TypeError: the JSON object must be str, bytes or bytearray, not "+kind)
	}
	return v, true, nil
}

// resolve maps a field reference ("name", "references.reference_name",
// "`tabPayment Entry Reference`.`reference_name`", "Payment Entry Reference"
// with column) to a column.
func resolve(m *meta, ref string) (col, bool) {
	ref = strings.TrimSpace(ref)
	alias := ""
	if i := strings.Index(strings.ToLower(ref), " as "); i > 0 {
		alias = strings.Trim(strings.TrimSpace(ref[i+4:]), "`\"")
		ref = strings.TrimSpace(ref[:i])
	}
	clean := strings.ReplaceAll(ref, "`", "")
	table, name, dotted := strings.Cut(clean, ".")
	if !dotted {
		name, table = table, ""
	}
	table = strings.TrimPrefix(table, "tab")
	out := col{name: name, alias: alias}
	if out.alias == "" {
		out.alias = name
	}
	if table == "" || table == m.name {
		if !m.hasColumn(name) {
			return out, false
		}
		out.typ = m.columnType(name)
		return out, true
	}
	for _, f := range m.fields {
		if f.typ != ftTable || (f.name != table && f.options != table) {
			continue
		}
		cm := metas[f.options]
		if cm == nil || !cm.hasColumn(name) {
			return out, false
		}
		out.table, out.typ = f.name, cm.columnType(name)
		return out, true
	}
	return out, false
}

// parseQuery reads get_list arguments. limitKeys are the argument names that
// set the page size, first found wins (v1: limit, limit_page_length).
func (qs *queries) parseQuery(c *call, m *meta, limitKeys []string) (*query, *fErr) {
	q := &query{m: m, limit: 20, asDict: true}
	fields, e := queryFields(c, m)
	if e != nil {
		return nil, e
	}
	q.fields = fields
	for _, k := range []string{"filters", "or_filters"} {
		fv, _, e := c.jsonArg(k)
		if e != nil {
			return nil, e
		}
		conds, e := parseFilters(m, fv)
		if e != nil {
			return nil, e
		}
		if k == "filters" {
			q.filters = conds
		} else {
			q.orFilters = conds
		}
	}
	ambiguous, e := q.parseOrder(strings.TrimSpace(c.str("order_by")))
	if e != nil {
		return nil, e
	}
	q.ambiguous = ambiguous
	q.start = cint(c.args["limit_start"])
	for _, k := range limitKeys {
		if v, ok := c.args[k]; ok && v != nil && v != "" {
			q.limit = cint(v)
			break
		}
	}
	if v, ok := c.args["as_dict"]; ok {
		switch x := v.(type) {
		case bool:
			q.asDict = x
		default:
			str := strings.ToLower(strings.TrimSpace(c.str("as_dict")))
			q.asDict = !(str == "0" || str == "false" || str == "")
		}
	}
	return q, nil
}

// queryFields reads the fields argument (a list of names or one name; "name" when absent):
// "*" is the standard fields and every column of m, other names resolve to columns of m or
// its child tables. SQL functions are not modelled; an unknown name is a DataError.
func queryFields(c *call, m *meta) ([]col, *fErr) {
	fv, ok, e := c.jsonArg("fields")
	if e != nil {
		return nil, e
	}
	var names []string
	switch x := fv.(type) {
	case []any:
		for _, f := range x {
			if s, ok := f.(string); ok {
				names = append(names, s)
			}
		}
	case string:
		names = []string{x}
	}
	if !ok || len(names) == 0 {
		names = []string{"name"}
	}
	var out []col
	for _, n := range names {
		if strings.TrimSpace(n) == "*" {
			for _, sf := range standardFields {
				out = append(out, col{name: sf, alias: sf, typ: m.columnType(sf)})
			}
			for _, f := range m.fields {
				if f.typ != ftTable {
					out = append(out, col{name: f.name, alias: f.name, typ: f.typ})
				}
			}
			continue
		}
		if strings.Contains(n, "(") {
			return nil, notModelled("SQL functions in fields (" + n + ")")
		}
		cl, ok := resolve(m, n)
		if !ok {
			return nil, dataError(strings.TrimSpace(n))
		}
		out = append(out, cl)
	}
	return out, nil
}

// cint is Frappe's cint: integer value of text or number, 0 when unparseable.
func cint(v any) int {
	switch x := v.(type) {
	case json.Number:
		return int(decOf(x) / nano)
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return int(decOf(x) / nano)
		}
		return n
	case bool:
		return b2i(x)
	case int64:
		return int(x)
	case int:
		return x
	}
	return 0
}

// listResource is GET /api/resource/{dt} and frappe.client.get_list.
func (qs *queries) listResource(c *call, dt string, viaMethod bool) (*fErr, step) {
	m := metas[dt]
	keys := []string{"limit", "limit_page_length"}
	if viaMethod {
		keys = []string{"limit_page_length"} // frappe.client.get_list drops limit (§1.4)
	}
	q, e := qs.parseQuery(c, m, keys)
	if e != nil {
		return e, nil
	}
	if q.ambiguous != nil {
		return q.ambiguous, nil
	}
	docs := qs.queryDocs(c, q)
	return nil, func() any { return q.output(q.run(docs)) }
}

// queryDocs returns the documents a list runs over, in no particular order: those an index
// narrows the filters to (index.go), else every document of the doctype; a child doctype
// (listed with parent=…) yields its rows.
func (qs *queries) queryDocs(c *call, q *query) []*record {
	m := q.m
	if !m.child {
		if docs, ok := qs.db.candidates(q); ok {
			return docs
		}
		out := make([]*record, 0, len(qs.db.docs[m.name]))
		for _, r := range qs.db.docs[m.name] {
			out = append(out, r)
		}
		return out
	}
	var out []*record
	for _, p := range qs.db.docs[c.str("parent")] {
		for _, f := range p.meta().fields {
			if f.typ == ftTable && f.options == m.name {
				out = append(out, p.rows(f.name)...)
			}
		}
	}
	return out
}
