package erpnextsim

import (
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

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

// jsonArg decodes a JSON-text argument. A JSON body that already carries a
// list crashes Frappe with a TypeError (recording 03-list-query-ignored-with-json-body).
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
func (s *Site) parseQuery(c *call, m *meta, limitKeys []string) (*query, *fErr) {
	q := &query{m: m, limit: 20, asDict: true}
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
	for _, n := range names {
		if strings.TrimSpace(n) == "*" {
			for _, sf := range standardFields {
				q.fields = append(q.fields, col{name: sf, alias: sf, typ: m.columnType(sf)})
			}
			for _, f := range m.fields {
				if f.typ != ftTable {
					q.fields = append(q.fields, col{name: f.name, alias: f.name, typ: f.typ})
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
		q.fields = append(q.fields, cl)
	}
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
	if ob := strings.TrimSpace(c.str("order_by")); ob != "" {
		for _, term := range strings.Split(ob, ",") {
			term = strings.TrimSpace(term)
			if term == "" {
				continue
			}
			desc := false
			if i := strings.LastIndexAny(term, " \t"); i > 0 && !strings.HasSuffix(term, "`") {
				dir := strings.ToLower(term[i+1:])
				if dir == "asc" || dir == "desc" {
					desc, term = dir == "desc", strings.TrimSpace(term[:i])
				}
			}
			cl, ok := resolve(m, term)
			if !ok {
				return nil, dataError(term)
			}
			q.order = append(q.order, orderTerm{c: cl, desc: desc})
		}
	}
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

// joined is one result row: a parent with one row of each joined child table.
type joined struct {
	parent *record
	child  map[string]*record
}

func (j joined) get(c col) any {
	if c.table == "" {
		return j.parent.f[c.name]
	}
	if r := j.child[c.table]; r != nil {
		return r.f[c.name]
	}
	return nil
}

// run evaluates the query: LEFT JOIN over the child tables it mentions, the
// filters (AND) and or_filters (OR), order, paging. Without order_by the rows
// come back shuffled (the real site emits no ORDER BY, §1.4).
func (q *query) run(docs []*record) []joined {
	tables := map[string]bool{}
	for _, f := range q.fields {
		if f.table != "" {
			tables[f.table] = true
		}
	}
	for _, cs := range [][]cond{q.filters, q.orFilters} {
		for _, cd := range cs {
			if cd.c.table != "" {
				tables[cd.c.table] = true
			}
		}
	}
	var tnames []string
	for t := range tables {
		tnames = append(tnames, t)
	}
	sort.Strings(tnames)
	var rows []joined
	for _, d := range docs {
		combos := []joined{{parent: d, child: map[string]*record{}}}
		for _, t := range tnames {
			var next []joined
			for _, cmb := range combos {
				children := d.rows(t)
				if len(children) == 0 {
					next = append(next, cmb)
					continue
				}
				for _, ch := range children {
					nc := map[string]*record{}
					for k, v := range cmb.child {
						nc[k] = v
					}
					nc[t] = ch
					next = append(next, joined{parent: d, child: nc})
				}
			}
			combos = next
		}
		for _, j := range combos {
			if q.matches(j) {
				rows = append(rows, j)
			}
		}
	}
	if len(q.order) == 0 {
		rand.Shuffle(len(rows), func(i, k int) { rows[i], rows[k] = rows[k], rows[i] })
	} else {
		sort.SliceStable(rows, func(i, k int) bool {
			for _, o := range q.order {
				c := compareValues(rows[i].get(o.c), rows[k].get(o.c), o.c.typ)
				if c != 0 {
					return (c < 0) != o.desc
				}
			}
			return false
		})
	}
	if q.start > 0 {
		if q.start >= len(rows) {
			rows = nil
		} else {
			rows = rows[q.start:]
		}
	}
	if q.limit > 0 && len(rows) > q.limit {
		rows = rows[:q.limit]
	}
	return rows
}

func (q *query) matches(j joined) bool {
	for _, cd := range q.filters {
		if !cd.eval(j.get(cd.c)) {
			return false
		}
	}
	if len(q.orFilters) == 0 {
		return true
	}
	for _, cd := range q.orFilters {
		if cd.eval(j.get(cd.c)) {
			return true
		}
	}
	return false
}

// output renders rows as objects (as_dict) or arrays in field order.
func (q *query) output(rows []joined) []any {
	out := make([]any, 0, len(rows))
	for _, j := range rows {
		if q.asDict {
			var o obj
		fields:
			for _, f := range q.fields {
				// Two columns with one key (name of a parent field and a child field, e.g.
				// "email_id" and "email_ids.email_id"): the key keeps its first place and takes
				// the last value, as a Python dict built from the row does (README 2nd pass 14,
				// recording 56-contact-by-email-fields-without-link-filter).
				for i := range o {
					if o[i].k == f.alias {
						o[i].v = jsonValue(j.get(f))
						continue fields
					}
				}
				o = append(o, kv{f.alias, jsonValue(j.get(f))})
			}
			out = append(out, o)
			continue
		}
		arr := make([]any, 0, len(q.fields))
		for _, f := range q.fields {
			arr = append(arr, jsonValue(j.get(f)))
		}
		out = append(out, arr)
	}
	return out
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case dec:
		return x.num()
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	}
	return v
}

// listResource is GET /api/resource/{dt} and frappe.client.get_list.
func (s *Site) listResource(c *call, dt string, viaMethod bool) (*fErr, step) {
	m := metas[dt]
	keys := []string{"limit", "limit_page_length"}
	if viaMethod {
		keys = []string{"limit_page_length"} // frappe.client.get_list drops limit (§1.4)
	}
	q, e := s.parseQuery(c, m, keys)
	if e != nil {
		return e, nil
	}
	docs := s.queryDocs(c, m)
	return nil, func() any { return q.output(q.run(docs)) }
}

// queryDocs returns the documents a list of m runs over; a child doctype
// (listed with parent=…) yields its rows.
func (s *Site) queryDocs(c *call, m *meta) []*record {
	if !m.child {
		return s.all(m.name)
	}
	var out []*record
	for _, p := range s.all(c.str("parent")) {
		for _, f := range p.meta().fields {
			if f.typ == ftTable && f.options == m.name {
				out = append(out, p.rows(f.name)...)
			}
		}
	}
	return out
}
