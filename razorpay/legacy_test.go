package razorpay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The webhook parser before the single-pass rewrite, kept as the oracle the rewrite
// is fuzzed against: encoding/json maps at every level, then field by field. It shares the field
// readers and entity builders, so the comparison covers the traversal (which bytes each field
// gets, what is absent, what fails); legacyStringMap covers the rewritten notes decoding.

var (
	legacyEnvelopeKeys = newKeySet("entity", "account_id", "event", "contains", "created_at", "payload")
	legacyWrapperKeys  = newKeySet("entity")
)

func legacyDecodeObject(name string, keys keySet, raw []byte) (*object, bool, error) {
	if isEmptyValue(raw) {
		return nil, false, nil
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return nil, false, fmt.Errorf("%s: expected an object, got %s", name, excerpt(raw, 20))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	o := &object{name: name, keys: keys, vals: make([][]byte, len(keys))}
	for k, v := range m {
		if i, ok := keys[k]; ok {
			o.vals[i] = bytes.TrimSpace(v)
		}
	}
	return o, true, nil
}

func legacyParseEvent(body []byte) (*Event, error) {
	o, ok, err := legacyDecodeObject("event", legacyEnvelopeKeys, body)
	if err != nil {
		return nil, err
	}
	if !ok {
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
			return &Event{}, nil
		}
		return nil, errors.New("body is not a JSON object")
	}
	e := &Event{}
	o.warn = &e.Warnings
	e.Entity, e.AccountID, e.Event = o.str("entity"), o.str("account_id"), o.str("event")
	e.Contains = opt(o, "contains", o.strings, nil)
	e.CreatedAt = o.int64("created_at")
	if o.err != nil {
		return nil, o.err
	}
	payload, ok, err := legacyDecodeObject("payload", payloadKeys, o.raw("payload"))
	if err != nil || !ok {
		return e, err
	}
	for k := range nKinds {
		wrapper, ok, err := legacyDecodeObject("payload."+entityNames[k], legacyWrapperKeys, payload.raw(entityNames[k]))
		if err != nil {
			return nil, err
		}
		if !ok || isEmptyValue(wrapper.raw("entity")) {
			continue
		}
		eo, _, err := legacyDecodeObject(entityNames[k], entityKeys[k], wrapper.raw("entity"))
		if err != nil {
			return nil, err
		}
		eo.warn = &e.Warnings
		if err := e.setEntity(k, eo); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// legacyStringMap is decodeStringMap before the rewrite: encoding/json maps and RawMessages.
func legacyStringMap(data []byte) (map[string]string, error) {
	data = bytes.TrimSpace(data)
	out := map[string]string{}
	if len(data) == 0 || isNull(data) {
		return out, nil
	}
	switch data[0] {
	case '{':
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, err
		}
		for k, v := range raw {
			if s, ok := valueText(v); ok {
				out[k] = s
			}
		}
		return out, nil
	case '[':
		var raw []json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, err
		}
		for i, v := range raw {
			if s, ok := valueText(v); ok {
				out[strconv.Itoa(i)] = s
			}
		}
		return out, nil
	case '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, err
		}
		if t := strings.TrimSpace(s); t == "" {
			return out, nil
		} else if t[0] == '{' || t[0] == '[' {
			return legacyStringMap([]byte(t))
		}
	}
	return nil, errors.New("not an object")
}

// FuzzParseEventMatchesLegacy: on every JSON input the single-pass parser and the map-based one
// agree — both fail, or both give the same event (fields, entities, warnings). Input that is not
// JSON always fails now; the legacy parser took a two-byte body such as "{0" for "{}" (its
// emptiness test looked only at the first byte), the one difference kept on purpose.
func FuzzParseEventMatchesLegacy(f *testing.F) {
	f.Add([]byte(`{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_X","notes":[],"amount":5}},"order":[]}}`))
	f.Add([]byte(`{"payload":{"payment":{"entity":{"id":"a"}}},"payload":{"refund":{"entity":{"id":"b","amount":"x"}}}}`))
	f.Add([]byte(`{"payload":{"payment":{"entity":{"amount":"x"},"entity":{"amount":1}}}}`))
	f.Add([]byte(`{"\u0070ayload":{"pay\u006dent":{"\u0065ntity":{"\u0069d":"pay_\u0058"}}}}`))
	f.Add([]byte(`{"payload":{"payment":{"entity":{"id":"p","notes":{"a":null,"a":"x","b":"y","b":null}}}}}`))
	f.Add([]byte(` { } `))
	f.Add([]byte(`{0`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParseEvent(body)
		if !json.Valid(body) {
			if err == nil {
				t.Fatalf("%q is not JSON but parsed: %+v", body, got)
			}
			return
		}
		want, werr := legacyParseEvent(body)
		if (err == nil) != (werr == nil) {
			t.Fatalf("single pass: %v\nlegacy: %v", err, werr)
		}
		if err != nil {
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error text is not valid UTF-8: %q", err.Error())
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("single pass:\n%#v\nlegacy:\n%#v", got, want)
		}
	})
}

// FuzzStringMapMatchesLegacy: notes and acquirer_data decode as before the rewrite.
func FuzzStringMapMatchesLegacy(f *testing.F) {
	for _, s := range []string{`{"a":"x","b":5,"c":null,"d":{"e":[1, 2]}}`, `["x",null,true]`, `"{\"k\":\"v\"}"`, `""`, `null`, `"text"`, `5`, `{"a":1,"a":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // both are only ever given one JSON value
		}
		got, err := decodeStringMap(data)
		want, werr := legacyStringMap(data)
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: single pass %q, %v; legacy %q, %v", data, got, err, want, werr)
		}
	})
}

// FuzzScannerMatchesJSON: the scanner accepts exactly what encoding/json accepts.
func FuzzScannerMatchesJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0.5e+3,"\u00e9\n",true,false,null,{}]}`, `[1,]`, `{"a" 1}`, `01`, `1.`, `-`, `"\x"`,
		"\"\xff\"", "\"\x01\"", `"\ud800"`, ` [ ] `, `{}{}`, `1e`, `[[[]]]`, `nul`, `"abc`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &scanner{data: data}
		s.skip()
		s.end()
		if (s.err == nil) != json.Valid(data) {
			t.Fatalf("%q: scanner %v, encoding/json valid %v", data, s.err, json.Valid(data))
		}
		if s.depth != 0 && s.err == nil {
			t.Fatalf("%q: depth %d after a whole value", data, s.depth)
		}
	})
}

// TestScannerDepthLimit: nesting deeper than encoding/json's 10,000 fails as it fails there,
// without recursion.
func TestScannerDepthLimit(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1, 200000} {
		data := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		s := &scanner{data: data}
		s.skip()
		s.end()
		if (s.err == nil) != json.Valid(data) || (s.err == nil) != (n <= maxDepth) {
			t.Errorf("depth %d: scanner %v, encoding/json valid %v", n, s.err, json.Valid(data))
		}
		body := []byte(`{"payload":{"payment":{"entity":{"notes":` + string(data) + `}}}}`)
		if _, err := ParseEvent(body); (err == nil) != json.Valid(body) {
			t.Errorf("depth %d in notes: ParseEvent %v, encoding/json valid %v", n, err, json.Valid(body))
		}
	}
}
