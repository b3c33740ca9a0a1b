package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Terminal-safe output. Every CLI printer writes through a termWriter (Main.Run wraps Stdout
// and Stderr once), so text that came from outside — payment ids, notes.invoice, ERPNext's
// messages, a person's reasons — can never move the cursor, retitle the window, rewrite earlier
// lines or hide text (ESC, BEL, CR, C1 controls, bidirectional overrides). Line breaks and tabs
// are kept: they are the printers' own layout, and a multi-line reason stays readable. JSON
// output is unchanged in meaning: encoding/json escapes control characters itself, and the
// \u00XX form used here for the few it leaves raw (DEL, C1) is a valid JSON string escape of
// the same character.

// termSafe returns s with every character a terminal would act on written as an escape:
// control characters (except \n and \t), DEL, C1 controls and bidirectional controls as
// \u00XX / \u202E, and each byte that is not valid UTF-8 as \xHH.
func termSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case actsOnTerminal(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if actsOnTerminal(r) {
			return true
		}
	}
	return false
}

// actsOnTerminal reports whether r is a control a terminal acts on (or that reorders text).
func actsOnTerminal(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}

// termWriter writes through termSafe. A character split across two writes is held until the
// rest arrives (Flush writes what is left).
type termWriter struct {
	w    io.Writer
	tail []byte
}

func (t *termWriter) Write(p []byte) (int, error) {
	buf := append(t.tail, p...)
	t.tail = nil
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, termSafe(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held partial character (escaped: nothing completed it).
func (t *termWriter) Flush() error {
	if len(t.tail) == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, termSafe(string(t.tail)))
	t.tail = nil
	return err
}

// rawWriter is the writer under a termWriter: for the program's own terminal control (the
// reconcile progress bar) and for log lines, which are JSON (or zerolog's console format, whose
// colours need the terminal itself).
func rawWriter(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return t.w
	}
	return w
}
