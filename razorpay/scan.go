package razorpay

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit, kept so that a body nested deeper fails here as it
// fails there.
const maxDepth = 10000

// scanner walks JSON text once, validating it as encoding/json does (RFC 8259 grammar; bytes
// of invalid UTF-8 inside strings are let through, as encoding/json lets them through) and
// handing out the bytes of the values a caller wants. It never recurses on the input's nesting,
// so deep input costs no stack. The first syntax error stops it: every method is a no-op after
// it, and err holds it.
type scanner struct {
	data  []byte
	i     int
	depth int
	err   error
	stack []byte // open containers of skip, '{' or '['
}

// syntaxError is a scan failure; Error gives encoding/json's wording where it agrees.
type syntaxError struct {
	data []byte
	off  int
}

// Error returns encoding/json's message for the same input (the standard wording, e.g.
// "invalid character 'x' looking for beginning of value", falling back to "invalid JSON") with
// the offset and the bytes there, escaped: "… (at byte 0: "\xff\xfe{}")". It is computed only
// when asked for: the happy path never pays for it.
func (e *syntaxError) Error() string {
	msg, off := "invalid JSON", e.off
	var raw json.RawMessage
	if err := json.Unmarshal(e.data, &raw); err != nil {
		msg = err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 0 {
			off = int(se.Offset) - 1
		}
	}
	off = min(max(off, 0), len(e.data))
	return fmt.Sprintf("%s (at byte %d: %s)", msg, off, excerpt(e.data[off:], 12))
}

func (s *scanner) fail() {
	if s.err == nil {
		s.err = &syntaxError{data: s.data, off: s.i}
		s.i = len(s.data)
	}
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// expect consumes c (after whitespace) or fails.
func (s *scanner) expect(c byte) {
	if s.peek() != c {
		s.fail()
		return
	}
	s.i++
}

// enter and leave count container nesting against maxDepth.
func (s *scanner) enter() {
	if s.depth++; s.depth > maxDepth {
		s.fail()
	}
}

func (s *scanner) leave() { s.depth-- }

// str scans the string at s.i (its opening quote) and returns its content (between the quotes,
// still escaped) and whether it holds escapes.
func (s *scanner) str() (content []byte, escaped bool) {
	if s.peek() != '"' {
		s.fail()
		return nil, false
	}
	start := s.i + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.i = i + 1
			return s.data[start:i], escaped
		case c == '\\':
			escaped = true
			if i+1 >= len(s.data) {
				s.i = i
				s.fail()
				return nil, false
			}
			i++
			switch s.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.data) || !isHex(s.data[i+1]) || !isHex(s.data[i+2]) || !isHex(s.data[i+3]) || !isHex(s.data[i+4]) {
					s.i = i
					s.fail()
					return nil, false
				}
				i += 4
			default:
				s.i = i
				s.fail()
				return nil, false
			}
		case c < 0x20:
			s.i = i
			s.fail()
			return nil, false
		}
	}
	s.i = len(s.data)
	s.fail()
	return nil, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// scalar scans a number or a literal at s.i.
func (s *scanner) scalar() {
	switch c := s.peek(); c {
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

func (s *scanner) literal(word string) {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		s.fail()
		return
	}
	s.i += len(word)
}

// number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() {
	d := s.data
	i := s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		s.i = i
		s.fail()
		return
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			s.i = j
			s.fail()
			return
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if j := digits(d, i); j > i {
			i = j
		} else {
			s.i = j
			s.fail()
			return
		}
	}
	s.i = i
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// value scans any value at s.i and returns its bytes.
func (s *scanner) value() []byte {
	s.ws()
	start := s.i
	s.skip()
	if s.err != nil {
		return nil
	}
	return s.data[start:s.i]
}

