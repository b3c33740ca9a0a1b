package store

import (
	"strings"
	"unicode/utf8"
)

// Every string the store writes or compares is valid UTF-8: MariaDB refuses
// invalid utf8mb4 in a text column ("Incorrect string value"), and a refused insert would answer
// 503 to every retry of a webhook for a day. Byte columns (raw_body, []byte arguments) are kept
// exactly as received; only string arguments go through validText, once, in textArgs, which
// every statement of the store runs through (statements.go).

// validText returns s unchanged when it is valid UTF-8; otherwise every byte that does not
// belong to a valid UTF-8 sequence is written as \xNN (two lowercase hex digits, as
// strconv.Quote writes it) and valid characters are kept, so "\xff\xfe{}" becomes `\xff\xfe{}`.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0x0f])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// textArgs returns args with every string argument made valid by validText. It allocates only
// when an argument changes, so the common case costs one utf8.ValidString per string.
func textArgs(args []any) []any {
	var out []any
	for i, a := range args {
		s, ok := a.(string)
		if !ok || utf8.ValidString(s) {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = validText(s)
	}
	if out == nil {
		return args
	}
	return out
}
