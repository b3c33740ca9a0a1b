package erpnextsim

import (
	"encoding/json"
	"sort"
	"strings"
)

// parseFilters accepts the list form ([field, op, value] or [doctype, field,
// op, value]) and the dict form ({field: value} or {field: [op, value]}).
func parseFilters(m *meta, v any) ([]cond, *fErr) {
	var out []cond
	add := func(doctype, field, op string, val any) *fErr {
		c, e := filterCond(m, doctype, field, op, val)
		if e == nil {
			out = append(out, c)
		}
		return e
	}
	switch x := v.(type) {
	case nil:
	case []any:
		for _, item := range x {
			f, ok := item.([]any)
			if !ok {
				continue
			}
			var e *fErr
			switch len(f) {
			case 2:
				e = add("", str(f[0]), "=", f[1])
			case 3:
				e = add("", str(f[0]), str(f[1]), f[2])
			case 4, 5:
				e = add(str(f[0]), str(f[1]), str(f[2]), f[3])
			}
			if e != nil {
				return nil, e
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			val := x[k]
			op := "="
			if l, ok := val.([]any); ok && len(l) >= 1 {
				op = str(l[0])
				if len(l) > 1 {
					val = l[1]
				} else {
					val = nil
				}
			}
			if e := add("", k, op, val); e != nil {
				return nil, e
			}
		}
	case string:
		return parseFilters(m, []any{[]any{"name", "=", x}})
	}
	return out, nil
}

// filterCond is one filter on field (of doctype when it names a child table of m) with its
// operator normalised: "==" is "=", "set" and "not set" are "is". An unknown field is a
// DataError; an operator the simulator does not model is refused.
func filterCond(m *meta, doctype, field, op string, val any) (cond, *fErr) {
	ref := field
	if doctype != "" && doctype != m.name {
		ref = doctype + "." + field
	}
	cl, ok := resolve(m, ref)
	if !ok {
		return cond{}, dataError(field)
	}
	op = strings.ToLower(strings.TrimSpace(op))
	if op == "==" {
		op = "="
	}
	if op == "not set" || op == "set" {
		op, val = "is", op
	}
	if !modelledOps[op] {
		if otherOps[op] {
			return cond{}, notModelled("filter operator " + op)
		}
		return cond{}, throw(operatorMessage)
	}
	return cond{c: cl, op: op, val: val}, nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// eval applies one condition to a stored value. Text compares
// case-insensitively (utf8mb4_unicode_ci, recording 50-*); NULL behaves as ”
// or 0 the way Frappe's ifnull() wrapping makes it.
func (cd cond) eval(v any) bool {
	t := cd.c.typ
	switch cd.op {
	case "is":
		set := v != nil && v != ""
		if strings.EqualFold(str(cd.val), "set") {
			return set
		}
		return !set
	case "in", "not in":
		var vals []any
		switch x := cd.val.(type) {
		case []any:
			vals = x
		case string:
			for _, p := range strings.Split(x, ",") {
				vals = append(vals, strings.TrimSpace(p))
			}
		case nil:
		default:
			vals = []any{x}
		}
		found := false
		for _, want := range vals {
			if compareValues(v, want, t) == 0 {
				found = true
				break
			}
		}
		return found == (cd.op == "in")
	case "like", "not like":
		ok := likeMatch(str(v), str(cd.val))
		return ok == (cd.op == "like")
	case "between":
		l, _ := cd.val.([]any)
		if len(l) != 2 {
			return false
		}
		return compareValues(v, l[0], t) >= 0 && compareValues(v, l[1], t) <= 0
	}
	c := compareValues(v, cd.val, t)
	switch cd.op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case ">":
		return c > 0
	case "<":
		return c < 0
	case ">=":
		return c >= 0
	case "<=":
		return c <= 0
	}
	return false
}

// compareValues orders a stored value against another (stored or filter)
// value of column type t: numbers numerically, text case-insensitively with
// trailing spaces ignored, NULL as ” / 0.
func compareValues(a, b any, t fieldType) int {
	if t.numeric() {
		x, y := decOf(a), decOf(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	x := strings.ToLower(strings.TrimRight(str(a), " "))
	y := strings.ToLower(strings.TrimRight(str(b), " "))
	return strings.Compare(x, y)
}

// likeMatch is SQL LIKE under a case-insensitive collation: % any run, _ one
// character, backslash escapes.
func likeMatch(s, pattern string) bool {
	sr := []rune(strings.ToLower(s))
	pr := []rune(strings.ToLower(pattern))
	var match func(i, j int) bool
	memo := map[[2]int]bool{}
	match = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var res bool
		switch {
		case j == len(pr):
			res = i == len(sr)
		case pr[j] == '%':
			res = match(i, j+1) || (i < len(sr) && match(i+1, j))
		case pr[j] == '_':
			res = i < len(sr) && match(i+1, j+1)
		case pr[j] == '\\' && j+1 < len(pr):
			res = i < len(sr) && sr[i] == pr[j+1] && match(i+1, j+2)
		default:
			res = i < len(sr) && sr[i] == pr[j] && match(i+1, j+1)
		}
		memo[key] = res
		return res
	}
	return match(0, 0)
}
