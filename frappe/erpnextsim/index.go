package erpnextsim

import (
	"sort"
	"strings"
)

// Secondary indexes: lists that filter on an indexed column read only the documents
// the index names instead of every document of the doctype, so a lookup by reference_no costs
// the same at 100,000 Payment Entries as at 100. The index is maintained by put and remove;
// an indexed column must therefore change only by putting a new version of the document (every
// write path does: fromBody clones, then put), never in place. The query re-checks every filter
// on what the index returns, so an index can only narrow the candidates, never add a row.
//
// Values are keyed as the site's utf8mb4_unicode_ci collation compares them (lower case,
// trailing spaces ignored, like compareValues). NULL and "" are not indexed: `= ""` matches
// NULL through Frappe's ifnull() wrapping, so such a filter is answered by a scan.

// indexSpec lists the indexed columns per doctype: a parent column, or "table.column" for a
// column of a child table (the parent is indexed under each of its rows' values).
var indexSpec = map[string][]string{
	peDT:                  {"reference_no", "party", "posting_date", "references.reference_name", "references.payment_request"},
	siDT:                  {"customer", "return_against"},
	glDT:                  {"voucher_no", "account", "party"},
	jeDT:                  {"cheque_no", "posting_date", "accounts.reference_name"},
	prDT:                  {"reference_name"},
	btDT:                  {"bank_account", "reference_number"},
	"Integration Request": {"reference_docname"},
	contactDT:             {"email_ids.email_id", "links.link_name"},
}

const glDT = "GL Entry"

// ikey is one index entry: column ("reference_no", "references.reference_name") and value key.
type ikey struct{ col, val string }

// docIndex is the index of one doctype.
type docIndex struct {
	buckets map[ikey][]*record
	// distinct holds, per column, how many documents carry each value key; sorted is its
	// sorted key list for range filters, rebuilt when a new key appears (dates: rarely).
	distinct map[string]map[string]int
	sorted   map[string][]string
}

// indexKey is the collation key of a stored or filter value; "" means not indexable.
func indexKey(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return strings.ToLower(strings.TrimRight(s, " "))
}

