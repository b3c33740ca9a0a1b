package frappe

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// rawTag matches what a browser would take for an HTML tag.
var rawTag = regexp.MustCompile(`<[A-Za-z/!][^>]*>`)

const (
	fuzzKey    = "KEYfuzz0a1b2c3"
	fuzzSecret = "SECRETfuzz9z8y7x"
)

// FuzzDecodeError decodes arbitrary error answers (seeded in testdata/fuzz/FuzzDecodeError with
// every non-2xx body of the real ERPNext recordings, shared/reference/erpnext-recorded*/). For
// every input: no panic; every text field is valid UTF-8 (it is stored as last_error); the
// human texts carry no raw HTML tag; neither API credential survives; Message() is never
// empty; Classify answers a known class; RetryAfter is never negative.
func FuzzDecodeError(f *testing.F) {
	f.Add(417, "", []byte(`{"exc_type":"ValidationError","_server_messages":"[\"{\\\"message\\\": \\\"<b>Bold</b> &lt;i&gt;x&lt;/i&gt;\\\"}\"]"}`))
	f.Add(429, "54", []byte(`{"exc_type":"TooManyRequestsError"}`))
	f.Add(502, "", []byte("<html>502 Bad Gateway</html>"))
	f.Add(403, "", []byte("{\"_error_message\":\"Not permitted "+fuzzSecret+"\",\"exc_type\":[\"\xff\"]}"))
	c := &Client{secrets: []string{fuzzSecret, fuzzKey}}
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		e := c.decodeError(http.MethodPost, "/api/resource/Payment Entry", status, h, body)
		texts := append([]string{e.ExcType, e.ErrorMessage, e.Exception, e.Message(), e.Error()}, e.Messages...)
		for _, s := range texts {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
			if strings.Contains(s, fuzzSecret) || strings.Contains(s, fuzzKey) {
				t.Fatalf("credential in %q", s)
			}
		}
		for _, s := range append([]string{e.ErrorMessage, e.Message()}, e.Messages...) {
			if tag := rawTag.FindString(s); tag != "" {
				t.Fatalf("raw HTML tag %q in %q", tag, s)
			}
		}
		if e.Message() == "" || e.Status != status || e.RetryAfter < 0 {
			t.Fatalf("decoded %+v", e)
		}
		for _, write := range []bool{false, true} {
			if cl := Classify(e, write); cl <= ClassNone || cl.String() == "unknown" {
				t.Fatalf("Classify = %v", cl)
			}
		}
	})
}

// Inputs the fuzzer turned up, kept as regular cases: each left raw markup or invalid UTF-8
// behind before stripTags and jsonText were fixed.
func TestStripTagsLeavesNoMarkup(t *testing.T) {
	cases := map[string]string{
		"<<b>b>x":                          "x",
		"<b>Bold</b> &lt;i&gt;x&lt;/i&gt;": "Bold x",
		"Amount &lt;= 100 &amp; more":      "Amount <= 100 & more",
		"a < b and c<d":                    "a < b and c<d",
		"&amp;lt;b&amp;gt;":                "&lt;b&gt;",
		"Row 1:<br>Paid <b>1,000.00</b>":   "Row 1: Paid 1,000.00",
	}
	for in, want := range cases {
		if got := stripTags(in); got != want {
			t.Errorf("stripTags(%q) = %q, want %q", in, got, want)
		}
	}
	if got := jsonText([]byte("[\"\xff\"]")); got != "[\"\uFFFD\"]" {
		t.Errorf("jsonText of invalid UTF-8 = %q", got)
	}
}
