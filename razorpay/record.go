package razorpay

import (
	"errors"
	"fmt"
	"strconv"
)

// maxKeys bounds the fields one builder reads from an object (a payment reads 33).
const maxKeys = 40

// keySet numbers the fields a builder reads from one kind of object.
type keySet map[string]int

func newKeySet(names ...string) keySet {
	if len(names) > maxKeys {
		panic("razorpay: more than maxKeys fields")
	}
	k := make(keySet, len(names))
	for i, n := range names {
		k[n] = i
	}
	return k
}

// excerpt quotes up to n bytes of raw input as a Go string literal, invalid UTF-8 and control
// bytes escaped (`"\xff\xfe{}"`), with "…" when cut: error text built from it is always valid
// UTF-8 and can be stored in any database column.
func excerpt(b []byte, n int) string {
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// object is one JSON object's fields of interest — the bytes of each value, found in the one
// scan of the input — read one by one with the typing rule each field needs. The first error is
// kept (with the field name) and later reads are no-ops. Optional fields read through opt turn a
// type error into a warning appended to *warn (when warn is not nil) instead.
type object struct {
	name string
	keys keySet
	vals [][]byte // by keys index (allocated at the first wanted member); nil when missing
	err  error
	warn *[]string
}

// read fills o from the members of the object s has entered (objectLike gave objectV), skipping
// members o does not want. A member met twice keeps its last value, as in encoding/json.
func (o *object) read(s *scanner) {
	for key, escaped := range s.members() {
		o.set(key, escaped, s)
	}
}

// set stores the value at s for key when o wants it, else skips it.
func (o *object) set(key []byte, escaped bool, s *scanner) {
	idx, found := o.keys[string(key)]
	if escaped {
		idx, found = o.keys[decodeString(key, true)]
	}
	if found {
		if o.vals == nil {
			o.vals = make([][]byte, len(o.keys))
		}
		o.vals[idx] = s.value()
		return
	}
	s.skip()
}

// decodeObject scans raw, which must be one object-like JSON value, into an object. ok=false
// (and no error) when raw is absent in the §3 sense (null, "", [], {}); an error when raw is any
// other non-object value or not JSON.
func decodeObject(name string, keys keySet, raw []byte) (*object, bool, error) {
	s := &scanner{data: raw}
	kind, other := s.objectLike()
	o := &object{name: name, keys: keys}
	if kind == objectV {
		o.read(s)
	}
	s.end()
	switch {
	case s.err != nil:
		return nil, false, fmt.Errorf("%s: %w", name, s.err)
	case kind == otherV:
		return nil, false, notObject(name, other)
	}
	return o, kind == objectV, nil
}

func notObject(name string, v []byte) error {
	return fmt.Errorf("%s: expected an object, got %s", name, excerpt(v, 20))
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

func (o *object) fail(key string, err error) {
	if o.err == nil {
		o.err = fmt.Errorf("%s.%s: %w", o.name, key, err)
	}
}

// raw returns the field's bytes, or nil when it is missing (or after an error).
func (o *object) raw(key string) []byte {
	if o.err != nil {
		return nil
	}
	idx, ok := o.keys[key]
	if !ok {
		panic("razorpay: field " + key + " is not in the key set of " + o.name)
	}
	if o.vals == nil {
		return nil
	}
	return o.vals[idx]
}

// str reads a field that must be a string (or null, or missing).
func (o *object) str(key string) string {
	v := o.raw(key)
	if len(v) == 0 || isNull(v) {
		return ""
	}
	if v[0] != '"' {
		o.fail(key, errors.New("not a string"))
		return ""
	}
	s, _ := valueText(v)
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

// strings reads a list field: absent (null, "", [], {}) → nil; an array → the text of each
// element, nulls dropped; anything else is an error.
func (o *object) strings(key string) []string {
	v := o.raw(key)
	if isEmptyValue(v) {
		return nil
	}
	if v[0] != '[' {
		o.fail(key, errors.New("not a list"))
		return nil
	}
	s := &scanner{data: v, i: 1, depth: 1}
	out := []string{}
	for first := true; s.element(first); first = false {
		if t, ok := valueText(s.value()); ok {
			out = append(out, t)
		}
	}
	return out
}