// skip scans one value, containers included, without recursion.
func (s *scanner) skip() {
	base := len(s.stack)
	for s.err == nil {
		switch c := s.peek(); c {
		case '{', '[':
			s.i++
			s.enter()
			if s.peek() == c+2 { // '}' or ']'
				s.i++
				s.leave()
				break
			}
			s.stack = append(s.stack, c)
			if c == '{' {
				s.str()
				s.expect(':')
			}
			continue
		case '"':
			s.str()
		default:
			s.scalar()
		}
		// After a value: close containers, or go on after a comma.
		for s.err == nil && len(s.stack) > base {
			top := s.stack[len(s.stack)-1]
			c := s.peek()
			if c == ',' {
				s.i++
				if top == '{' {
					s.str()
					s.expect(':')
				}
				break
			}
			if c != top+2 {
				s.fail()
				return
			}
			s.i++
			s.leave()
			s.stack = s.stack[:len(s.stack)-1]
		}
		if len(s.stack) == base {
			return
		}
	}
}

// members iterates over the members of the object s has entered (just after its '{'), yielding
// each key's content; the loop body must read or skip the value. It stops at the closing '}'
// (consumed) or at a syntax error.
func (s *scanner) members() iter.Seq2[[]byte, bool] {
	return func(yield func(key []byte, escaped bool) bool) {
		for first := true; ; first = false {
			key, escaped, ok := s.member(first)
			if !ok || !yield(key, escaped) {
				return
			}
		}
	}
}

// member moves to the next member of the object being read (first: just after its '{') and
// returns its key's content; ok is false at the closing '}' (consumed) or on a syntax error.
// The caller then reads or skips the value.
func (s *scanner) member(first bool) (key []byte, escaped, ok bool) {
	c := s.peek()
	if c == '}' {
		s.i++
		s.leave()
		return nil, false, false
	}
	if !first {
		if c != ',' {
			s.fail()
			return nil, false, false
		}
		s.i++
	}
	key, escaped = s.str()
	s.expect(':')
	return key, escaped, s.err == nil
}

// decodeString turns a string's content into its text the way encoding/json does: escapes
// resolved, each byte of invalid UTF-8 and each lone surrogate replaced by U+FFFD.
func decodeString(content []byte, escaped bool) string {
	if !escaped && utf8.Valid(content) {
		return string(content)
	}
	quoted := make([]byte, 0, len(content)+2)
	quoted = append(append(append(quoted, '"'), content...), '"')
	var out string
	if err := json.Unmarshal(quoted, &out); err != nil {
		return string(content) // unreachable for scanned content
	}
	return out
}

// What objectLike found.
const (
	absentV = iota // null, "", [] or {} (spec/razorpay.md §3: absent), consumed
	objectV        // an object with members: '{' consumed, read them with member
	otherV         // any other value, consumed
)

// objectLike reads the start of a value that should be an object (payload, a payload wrapper,
// an entity, a link's customer): an object with members is entered (objectV); an absent value
// is consumed (absentV); any other value is consumed and returned (otherV).
func (s *scanner) objectLike() (kind int, other []byte) {
	start := s.i
	switch s.peek() {
	case '{':
		start = s.i
		s.i++
		s.enter()
		if s.peek() != '}' {
			return objectV, nil
		}
		s.i++
		s.leave()
		return absentV, nil
	case 'n':
		s.literal("null")
		return absentV, nil
	case '"':
		start = s.i
		if c, _ := s.str(); len(c) == 0 {
			return absentV, nil
		}
	case '[':
		start = s.i
		s.i++
		s.enter()
		if s.peek() == ']' {
			s.i++
			s.leave()
			return absentV, nil
		}
		s.leave()
	}
	s.i = start
	return otherV, s.value()
}

// element moves to the next element of the array being read (first: just after its '['); it
// returns false at the closing ']' (consumed) or on a syntax error. The caller then reads or
// skips the element.
func (s *scanner) element(first bool) bool {
	c := s.peek()
	if c == ']' {
		s.i++
		s.leave()
		return false
	}
	if !first {
		if c != ',' {
			s.fail()
			return false
		}
		s.i++
	}
	return s.err == nil
}

// end checks that only whitespace follows the top-level value.
func (s *scanner) end() {
	if s.peek() != 0 || s.i != len(s.data) {
		s.fail()
	}
}
