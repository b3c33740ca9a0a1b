package erpnextsim

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

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
