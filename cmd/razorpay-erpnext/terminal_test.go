package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"pay_T3stPlain001":             "pay_T3stPlain001",
		"₹12,000.00\tPaid\n":           "₹12,000.00\tPaid\n",
		"X\x1b]0;pwned\x07Y":           `X\u001b]0;pwned\u0007Y`,
		"booked\rOK":                   `booked\u000dOK`,
		"a\x1b[2Jb\x7f":                `a\u001b[2Jb\u007f`,
		"c1 \u009b31m":                 `c1 \u009b31m`,
		"evil\u202eTXT.exe":            `evil\u202eTXT.exe`,
		"bad\xff\xfe":                  `bad\xff\xfe`,
		"\x00":                         `\u0000`,
		"NOPE-1 (notes.invoice)\u00e9": "NOPE-1 (notes.invoice)\u00e9",
	} {
		if got := termSafe(in); got != want {
			t.Errorf("termSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// A character split across two writes reaches the terminal whole; JSON written through the
// writer still decodes to the same text.
func TestTermWriter(t *testing.T) {
	var buf bytes.Buffer
	w := &termWriter{w: &buf}
	rupee := []byte("₹5\x1b")
	for _, b := range rupee {
		if n, err := w.Write([]byte{b}); n != 1 || err != nil {
			t.Fatal(n, err)
		}
	}
	if err := w.Flush(); err != nil || buf.String() != `₹5\u001b` {
		t.Errorf("split writes gave %q", buf.String())
	}
	buf.Reset()
	orig := "id\x1b[31m\u0085\x7f\u202e"
	if err := json.NewEncoder(w).Encode(map[string]string{"id": orig}); err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["id"] != orig {
		t.Errorf("JSON through the writer: %q → %q, %v", buf.String(), back["id"], err)
	}
	if strings.ContainsAny(buf.String(), "\x1b\x7f\u0085\u202e") {
		t.Errorf("raw controls in %q", buf.String())
	}
}

// events list and events show print a hostile notes.invoice (an OSC window title ended by BEL,
// a screen clear) and a reason a person typed with the same bytes as escapes, never as the
// bytes a terminal acts on; --json keeps the exact text, JSON-escaped.
func TestEventsOutputEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d := e.start(cfg)
	path, envs := e.writeConfig(cfg, "")
	hostile := "NOPE\x1b]0;pwned\x07\x1b[2J"
	e.deliver(d, "T3stEvEscape01", e.payment("payment.captured", "pay_T3stEscape001", 50000, map[string]string{"invoice": hostile}))
	e.waitIdle(d)
	if code, out, errs := run(t, envs, "events", "dismiss", "T3stEvEscape01", "--reason", "by hand"+hostile, "--config", path); code != exitOK {
		t.Fatalf("dismiss: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"events", "list", "--since", "1h", "--config", path},
		{"events", "show", "T3stEvEscape01", "--config", path},
	} {
		code, out, errs := run(t, envs, args...)
		if code != exitOK || strings.ContainsAny(out+errs, "\x1b\x07") || !strings.Contains(out, `by handNOPE\u001b]0;pwned\u0007\u001b[2J`) {
			t.Errorf("%v: exit %d, want the reason escaped:\n%q", args, code, out)
		}
	}
	code, out, _ := run(t, envs, "events", "show", "T3stEvEscape01", "--json", "--config", path)
	if code != exitOK || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `NOPE\u001b]0;pwned\u0007\u001b[2J`) {
		t.Errorf("events show --json: exit %d\n%q", code, out)
	}
	var v struct {
		Events []struct {
			LastError string `json:"last_error"`
			Body      struct {
				Payload struct {
					Payment struct {
						Entity struct {
							Notes map[string]string `json:"notes"`
						} `json:"entity"`
					} `json:"payment"`
				} `json:"payload"`
			} `json:"body"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Events) != 1 || v.Events[0].LastError != "dismissed by an operator: by hand"+hostile ||
		v.Events[0].Body.Payload.Payment.Entity.Notes["invoice"] != hostile {
		t.Errorf("events show --json does not decode to the exact text: %v %+v", err, v)
	}
}
