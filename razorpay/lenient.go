package razorpay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Notes are the merchant key/value pairs Razorpay copies from orders and payment links onto
// payments (spec/razorpay.md §3.1, at most 15 pairs). Decoding is lenient (§3 typing rules):
// an object, an empty array [] (how Razorpay serializes empty notes), null or "" all decode;
// string values are kept as they are, numbers and booleans as their JSON text without quotes
// (5 → "5", true → "true"), nested objects or arrays as compact JSON text, and null values are
// dropped. A non-empty array is keyed by position ("0", "1", …); a string holding JSON object
// text is decoded as that object. Anything else (a number, other text) is an error.
// A decoded Notes is never nil.
type Notes map[string]string

// UnmarshalJSON implements json.Unmarshaler with the lenient rules described on Notes.
func (n *Notes) UnmarshalJSON(data []byte) error {
	m, err := decodeStringMap(data)
	if err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	*n = Notes(m)
	return nil
}

// decodeStringMap implements the lenient object-of-strings decoding shared by Notes and
// acquirer_data. The result is never nil.
func decodeStringMap(data []byte) (map[string]string, error) {
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
		t := strings.TrimSpace(s)
		if t == "" {
			return out, nil
		}
		if t[0] == '{' || t[0] == '[' {
			return decodeStringMap([]byte(t))
		}
		return nil, errors.New("expected an object, got a string")
	default:
		return nil, fmt.Errorf("expected an object, got %s", excerpt(data, 20))
	}
}

// valueText renders one JSON value as text: strings unquoted, null dropped (ok=false),
// everything else as its compact JSON text; always valid UTF-8 (invalid bytes become U+FFFD).
func valueText(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || isNull(v) {
		return "", false
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			return s, true
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return strings.ToValidUTF8(string(v), "\uFFFD"), true
	}
	// encoding/json passes invalid UTF-8 inside a nested string through untouched; the text
	// is stored and shown, so keep it valid.
	return strings.ToValidUTF8(buf.String(), "\uFFFD"), true
}

// Bool is a boolean that decodes leniently (spec/razorpay.md §3 typing rules): true, false,
// 1, 0, "1", "0", "true", "false" (any case), and null or "" as false. Any other value is an
// error. It encodes as a plain JSON boolean.
type Bool bool

// UnmarshalJSON implements json.Unmarshaler with the lenient rules described on Bool.
func (b *Bool) UnmarshalJSON(data []byte) error {
	v, err := parseBool(data)
	if err != nil {
		return err
	}
	*b = Bool(v)
	return nil
}

func parseBool(data []byte) (bool, error) {
	data = bytes.TrimSpace(data)
	s := string(data)
	if len(data) > 0 && data[0] == '"' {
		if err := json.Unmarshal(data, &s); err != nil {
			return false, err
		}
		s = strings.TrimSpace(s)
	}
	switch strings.ToLower(s) {
	case "true", "1":
		return true, nil
	case "false", "0", "", "null":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %s", excerpt(data, 20))
}

func isNull(data []byte) bool { return string(data) == "null" }

// isEmptyValue reports whether raw JSON is absent in the §3 sense: null, "", [] or {}.
func isEmptyValue(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || isNull(data) || string(data) == `""` {
		return true
	}
	if len(data) < 2 || (data[0] != '[' && data[0] != '{') {
		return false
	}
	inner := bytes.TrimSpace(data[1 : len(data)-1])
	return len(inner) == 0
}

// excerpt quotes up to n bytes of raw input as a Go string literal, invalid UTF-8 and control
// bytes escaped (`"\xff\xfe{}"`), with "…" when cut: error text built from it is always valid
// UTF-8 and can be stored in any database column (issue 10 defect 3).
func excerpt(b []byte, n int) string {
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// object is one decoded JSON object whose fields are read one by one with the typing rule each
// field needs. The first error is kept (with the field name) and later reads are no-ops.
// Optional fields read through opt turn a type error into a warning appended to *warn (when
// warn is not nil) instead.
type object struct {
	name string
	m    map[string]json.RawMessage
	err  error
	warn *[]string
}

// opt reads an optional field with read; a value of an unusable type is recorded as a warning
// ("payment.notes: expected an object, got a string; treated as absent") and zero is returned.
func opt[T any](o *object, key string, read func(string) T, zero T) T {
	if o.err != nil {
		return zero
	}
	v := read(key)
	if o.err != nil {
		if o.warn != nil {
			*o.warn = append(*o.warn, o.err.Error()+"; treated as absent")
		}
		o.err = nil
		return zero
	}
	return v
}

// decodeObject decodes raw into an object. ok=false (and no error) when raw is absent in the
// §3 sense (null, "", [], {}); an error when raw is any other non-object value.
func decodeObject(name string, raw []byte) (*object, bool, error) {
	if isEmptyValue(raw) {
		return nil, false, nil
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return nil, false, fmt.Errorf("%s: expected an object, got %s", name, excerpt(raw, 20))
	}
	o := &object{name: name}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	return o, true, nil
}

func (o *object) fail(key string, err error) {
	if o.err == nil {
		o.err = fmt.Errorf("%s.%s: %w", o.name, key, err)
	}
}

// raw returns the field's bytes, or nil when it is missing.
func (o *object) raw(key string) []byte {
	if o.err != nil {
		return nil
	}
	v, ok := o.m[key]
	if !ok {
		return nil
	}
	return bytes.TrimSpace(v)
}

// str reads a field that must be a string (or null, or missing).
func (o *object) str(key string) string {
	v := o.raw(key)
	if len(v) == 0 || isNull(v) {
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		o.fail(key, errors.New("not a string"))
		return ""
	}
	return s
}

// text reads a free-text field leniently: strings as they are, numbers and booleans as their
// JSON text, null/objects/arrays as "".
func (o *object) text(key string) string {
	v := o.raw(key)
	if len(v) == 0 || v[0] == '{' || v[0] == '[' {
		return ""
	}
	s, _ := valueText(v)
	return s
}

// int64p reads an integer field: a JSON integer; null, "" or missing → nil; anything else
// (a fraction, an exponent, other text, overflow) is an error.
func (o *object) int64p(key string) *int64 {
	v := o.raw(key)
	if len(v) == 0 || isNull(v) || string(v) == `""` {
		return nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		o.fail(key, fmt.Errorf("not an integer: %s", excerpt(v, 30)))
		return nil
	}
	return &n
}

// int64 is int64p with absent read as 0.
func (o *object) int64(key string) int64 {
	if p := o.int64p(key); p != nil {
		return *p
	}
	return 0
}

func (o *object) boolean(key string) Bool {
	v := o.raw(key)
	if len(v) == 0 {
		return false
	}
	b, err := parseBool(v)
	if err != nil {
		o.fail(key, err)
	}
	return Bool(b)
}

func (o *object) stringMap(key string) map[string]string {
	v := o.raw(key)
	m, err := decodeStringMap(v)
	if err != nil {
		o.fail(key, err)
		return map[string]string{}
	}
	return m
}

func (o *object) strings(key string) []string {
	v := o.raw(key)
	if isEmptyValue(v) {
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil {
		o.fail(key, errors.New("not a list"))
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		if s, ok := valueText(r); ok {
			out = append(out, s)
		}
	}
	return out
}
