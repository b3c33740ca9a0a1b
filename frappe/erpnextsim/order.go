package erpnextsim

import (
	"sort"
	"strings"
)

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
