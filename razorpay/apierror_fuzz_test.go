package razorpay

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeAPIError decodes arbitrary error answers of the Razorpay API: no panic, every field
// valid UTF-8 (it becomes stored error text) and free of the key secret and of the Basic
// credentials that carry it, whatever the server echoes.
func FuzzDecodeAPIError(f *testing.F) {
	const secret = "T3stSecretNeverPrinted"
	c := &Client{secret: secret, basic: "cnpwX3Rlc3Q6VDNzdFNlY3JldE5ldmVyUHJpbnRlZA=="}
	f.Add(400, []byte(`{"error":{"code":"BAD_REQUEST_ERROR","description":"The id provided does not exist","source":"business","step":"payment_initiation","reason":"input_validation_failed","metadata":{},"field":"id"}}`))
	f.Add(429, []byte(`{"error":{"code":"BAD_REQUEST_ERROR","description":"Too many requests"}}`))
	f.Add(502, []byte("<html>Passerelle d\xe9faillante "+secret+"</html>"))
	f.Add(401, []byte(`{"error":{"code":["`+c.basic+`"],"description":7}}`))
	f.Add(502, []byte(strings.Repeat("a", 190)+secret)) // a cut at 200 bytes must not keep half of it
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeAPIError(status, http.Header{}, body, c.redact)
		// A part of a credential may appear only where the body had that part on its own.
		partial := func(cred string) string {
			if strings.Count(string(body), cred[:8]) == strings.Count(string(body), cred) {
				return cred[:8]
			}
			return cred
		}
		for _, s := range []string{e.Code, e.Description, e.Field, e.Source, e.Step, e.Reason, e.Error()} {
			if !utf8.ValidString(s) || strings.Contains(s, partial(secret)) || strings.Contains(s, partial(c.basic)) {
				t.Fatalf("field %q of %+v", s, e)
			}
		}
		if e.Status != status {
			t.Fatalf("status %d, want %d", e.Status, status)
		}
	})
}
