package erpnextsim

import (
	"encoding/json"
	"strconv"
	"strings"
)

// record is one stored document or child row. Values are typed by the
// doctype's meta: string for text/link/date, dec for Currency/Float, int64 for
// Int/Check, []*record for tables; a missing key is SQL NULL.
type record struct {
	dt string
	f  map[string]any
	// intLit marks numeric fields that arrived in this request as JSON
	// integer literals: Python keeps them as int, so texts built from them
	// read "1000" where a stored value reads "1000.0" (recordings 07-*, 25-*).
	intLit map[string]bool
	// ikeys are the index entries of a stored document (index.go).
	ikeys []ikey
}

func newRecord(dt string) *record { return &record{dt: dt, f: map[string]any{}} }

func (r *record) meta() *meta { return metas[r.dt] }

func (r *record) str(k string) string {
	s, _ := r.f[k].(string)
	return s
}

func (r *record) dec(k string) dec {
	d, _ := r.f[k].(dec)
	return d
}

func (r *record) int(k string) int64 {
	i, _ := r.f[k].(int64)
	return i
}

func (r *record) rows(k string) []*record {
	rs, _ := r.f[k].([]*record)
	return rs
}

func (r *record) name() string        { return r.str("name") }
func (r *record) docstatus() int64    { return r.int("docstatus") }
func (r *record) set(k string, v any) { r.f[k] = v }

func (r *record) clone() *record {
	c := newRecord(r.dt)
	for k, v := range r.f {
		if rows, ok := v.([]*record); ok {
			cp := make([]*record, len(rows))
			for i, row := range rows {
				cp[i] = row.clone()
			}
			v = cp
		}
		c.f[k] = v
	}
	return c
}

// coerce converts an incoming JSON value to the stored type of f, the way
// Frappe's cast does (flt, cint, cstr). nil and "" for non-text are NULL.
func coerce(f *field, v any) any {
	if v == nil {
		return nil
	}
	switch f.typ {
	case ftCurrency, ftFloat:
		if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
			return nil
		}
		return decOf(v)
	case ftInt:
		switch x := v.(type) {
		case bool:
			if x {
				return int64(1)
			}
			return int64(0)
		case string:
			if strings.TrimSpace(x) == "" {
				return nil
			}
		}
		return int64(decOf(v).round(0) / nano)
	case ftTable:
		return nil // handled by the caller
	}
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "1"
		}
		return "0"
	}
	return nil
}

// render returns the document as Frappe serialises it: standard fields, then
// the doctype's fields in order, then doctype and child tables. keepNulls
// selects frappe.client.* behaviour (nulls kept) over /api/resource (omitted),
// spec §1.5.
func (r *record) render(keepNulls bool) obj {
	m := r.meta()
	o := make(obj, 0, len(standardFields)+len(m.fields)+len(childStandardFields)+3)
	add := func(k string, v any) {
		if v == nil {
			if keepNulls {
				o = append(o, kv{k, nil})
			}
			return
		}
		o = append(o, kv{k, v})
	}
	for _, k := range standardFields {
		add(k, r.f[k])
	}
	var tables []*field
	for _, f := range m.fields {
		if f.typ == ftTable {
			tables = append(tables, f)
			continue
		}
		add(f.name, r.f[f.name])
	}
	if m.child {
		for _, k := range childStandardFields {
			add(k, r.f[k])
		}
	}
	o = append(o, kv{"doctype", r.dt})
	for _, f := range tables {
		rows := r.rows(f.name)
		list := make([]any, 0, len(rows))
		for _, row := range rows {
			list = append(list, row.render(keepNulls))
		}
		o = append(o, kv{f.name, list})
	}
	for _, k := range []string{"__islocal", "__unsaved"} {
		if v, ok := r.f[k]; ok {
			o = append(o, kv{k, v})
		}
	}
	return o
}

// value returns the rendered JSON value of one column (nil for NULL).
func (r *record) value(col string) any {
	v := r.f[col]
	switch x := v.(type) {
	case dec:
		return x.num()
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	}
	return v
}
