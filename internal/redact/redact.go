// Package redact removes secrets from text that servers and the network stack produced (error
// messages, echoed requests, rendered pages) without mangling the words around them: the
// clients of both APIs, the store and the console share it. It knows neither API.
package redact

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mark replaces each secret found.
const Mark = "[redacted]"

// MinLength is the shortest secret the configuration accepts (connector/config refuses shorter
// ones, naming the variable). A secret this long is removed wherever it appears, also glued to
// other letters: a word that contains it contains the secret, and ordinary words do not.
const MinLength = 12

// Secrets returns s with each non-empty secret replaced by Mark. A secret shorter than
// MinLength (a test's, or a client built by hand) is replaced only where it stands as a whole
// word: an occurrence is left alone when a letter, digit or underscore touches it on a side
// where the secret itself begins or ends with one. With the secret "s", "does not exist" stays
// as it is and "token k:s." becomes "token k:[redacted]."; messages are never mangled. Longer
// secrets are replaced first, so one that contains another is removed whole.
func Secrets(s string, secrets ...string) string {
	if len(secrets) > 1 {
		secrets = append([]string(nil), secrets...)
		sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	}
	for _, sec := range secrets {
		s = word(s, sec)
	}
	return s
}

// word replaces the occurrences of one secret: all of them, or only whole words when it is
// shorter than MinLength.
func word(s, secret string) string {
	if secret == "" || !strings.Contains(s, secret) {
		return s
	}
	first, _ := utf8.DecodeRuneInString(secret)
	last, _ := utf8.DecodeLastRuneInString(secret)
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], secret)
		if j < 0 {
			break
		}
		j += i
		end := j + len(secret)
		short := len(secret) < MinLength
		if short && (isWord(first) && isWord(lastBefore(s, j)) || isWord(last) && isWord(firstAfter(s, end))) {
			// Inside a longer word: keep the byte and look again just after it.
			b.WriteString(s[i : j+1])
			i = j + 1
			continue
		}
		b.WriteString(s[i:j])
		b.WriteString(Mark)
		i = end
	}
	b.WriteString(s[i:])
	return b.String()
}

// lastBefore is the rune ending at byte offset i (utf8.RuneError at the start of s).
func lastBefore(s string, i int) rune {
	if i == 0 {
		return utf8.RuneError
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// firstAfter is the rune starting at byte offset i (utf8.RuneError at the end of s).
func firstAfter(s string, i int) rune {
	if i >= len(s) {
		return utf8.RuneError
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isWord(r rune) bool {
	return r != utf8.RuneError && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
}
