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
// acquirer_data, in one scan of data. Duplicate keys keep the last value (a last null drops the
// key), as encoding/json does for maps. The result is never nil.
func decodeStringMap(data []byte) (map[string]string, error) {
	data = bytes.TrimSpace(data)
	out := map[string]string{}
	if len(data) == 0 || isNull(data) {
		return out, nil
	}
	s := &scanner{data: data}
	switch data[0] {
	case '{':
		s.i++
		s.enter()
		for key, escaped := range s.members() {
			k := decodeString(key, escaped)
			if v, ok := valueText(s.value()); ok {
				out[k] = v
			} else {
				delete(out, k)
			}
		}
	case '[':
		s.i++
		s.enter()
		for i := 0; s.element(i == 0); i++ {
			if v, ok := valueText(s.value()); ok {
				out[strconv.Itoa(i)] = v
			}
		}
	case '"':
		content, escaped := s.str()
		s.end()
		if s.err != nil {
			return nil, s.err
		}
		t := strings.TrimSpace(decodeString(content, escaped))
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
	s.end()
	if s.err != nil {
		return nil, s.err
	}
	return out, nil
}

// valueText renders one JSON value (validated, no surrounding space) as text: strings
// unquoted, null dropped (ok=false), numbers and booleans as they are written, objects and
// arrays as their compact JSON text; always valid UTF-8 (encoding/json lets invalid bytes
// through inside a nested value; they become U+FFFD here).
func valueText(v []byte) (string, bool) {
	if len(v) == 0 || isNull(v) {
		return "", false
	}
	switch v[0] {
	case '"':
		content := v[1 : len(v)-1]
		return decodeString(content, bytes.IndexByte(content, '\\') >= 0), true
	case '{', '[':
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err == nil {
			v = buf.Bytes()
		}
	}
	return strings.ToValidUTF8(string(v), "\uFFFD"), true
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
	if len(data) >= 2 && data[0] == '"' {
		content := data[1 : len(data)-1]
		s = strings.TrimSpace(decodeString(content, bytes.IndexByte(content, '\\') >= 0))
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
