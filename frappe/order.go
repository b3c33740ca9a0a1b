package frappe

import "strings"

// orderBy is o.OrderBy as sent for a list of doctype: unchanged unless the list joins a child
// table, in which case every plain column term is qualified with the parent table, so that
// MariaDB never has to guess between the parent's and the child's column of one name (creation,
// modified, name, owner, docstatus, idx, and any field both tables have). Frappe qualifies the
// selected fields and the filters itself but passes order_by through as written; an ambiguous
// column is 500 OperationalError (1052, "Column 'creation' in ORDER BY is ambiguous") on a real
// site (erpnext-recorded-connector/R01, R02; erpnext-recorded-settlement/77-*…79-*).
//
// Terms that are already qualified or quoted, SQL expressions, and aliases of selected fields
// ("… as ref_name") are kept as they are.
func (o ListOptions) orderBy(doctype string) string {
	if !o.joinsChild(doctype) {
		return o.OrderBy
	}
	aliases := map[string]bool{}
	for _, f := range o.Fields {
		if i := strings.Index(strings.ToLower(f), " as "); i >= 0 {
			aliases[strings.ToLower(strings.Trim(strings.TrimSpace(f[i+4:]), "`\""))] = true
		}
	}
	terms := strings.Split(o.OrderBy, ",")
	for i, term := range terms {
		term = strings.TrimSpace(term)
		column, dir := term, ""
		if j := strings.LastIndexAny(term, " \t"); j > 0 {
			if d := strings.ToLower(term[j+1:]); d == "asc" || d == "desc" {
				column, dir = strings.TrimSpace(term[:j]), " "+d
			}
		}
		if column == "" || strings.ContainsAny(column, ".`( \t") || aliases[strings.ToLower(column)] {
			terms[i] = term
			continue
		}
		terms[i] = "`tab" + doctype + "`.`" + column + "`" + dir
	}
	return strings.Join(terms, ", ")
}

// joinsChild reports whether Frappe will join a child table for this list: a filter naming
// another doctype ([DocType, field, op, value]) or a field of another table
// ("`tabPayment Entry Reference`.reference_name", "references.reference_name").
func (o ListOptions) joinsChild(doctype string) bool {
	for _, fs := range [][]Filter{o.Filters, o.OrFilters} {
		for _, f := range fs {
			if len(f) >= 4 {
				if dt, ok := f[0].(string); ok && dt != "" && dt != doctype {
					return true
				}
			}
		}
	}
	for _, f := range o.Fields {
		if i := strings.Index(strings.ToLower(f), " as "); i >= 0 {
			f = f[:i]
		}
		table, _, dotted := strings.Cut(strings.TrimSpace(f), ".")
		if dotted && strings.TrimPrefix(strings.Trim(table, "`"), "tab") != doctype {
			return true
		}
	}
	return false
}
