package store

import (
	"testing"
	"unicode/utf8"
)

func TestValidTextEscapesOnlyInvalidBytes(t *testing.T) {
	cases := map[string]string{
		"":                 "",
		"plain ₹ text":     "plain ₹ text",
		"\xff\xfe{}":       `\xff\xfe{}`,
		"cut \xe2\x82 end": `cut \xe2\x82 end`,
		"é\xc3":            `é\xc3`,
		`already \xff`:     `already \xff`,
		"\x00nul":          "\x00nul",
	}
	for in, want := range cases {
		if got := validText(in); got != want || !utf8.ValidString(got) {
			t.Errorf("validText(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestTextArgsCopiesOnlyWhenAnArgumentChanges(t *testing.T) {
	args := []any{"ok", []byte("\xff"), 7, "bad\xff"}
	got := textArgs(args)
	if got[3] != `bad\xff` || string(got[1].([]byte)) != "\xff" || args[3] != "bad\xff" {
		t.Errorf("textArgs = %q (input now %q); want the string escaped, the bytes kept, the input unchanged", got, args)
	}
	clean := []any{"ok", 1}
	if out := textArgs(clean); &out[0] != &clean[0] {
		t.Error("textArgs copied arguments that were all valid")
	}
}