// indexValues returns the distinct value keys record r holds for an indexed column.
func indexValues(r *record, col string) []string {
	table, field, child := strings.Cut(col, ".")
	if !child {
		if k := indexKey(r.f[col]); k != "" {
			return []string{k}
		}
		return nil
	}
	var out []string
	for _, row := range r.rows(table) {
		k := indexKey(row.f[field])
		if k != "" && !containsString(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// index adds r to its doctype's index and remembers the keys on r (for unindex).
func (db *store) index(r *record) {
	cols := indexSpec[r.dt]
	if len(cols) == 0 {
		return
	}
	ix := db.idx[r.dt]
	if ix == nil {
		ix = &docIndex{buckets: map[ikey][]*record{}, distinct: map[string]map[string]int{}, sorted: map[string][]string{}}
		db.idx[r.dt] = ix
	}
	for _, col := range cols {
		for _, v := range indexValues(r, col) {
			k := ikey{col, v}
			ix.buckets[k] = append(ix.buckets[k], r)
			r.ikeys = append(r.ikeys, k)
			d := ix.distinct[col]
			if d == nil {
				d = map[string]int{}
				ix.distinct[col] = d
			}
			if d[v] == 0 {
				delete(ix.sorted, col)
			}
			d[v]++
		}
	}
}

// unindex removes r from its doctype's index.
func (db *store) unindex(r *record) {
	ix := db.idx[r.dt]
	if ix == nil {
		r.ikeys = nil
		return
	}
	for _, k := range r.ikeys {
		b := ix.buckets[k]
		for i, x := range b {
			if x == r {
				b[i] = b[len(b)-1]
				b = b[:len(b)-1]
				break
			}
		}
		if len(b) == 0 {
			delete(ix.buckets, k)
		} else {
			ix.buckets[k] = b
		}
		if d := ix.distinct[k.col]; d != nil {
			if d[k.val]--; d[k.val] <= 0 {
				delete(d, k.val)
				delete(ix.sorted, k.col)
			}
		}
	}
	r.ikeys = nil
}

// indexed reports whether doctype dt indexes column col ("name" or "table.name").
func indexed(dt, col string) bool { return containsString(indexSpec[dt], col) }

// lookup returns the documents whose col holds value key k (shared slice: do not modify).
func (db *store) lookup(dt, col, k string) []*record {
	if ix := db.idx[dt]; ix != nil {
		return ix.buckets[ikey{col, k}]
	}
	return nil
}

// keysFrom returns the sorted distinct value keys of col that are ≥ lo (> lo when strict) and
// ≤ hi (hi "" = no upper bound).
func (db *store) keysFrom(dt, col, lo string, strict bool, hi string) []string {
	ix := db.idx[dt]
	if ix == nil {
		return nil
	}
	keys, ok := ix.sorted[col]
	if !ok {
		for k := range ix.distinct[col] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ix.sorted[col] = keys
	}
	i := sort.SearchStrings(keys, lo)
	var out []string
	for ; i < len(keys); i++ {
		k := keys[i]
		if strict && k == lo {
			continue
		}
		if hi != "" && k > hi {
			break
		}
		out = append(out, k)
	}
	return out
}

// candidates returns the documents of q's doctype an index narrows the AND filters to, and
// whether any filter could use an index. It picks the filter with the fewest candidates.
func (db *store) candidates(q *query) ([]*record, bool) {
	var best [][]*record
	bestN, found := 0, false
	for _, cd := range q.filters {
		col := cd.c.name
		if cd.c.table != "" {
			col = cd.c.table + "." + cd.c.name
		}
		if !indexed(q.m.name, col) && col != "name" {
			continue
		}
		buckets, ok := db.condBuckets(q.m.name, col, cd)
		if !ok {
			continue
		}
		n := 0
		for _, b := range buckets {
			n += len(b)
		}
		if !found || n < bestN {
			best, bestN, found = buckets, n, true
		}
	}
	if !found {
		return nil, false
	}
	if len(best) == 1 {
		return best[0], true
	}
	seen := make(map[*record]bool, bestN)
	out := make([]*record, 0, bestN)
	for _, b := range best {
		for _, r := range b {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out, true
}

// condBuckets answers one condition from the index: "=" and "in" on any indexed column (and
// on name, from the document map), lower bounds and between on dates.
func (db *store) condBuckets(dt, col string, cd cond) ([][]*record, bool) {
	byKey := func(k string) []*record {
		if col == "name" {
			if r := db.docs[dt][k]; r != nil {
				return []*record{r}
			}
			return nil
		}
		return db.lookup(dt, col, k)
	}
	switch cd.op {
	case "=":
		k := indexKey(str(cd.val))
		if k == "" || cd.c.typ.numeric() {
			return nil, false
		}
		return [][]*record{byKey(k)}, true
	case "in":
		vals, ok := cd.val.([]any)
		if !ok || cd.c.typ.numeric() {
			return nil, false
		}
		var out [][]*record
		for _, v := range vals {
			k := indexKey(str(v))
			if k == "" {
				return nil, false
			}
			out = append(out, byKey(k))
		}
		return out, true
	case ">", ">=", "between":
		if cd.c.typ != ftDate || col == "name" {
			return nil, false
		}
		lo, hi := indexKey(str(cd.val)), ""
		if cd.op == "between" {
			l, _ := cd.val.([]any)
			if len(l) != 2 {
				return nil, false
			}
			lo, hi = indexKey(str(l[0])), indexKey(str(l[1]))
		}
		if lo == "" {
			return nil, false
		}
		var out [][]*record
		for _, k := range db.keysFrom(dt, col, lo, cd.op == ">", hi) {
			out = append(out, db.lookup(dt, col, k))
		}
		return out, true
	}
	return nil, false
}
