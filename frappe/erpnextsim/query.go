package erpnextsim

import (
	"encoding/json"
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

// parseOrder reads order_by ("creation asc, `tabPayment Entry`.`name` desc") into q.order.
// It returns a refusal for an unknown column (e), and separately the 500 MariaDB answers when
// the statement runs (ambiguous): an unqualified column that the parent and a joined child
// table both have and that is not among the selected fields is ambiguous (1052) —
// erpnext-recorded-connector/R01, R02; erpnext-recorded-settlement/65-*, 77-*…79-*. A selected
// field of that name (Frappe qualifies selected fields) or a select-list alias resolves the name
// first, as MariaDB does (77-*-creation-in-fields).
func (q *query) parseOrder(ob string) (ambiguous, e *fErr) {
	if ob == "" {
		return nil, nil
	}
	joins := q.joins()
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
		qualified := strings.Contains(term, ".")
		bare := strings.Trim(term, "`")
		if !qualified {
			if cl, ok := q.selected(bare); ok {
				q.order = append(q.order, orderTerm{c: cl, desc: desc})
				continue
			}
		}
		cl, ok := resolve(q.m, term)
		if !qualified {
			inChild := q.childHaving(joins, bare)
			switch {
			case ok && len(inChild) > 0 && ambiguous == nil:
				ambiguous = serverError("OperationalError", "pymysql.err.OperationalError: (1052, \"Column '"+bare+"' in ORDER BY is ambiguous\")")
			case !ok && len(inChild) == 1:
				cl, ok = inChild[0], true
			}
		}
		if !ok {
			return nil, dataError(term)
		}
		q.order = append(q.order, orderTerm{c: cl, desc: desc})
	}
	return ambiguous, nil
}

// joins are the child tables (parent Table fieldnames) the query joins: those a field or a
// filter names. Frappe LEFT JOINs each of them.
func (q *query) joins() []string {
	var out []string
	add := func(c col) {
		if c.table != "" && !containsString(out, c.table) {
			out = append(out, c.table)
		}
	}
	for _, f := range q.fields {
		add(f)
	}
	for _, cs := range [][]cond{q.filters, q.orFilters} {
		for _, cd := range cs {
			add(cd.c)
		}
	}
	sort.Strings(out)
	return out
}

// selected returns the selected field whose output name is name (MariaDB compares column
// names without regard to case).
func (q *query) selected(name string) (col, bool) {
	for _, f := range q.fields {
		if strings.EqualFold(f.alias, name) {
			return f, true
		}
	}
	return col{}, false
}

// childHaving lists the joined child tables that have column name, as columns.
func (q *query) childHaving(joins []string, name string) []col {
	var out []col
	for _, t := range joins {
		f := q.m.field(t)
		if f == nil {
			continue
		}
		if cm := metas[f.options]; cm != nil && cm.hasColumn(name) {
			out = append(out, col{table: t, name: name, alias: name, typ: cm.columnType(name)})
		}
	}
	return out
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

// run evaluates the query over docs (the candidates, any order): LEFT JOIN over the child
// tables it mentions, the filters (AND) and or_filters (OR), order, paging. Without order_by
// the statement has no ORDER BY and MariaDB returns rows in primary-key order: parents by name
// under the site's case-insensitive collation, a parent's joined rows in table order
// (erpnext-recorded-settlement/79-pe-list-no-order-by-storage-order). Rows that tie on
// order_by keep that order too.
func (q *query) run(docs []*record) []joined {
	tnames := q.joins()
	var rows []joined
	for _, d := range docs {
		combos := []joined{{parent: d}}
		for _, t := range tnames {
			var next []joined
			for _, cmb := range combos {
				children := d.rows(t)
				if len(children) == 0 {
					next = append(next, cmb)
					continue
				}
				for _, ch := range children {
					nc := make(map[string]*record, len(tnames))
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
	keys := make(map[*record]string, len(rows))
	for _, j := range rows {
		if _, ok := keys[j.parent]; !ok {
			keys[j.parent] = strings.ToLower(j.parent.name())
		}
	}
	sort.SliceStable(rows, func(i, k int) bool {
		for _, o := range q.order {
			c := compareValues(rows[i].get(o.c), rows[k].get(o.c), o.c.typ)
			if c != 0 {
				return (c < 0) != o.desc
			}
		}
		return keys[rows[i].parent] < keys[rows[k].parent]
	})
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
	if q.ambiguous != nil {
		return q.ambiguous, nil
	}
	docs := s.queryDocs(c, q)
	return nil, func() any { return q.output(q.run(docs)) }
}

// queryDocs returns the documents a list runs over, in no particular order: those an index
// narrows the filters to (index.go), else every document of the doctype; a child doctype
// (listed with parent=…) yields its rows.
func (s *Site) queryDocs(c *call, q *query) []*record {
	m := q.m
	if !m.child {
		if docs, ok := s.candidates(q); ok {
			return docs
		}
		out := make([]*record, 0, len(s.docs[m.name]))
		for _, r := range s.docs[m.name] {
			out = append(out, r)
		}
		return out
	}
	var out []*record
	for _, p := range s.docs[c.str("parent")] {
		for _, f := range p.meta().fields {
			if f.typ == ftTable && f.options == m.name {
				out = append(out, p.rows(f.name)...)
			}
		}
	}
	return out
}
