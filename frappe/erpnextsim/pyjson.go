package erpnextsim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// kv is one member of an ordered JSON object.
type kv struct {
	k string
	v any
}

// obj is a JSON object that keeps its key order (Frappe answers in doctype
// field order; clients must not care, people reading logs do).
type obj []kv

func (o obj) get(k string) (any, bool) {
	for _, e := range o {
		if e.k == k {
			return e.v, true
		}
	}
	return nil, false
}

// toPlain converts obj trees to map[string]any / []any with json.Number
// leaves, the form Site.Doc returns.
func toPlain(v any) any {
	switch x := v.(type) {
	case obj:
		m := make(map[string]any, len(x))
		for _, e := range x {
			m[e.k] = toPlain(e.v)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toPlain(e)
		}
		return out
	case dec:
		return x.num()
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case int:
		return json.Number(strconv.Itoa(x))
	}
	return v
}

// pyJSON encodes v the way Python's json.dumps does with ensure_ascii: no
// HTML escaping, non-ASCII as \uXXXX. spaced selects the default ", "/": "
// separators (used for the inner _server_messages objects); otherwise the
// output is compact like Frappe's response body.
func pyJSON(v any, spaced bool) string {
	var b strings.Builder
	writePy(&b, v, spaced)
	return b.String()
}

func writePy(b *strings.Builder, v any, spaced bool) {
	comma, colon := ",", ":"
	if spaced {
		comma, colon = ", ", ": "
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case obj:
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteString(comma)
			}
			writePyString(b, e.k)
			b.WriteString(colon)
			writePy(b, e.v, spaced)
		}
		b.WriteByte('}')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := make(obj, 0, len(keys))
		for _, k := range keys {
			o = append(o, kv{k, x[k]})
		}
		writePy(b, o, spaced)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(comma)
			}
			writePy(b, e, spaced)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(comma)
			}
			writePyString(b, e)
		}
		b.WriteByte(']')
	case string:
		writePyString(b, x)
	case json.Number:
		b.WriteString(string(x))
	case dec:
		b.WriteString(x.py())
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	default:
		writePyString(b, fmt.Sprint(x))
	}
}

func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || (r >= 0x7f && r < 0x10000):
			fmt.Fprintf(b, `\u%04x`, r)
		case r >= 0x10000:
			a, c := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, a, c)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
